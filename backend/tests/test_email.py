"""Email channels against a real SMTP server started by the test (aiosmtpd): STARTTLS with the
lab's own CA and credentials, the channel's test, an alert's message through the outbox (its
Message-ID its own, so a repeat is one message to a client), a recipient the server refuses
for good and one it asks to retry, the daily digest as one mail, and a server that never
answers, bounded by the delivery timeout."""

import socket
import ssl
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from email import message_from_bytes
from email.message import Message
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
from sqlalchemy import select
from sqlalchemy.orm import Session

from latlab.alerts import delivery, lifecycle
from latlab.core import tls
from latlab.core.settings import get_settings
from latlab.models import Channel, DeliveryAttempt, Notification, Project
from tests.conftest import FrozenClock
from tests.factories import notified

USER, PASSWORD = "lab", "s3cret"


@dataclass
class Mailbox:
    """What the server received, and what it answers recipients it is told to refuse."""

    mails: list[Message] = field(default_factory=list)
    starttls: list[bool] = field(default_factory=list)
    logins: list[str] = field(default_factory=list)
    refuse: dict[str, str] = field(default_factory=dict)  # address -> reply

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str,
                          options: list[str]) -> str:
        if address in self.refuse:
            return self.refuse[address]
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.mails.append(message_from_bytes(envelope.original_content or envelope.content))
        self.starttls.append(session.ssl is not None)
        return "250 Message accepted"

    def __call__(self, server: Any, session: Any, envelope: Any, mechanism: str,
                 auth_data: Any) -> AuthResult:
        ok = isinstance(auth_data, LoginPassword) and (
            auth_data.login.decode(), auth_data.password.decode()) == (USER, PASSWORD)
        if ok:
            self.logins.append(USER)
        return AuthResult(success=ok)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def smtp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Mailbox]:
    """A submission server requiring STARTTLS before credentials, its certificate from a CA
    the lab is told to trust (LATLAB_SMTP_CA_FILE)."""
    ca, ca_key = tls.make_ca(tmp_path / "ca")
    tls.write_issued(tls.issue(ca, ca_key, "smtp", ("127.0.0.1",)), tmp_path / "smtp.pem",
                     tmp_path / "smtp.key")
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(tmp_path / "smtp.pem", tmp_path / "smtp.key")
    mailbox = Mailbox()
    port = _free_port()
    controller = Controller(mailbox, hostname="127.0.0.1", port=port, tls_context=context,
                            require_starttls=True, authenticator=mailbox,
                            auth_require_tls=True)
    controller.start()
    for name, value in (("HOST", "127.0.0.1"), ("PORT", str(port)), ("USER", USER),
                        ("PASSWORD", PASSWORD), ("FROM", "latlab@lab.test"),
                        ("CA_FILE", str(ca))):
        monkeypatch.setenv(f"LATLAB_SMTP_{name}", value)
    get_settings.cache_clear()
    yield mailbox
    controller.stop()
    monkeypatch.undo()
    get_settings.cache_clear()


def _email_channel(db: Session, clock: FrozenClock, to: str = "oncall@lab.test",
                   digest: bool = False) -> Channel:
    project = db.scalar(select(Project).where(Project.slug == "default"))
    assert project is not None
    channel = Channel(project_id=project.id, name="mail", kind="email", url=f"mailto:{to}",
                      digest=digest, created_at=clock.now())
    db.add(channel)
    db.flush()
    return channel


def test_an_email_channel_needs_the_labs_smtp_server(client, actors, db) -> None:
    actors.login(client)
    refused = client.post("/api/v1/channels", json={
        "name": "mail", "kind": "email", "url": "mailto:oncall@lab.test"})
    assert refused.status_code == 422, refused.text
    assert refused.json()["detail"][0]["path"] == "$.kind"
    assert "LATLAB_SMTP_HOST" in refused.text
    assert db.scalar(select(Channel)) is None


@pytest.mark.parametrize(("body", "path"), [
    ({"kind": "email", "url": "oncall@lab.test"}, "$.url"),
    ({"kind": "email", "url": "mailto:not an address"}, "$.url"),
    ({"kind": "email", "url": "mailto:" + ",".join(f"a{i}@lab.test" for i in range(21))},
     "$.url"),
    ({"kind": "slack", "url": "mailto:oncall@lab.test"}, "$.url"),
    ({"kind": "slack", "url": "https://hooks.slack.com/x", "digest": True}, "$.digest"),
])
def test_a_bad_address_or_digest_is_refused(client, actors, db, smtp, body, path) -> None:
    actors.login(client)
    refused = client.post("/api/v1/channels", json={"name": "mail", **body})
    assert refused.status_code == 422, refused.text
    assert [p["path"] for p in refused.json()["detail"]] == [path]
    assert db.scalar(select(Channel)) is None


def test_the_channel_test_goes_over_starttls_with_credentials(client, actors, smtp) -> None:
    actors.login(client)
    made = client.post("/api/v1/channels", json={
        "name": "on call", "kind": "email", "url": "mailto:oncall@lab.test,lead@lab.test"})
    assert made.status_code == 201, made.text
    assert (made.json()["kind"], made.json()["digest"]) == ("email", False)
    digest = client.post("/api/v1/channels", json={
        "name": "daily", "kind": "email", "url": "mailto:team@lab.test", "digest": True})
    assert digest.status_code == 201 and digest.json()["digest"] is True
    assert "url" not in made.json()
    tested = client.post(f"/api/v1/channels/{made.json()['id']}/test").json()
    assert (tested["ok"], tested["status_code"], tested["error"]) == (True, 250, None)
    (mail,) = smtp.mails
    assert smtp.starttls == [True] and smtp.logins == [USER]
    assert mail["Subject"] == "[TEST] latlab can reach channel 'on call'."
    assert (mail["From"], mail["To"]) == ("latlab@lab.test", "oncall@lab.test, lead@lab.test")


def test_an_alerts_message_is_mailed_from_the_outbox(db, clock, smtp) -> None:
    channel = _email_channel(db, clock)
    (message,) = notified(db, channel, clock.now())
    delivery.deliver(db, message)
    notification = db.get(Notification, message)
    assert notification is not None and notification.status == "sent"
    (mail,) = smtp.mails
    assert mail["Subject"] == "[ALERT] alert 0"
    assert mail["Message-ID"].startswith(f"<latlab-{message}@")
    body = mail.get_payload(decode=True).decode()
    assert "latlab sla (warning)" in body and "alert 0" in body
    (attempt,) = db.scalars(select(DeliveryAttempt)).all()
    assert (attempt.status_code, attempt.ok) == (250, True)


def test_a_refused_recipient_fails_for_good_and_a_busy_server_is_tried_again(
        db, clock, smtp) -> None:
    gone = _email_channel(db, clock, to="gone@lab.test")
    busy = _email_channel(db, clock, to="busy@lab.test")
    smtp.refuse = {"gone@lab.test": "550 5.1.1 no such user",
                   "busy@lab.test": "451 4.3.0 try again later"}
    (for_gone,) = notified(db, gone, clock.now())
    (for_busy,) = notified(db, busy, clock.now())
    delivery.deliver(db, for_gone)
    delivery.deliver(db, for_busy)
    failed, waiting = db.get(Notification, for_gone), db.get(Notification, for_busy)
    assert failed is not None and failed.status == "failed"
    assert failed.last_error == "SMTP 550: 5.1.1 no such user (every recipient refused)"
    assert waiting is not None and waiting.status == "pending"
    db.refresh(busy)
    assert busy.retry_at is not None and busy.consecutive_failures == 1
    smtp.refuse = {}
    clock.advance(seconds=60)
    delivery.deliver(db, for_busy)
    assert db.get(Notification, for_busy).status == "sent"
    assert len(smtp.mails) == 1


def test_a_digest_sends_the_days_messages_as_one_mail(db, clock, smtp) -> None:
    channel = _email_channel(db, clock, digest=True)
    messages = notified(db, channel, clock.now(), n=3)
    rows = [db.get(Notification, m) for m in messages]
    due = lifecycle.next_digest(clock.now())
    assert all(r is not None and r.next_attempt_at == due for r in rows)
    delivery.deliver(db, messages[0])  # not due: nothing is sent
    assert smtp.mails == []
    clock.moment = due
    delivery.deliver(db, messages[1])
    (mail,) = smtp.mails
    assert mail["Subject"] == f"[latlab] 3 alert messages of {due.date().isoformat()}"
    body = mail.get_payload(decode=True).decode()
    assert all(f"alert {i}" in body for i in range(3))
    assert {db.get(Notification, m).status for m in messages} == {"sent"}
    assert len(db.scalars(select(DeliveryAttempt)).all()) == 3
    delivery.deliver(db, messages[2])  # its own task, late: already sent
    assert len(smtp.mails) == 1


def test_a_server_that_never_answers_costs_one_timeout_and_is_tried_again(
        db, clock, monkeypatch) -> None:
    """A port that accepts and says nothing (no greeting): the attempt ends after
    `delivery_timeout_s`, recorded as such, and the message waits for its next one."""
    silent = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []
    threading.Thread(target=lambda: accepted.append(silent.accept()[0]), daemon=True).start()
    monkeypatch.setenv("LATLAB_SMTP_HOST", "127.0.0.1")
    monkeypatch.setenv("LATLAB_SMTP_PORT", str(silent.getsockname()[1]))
    monkeypatch.setenv("LATLAB_DELIVERY_TIMEOUT_S", "1")
    get_settings.cache_clear()
    try:
        channel = _email_channel(db, clock)
        (message,) = notified(db, channel, clock.now())
        delivery.deliver(db, message)
    finally:
        monkeypatch.undo()
        get_settings.cache_clear()
        silent.close()
        for connection in accepted:
            connection.close()
    notification = db.get(Notification, message)
    assert notification is not None and notification.status == "pending"
    assert notification.last_error is not None and "timed out" in notification.last_error
