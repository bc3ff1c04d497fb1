"""Messages a runner sends the lab, signed with its host's key.

A host receives a key of its own when it enrolls (32 random bytes, hex). Every heartbeat, job
event and outcome goes out as an envelope `{host, sent_at, body, signature}`: the signature is
HMAC-SHA256 under that key over the task's name, the host's name, the time it was sent and the
body, so a message signed for one task cannot be passed off as another, nor one host's as
another's. The ingest worker checks it against the key it holds for the named host
(`latlab.hosts.trust`). Signing costs microseconds, once per message, never on a measured path.
"""

import hashlib
import hmac
import json
import os
import secrets
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

KEY_BYTES = 32


class Refused(Exception):
    """An envelope that is not a well-formed signed message."""


def new_key() -> str:
    return secrets.token_hex(KEY_BYTES)


def seal(key: str, task: str, host: str, body: dict[str, Any]) -> dict[str, Any]:
    """The envelope of `body`, sent as task `task` by `host`."""
    sent_at = time.time()
    return {"host": host, "sent_at": sent_at, "body": body,
            "signature": _signature(key, task, host, sent_at, body)}


def claimed_host(envelope: Any) -> str:
    """The host an envelope says it comes from (not yet believed)."""
    if not isinstance(envelope, dict) or not isinstance(envelope.get("host"), str):
        raise Refused("not a signed message: no host named")
    return str(envelope["host"])[:200]


def verify(key: str, task: str, envelope: dict[str, Any]) -> dict[str, Any]:
    """The body of an envelope signed with `key` for `task`; Refused otherwise."""
    host, sent_at = claimed_host(envelope), envelope.get("sent_at")
    body, signature = envelope.get("body"), envelope.get("signature")
    if not isinstance(sent_at, int | float) or not isinstance(body, dict) \
            or not isinstance(signature, str):
        raise Refused("not a signed message: sent_at, body or signature missing")
    if not hmac.compare_digest(_signature(key, task, host, float(sent_at), body), signature):
        raise Refused("the signature does not match the host's key")
    return body


def _signature(key: str, task: str, host: str, sent_at: float, body: dict[str, Any]) -> str:
    message = json.dumps([task, host, sent_at, body], sort_keys=True, separators=(",", ":"))
    return hmac.new(bytes.fromhex(key), message.encode(), hashlib.sha256).hexdigest()


class BrokerCertificates(BaseModel):
    """TLS to a broker beyond loopback: the lab's CA and the host's certificate and key (PEM),
    issued at enrollment (`latlab.core.tls`)."""

    ca: str
    certificate: str
    key: str


class HostGrant(BaseModel):
    """What a host receives when it joins the lab, and its runner's settings file."""

    name: str
    tags: list[str]
    key: str = Field(description="The host's key: its runner signs its messages with it")
    broker_url: str = Field(description="The broker, as the host's own broker user")
    broker_tls: BrokerCertificates | None = Field(
        None, description="Present when the broker is reached over TLS (rediss://)")

    def write(self, path: Path) -> dict[str, str]:
        """Writes the runner's settings file (`KEY=value` lines, read by
        `latlab_workers.settings`) and the broker's certificates beside it, readable by their
        owner only (they hold the host's keys); returns the settings written."""
        path.parent.mkdir(parents=True, exist_ok=True)
        settings = {"LATLAB_HOST_NAME": self.name, "LATLAB_HOST_TAGS": ",".join(self.tags),
                    "LATLAB_HOST_KEY": self.key, "LATLAB_REDIS_URL": self.broker_url}
        if self.broker_tls is not None:
            for setting, suffix, pem in (("CA", "ca.pem", self.broker_tls.ca),
                                         ("CERT", "cert.pem", self.broker_tls.certificate),
                                         ("KEY", "key.pem", self.broker_tls.key)):
                written = path.with_name(f"{path.stem}.broker-{suffix}")
                _write_private(written, pem)
                settings[f"LATLAB_BROKER_{setting}"] = str(written.resolve())
        _write_private(path, "".join(f"{key}={value}\n" for key, value in settings.items()))
        return settings


def _write_private(path: Path, text: str) -> None:
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w") as out:
        os.fchmod(out.fileno(), 0o600)
        out.write(text)
