"""The audit log's writer: every flush that creates, changes or deletes a user, a project, a
project membership, a token, an SLA rule, a channel, a pinned baseline, a schedule, a
repository, an annotation, a share link or a host (the projects it serves: heartbeats write
hosts outside the session) writes an `audit_event` row in the same transaction, so a change
and its record commit or roll back together, whichever service, router or command made it. A
membership (`project_member`, keyed by project and user) is recorded under its project with the
member's user id as its id.

Who: the session's actor, set once a request's caller is known (`act_as`); a session without
one (beat, the CLI) records "system". What: the table name, the row's id, the action, and for
an update only the columns that changed. Secrets are never written: their columns read
"[redacted]" (a changed secret still shows as changed). Bookkeeping columns the lab updates by
itself (a token's last use, a channel's delivery health, a schedule's next launch) are not
changes anyone made, and a flush touching only those records nothing.
"""

import enum
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from sqlalchemy import event, insert, inspect
from sqlalchemy.orm import Session, UOWTransaction

from latlab.core.clock import get_clock
from latlab.models import (
    Annotation,
    ApiToken,
    AuditEvent,
    Baseline,
    Channel,
    Host,
    Project,
    ProjectMember,
    Repository,
    Schedule,
    ShareLink,
    SlaRule,
    User,
)

AUDITED: tuple[type, ...] = (User, Project, ProjectMember, ApiToken, SlaRule, Channel, Baseline,
                             Schedule, Repository, Annotation, ShareLink, Host)
SECRETS = {"password_hash", "token_hash", "url", "secret"}
BOOKKEEPING = {"last_used_at", "consecutive_failures", "failing_since", "retry_at",
               "last_error", "last_run_at", "next_run_at"}
REDACTED = "[redacted]"
ACTOR_KEY = "latlab.audit.actor"


@dataclass(frozen=True)
class Actor:
    label: str
    user_id: int | None = None
    token_id: int | None = None


SYSTEM = Actor("system")


def act_as(session: Session, actor: Actor) -> None:
    """Changes flushed by `session` from now on are recorded as `actor`'s."""
    session.info[ACTOR_KEY] = actor


def install() -> None:
    """Records the audited changes of every session of this process (idempotent)."""
    if not event.contains(Session, "after_flush", _record):
        event.listen(Session, "after_flush", _record)


def _record(session: Session, flush: UOWTransaction) -> None:
    rows = [row for kind, objects in (("create", session.new), ("update", session.dirty),
                                      ("delete", session.deleted))
            for entity in objects if isinstance(entity, AUDITED)
            if (row := _row(entity, kind)) is not None]
    if not rows:
        return
    actor: Actor = session.info.get(ACTOR_KEY, SYSTEM)
    now = get_clock().now()
    session.connection().execute(insert(AuditEvent), [
        {**row, "at": now, "actor": actor.label, "actor_user_id": actor.user_id,
         "actor_token_id": actor.token_id} for row in rows])


def _row(entity: Any, action: str) -> dict[str, Any] | None:
    state = inspect(entity)
    before: dict[str, Any] | None = None
    after: dict[str, Any] | None = None
    if action == "create":
        after = {a.key: _plain(a.key, a.value) for a in state.attrs if _column(state, a.key)}
    elif action == "delete":
        before = {a.key: _plain(a.key, a.value) for a in state.attrs if _column(state, a.key)}
    else:
        before, after = {}, {}
        for attr in state.attrs:
            history = attr.history
            if not _column(state, attr.key) or attr.key in BOOKKEEPING or not history.deleted:
                continue
            old, new = history.deleted[0], attr.value
            if old != new:
                before[attr.key], after[attr.key] = _plain(attr.key, old), _plain(attr.key, new)
        if not after:
            return None
    project_id = entity.id if isinstance(entity, Project) else getattr(entity, "project_id", None)
    # A membership has no id of its own: it is its project's (project_id) and its user's.
    entity_id = entity.user_id if isinstance(entity, ProjectMember) else entity.id
    return {"project_id": project_id, "entity_type": entity.__tablename__,
            "entity_id": entity_id, "action": action, "before": before, "after": after}


def _column(state: Any, key: str) -> bool:
    return key in state.mapper.columns


def _plain(key: str, value: Any) -> Any:
    """A column's value as JSON, secrets redacted."""
    if key in SECRETS:
        return REDACTED
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, list | tuple):
        return [_plain("", v) for v in value]
    return value
