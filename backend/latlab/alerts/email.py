"""Email channels: an alert's message sent through the lab's SMTP server (`LATLAB_SMTP_*`):
STARTTLS on the submission port by default (or TLS from the first byte, or none on a trusted
local relay), with credentials when given, bounded by `delivery_timeout_s`. The text is the
Slack message's (`delivery.blocks`) as plain text; a digest channel's messages of a day go as
one mail. A channel's address is `mailto:` one or more recipients, comma-separated.

An attempt's outcome is the server's reply code: 2xx sent; 5xx a permanent refusal (a
recipient the server does not know), 4xx and a connection that failed are tried again, as a
webhook's 5xx are. Each mail's Message-ID is the message's own, so a mail sent again after a
worker was killed mid-send is one message to a client that de-duplicates by it."""

import re
import smtplib
import ssl
from email.message import EmailMessage
from typing import Any

from latlab.core.settings import get_settings

ADDRESS = r"[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?"
MAILTO = rf"^mailto:{ADDRESS}(,{ADDRESS}){{0,19}}$"
NOT_SET = "the lab has no SMTP server: set LATLAB_SMTP_HOST (docs/operations.md)"


def recipients(url: str) -> list[str]:
    return url.removeprefix("mailto:").split(",")


def configured() -> bool:
    return bool(get_settings().smtp_host)


def send(url: str, subject: str, text: str, message_id: str) -> tuple[int | None, str | None]:
    """One mail; the server's reply code, and what went wrong if it was not sent."""
    settings = get_settings()
    if not settings.smtp_host:
        return None, NOT_SET
    mail = EmailMessage()
    mail["From"] = settings.smtp_from
    mail["To"] = ", ".join(recipients(url))
    mail["Subject"] = subject
    mail["Message-ID"] = message_id
    mail.set_content(text)
    context = ssl.create_default_context(cafile=settings.smtp_ca_file or None)
    timeout = settings.delivery_timeout_s
    try:
        if settings.smtp_security == "tls":
            server: smtplib.SMTP = smtplib.SMTP_SSL(settings.smtp_host, settings.smtp_port,
                                                    timeout=timeout, context=context)
        else:
            server = smtplib.SMTP(settings.smtp_host, settings.smtp_port, timeout=timeout)
        with server:
            if settings.smtp_security == "starttls":
                server.starttls(context=context)
            if settings.smtp_user:
                server.login(settings.smtp_user, settings.smtp_password)
            refused = server.send_message(mail)
    except smtplib.SMTPRecipientsRefused as error:
        code, said = next(iter(error.recipients.values()))
        return code, f"SMTP {code}: {_said(said)} (every recipient refused)"
    except smtplib.SMTPResponseException as error:
        return error.smtp_code, f"SMTP {error.smtp_code}: {_said(error.smtp_error)}"
    except (OSError, smtplib.SMTPException) as error:  # refused, timed out, TLS, protocol
        return None, f"{type(error).__name__}: {error}"
    if refused:
        code, said = next(iter(refused.values()))
        return 250, f"sent, but refused for {', '.join(refused)}: SMTP {code} {_said(said)}"
    return 250, None


def permanent(code: int) -> bool:
    """A reply the same mail will get again: 5xx."""
    return 500 <= code < 600


def plain(blocks: list[dict[str, Any]]) -> str:
    """Slack's Block Kit message as plain text: sections, fields and context lines, links as
    `label: url`."""
    lines: list[str] = []
    for block in blocks:
        texts = ([block["text"]["text"]] if "text" in block else []) + [
            item["text"] for item in block.get("fields", []) + block.get("elements", [])]
        lines.extend(_unslack(text) for text in texts)
    return "\n".join(lines) + "\n"


def _unslack(text: str) -> str:
    text = re.sub(r"<([^|>]+)\|([^>]+)>", r"\2: \1", text)
    text = re.sub(r":[a-z_]+: ", "", text)  # emoji
    return text.replace("*", "")


def _said(said: bytes | str) -> str:
    return (said.decode(errors="replace") if isinstance(said, bytes) else said)[:300]
