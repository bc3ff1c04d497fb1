"""How a machine becomes one of the lab's hosts, and stops being one.

An admin invites a host by name (with its tags and the projects it will serve) and receives a
one-time code; `latlab-runner join <lab url> <code>` on the new machine trades the code for
the host's key (`POST /hosts/join`), with which its runner signs every message it sends
(`latlab_contract.signing`, checked by `latlab.hosts.trust`). A code is good once, for
`INVITATION_TTL`; only its hash is kept. Enrolling a name again gives it a new key and broker
password: the old ones are believed no more. Revoking a host forgets its key, deletes its
broker user and takes it offline at once.
"""

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path

from sqlalchemy import null, select
from sqlalchemy.orm import Session

from latlab.core import tls
from latlab.core.clock import get_clock
from latlab.core.errors import Conflict, Gone, NotFound
from latlab.core.kv import redis_client
from latlab.core.settings import get_settings
from latlab.hosts import broker_users
from latlab.hosts.service import current_job
from latlab.models import Host, HostInvitation, Job
from latlab_contract.signing import BrokerCertificates, HostGrant, new_key

INVITATION_TTL = timedelta(hours=24)
# Unambiguous letters and digits (no 0/O, 1/I/L): read aloud or retyped without mistakes.
CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"


@dataclass(frozen=True)
class Enrollment:
    host: Host
    grant: HostGrant  # its key, and the broker as its own user (over TLS beyond loopback)


def invite(session: Session, name: str, tags: list[str], serves: list[int] | None,
           created_by_id: int | None, ttl: timedelta = INVITATION_TTL
           ) -> tuple[HostInvitation, str]:
    """A new invitation and its code (shown once: only its hash is kept)."""
    code = "-".join("".join(secrets.choice(CODE_ALPHABET) for _ in range(5))
                    for _ in range(4))
    now = get_clock().now()
    invitation = HostInvitation(
        name=name, tags=sorted(set(tags)), serves=serves, code_hash=_hash(code),
        created_by_id=created_by_id, created_at=now, expires_at=now + ttl)
    session.add(invitation)
    session.flush()
    return invitation, code


def join(session: Session, code: str) -> Enrollment:
    """Trades an invitation's code for its host's key, once."""
    invitation = session.scalar(
        select(HostInvitation).where(HostInvitation.code_hash == _hash(code))
        .with_for_update())
    if invitation is None:
        raise NotFound("no invitation has this code: ask the lab's admin for one")
    now = get_clock().now()
    if invitation.used_at is not None:
        raise Conflict(f"this invitation was used at {_at(invitation.used_at)}: a code "
                       "enrolls one host once; ask the lab's admin for a new one")
    if invitation.expires_at <= now:
        raise Gone(f"this invitation expired at {_at(invitation.expires_at)}: ask the lab's "
                   "admin for a new one")
    invitation.used_at = now
    return enroll(session, invitation.name, invitation.tags, invitation.serves)


def enroll(session: Session, name: str, tags: list[str],
           serves: list[int] | None) -> Enrollment:
    """The host `name` with a new key (a host of that name already known, a runner's or a CI
    submission's, is the same host from now on); its previous key is believed no more."""
    now = get_clock().now()
    host = session.scalar(select(Host).where(Host.name == name).with_for_update())
    if host is None:
        host = Host(name=name, created_at=now, fingerprint={}, capabilities={})
        session.add(host)
    host.tags, host.serves = sorted(set(tags)), serves
    key = host.secret = new_key()
    host.enrolled_at = now
    session.flush()
    settings = get_settings()
    broker_url = settings.runner_redis_url or settings.redis_url
    return Enrollment(host, HostGrant(
        name=name, tags=host.tags, key=key,
        broker_url=broker_users.grant(redis_client(), broker_url, name),
        broker_tls=_certificates(name) if broker_url.startswith("rediss://") else None))


def reenroll(session: Session, name: str, tags: list[str]) -> Enrollment:
    """The host `name` enrolled (again) with a new key, the projects it serves kept (a new
    host serves every project): how `make up` enrolls its own runner, with no invitation."""
    host = session.scalar(select(Host).where(Host.name == name))
    return enroll(session, name, tags, host.serves if host is not None else None)


def revoke(session: Session, host: Host) -> Job | None:
    """Forgets the host's key and deletes its broker user (its connections closed): its
    messages are refused from now on, and it is offline at once (no job is dispatched to it).
    Returns the job it was running, which the caller retries or fails."""
    broker_users.withdraw(redis_client(), host.name)
    host.secret = None
    host.heartbeat_at = None
    host.running = null()
    session.flush()
    return current_job(session, host)


def _certificates(name: str) -> BrokerCertificates:
    """The host's certificate for TLS to the broker, issued by the lab's CA."""
    settings = get_settings()
    issued = tls.issue(Path(settings.broker_ca), Path(settings.broker_ca_key), f"host-{name}")
    return BrokerCertificates(ca=Path(settings.broker_ca).read_text(),
                              certificate=issued.certificate, key=issued.key)


def _hash(code: str) -> str:
    return hashlib.sha256(code.strip().upper().encode()).hexdigest()


def _at(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC")
