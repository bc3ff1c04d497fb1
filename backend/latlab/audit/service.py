"""Reading the audit log, and forgetting it after `audit_retention_days`."""

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Select, delete, func, or_, select
from sqlalchemy.orm import Session

from latlab.models import AuditEvent


@dataclass(frozen=True)
class AuditFilters:
    """A project's events and the lab's own (users'), narrowed by these."""

    project_id: int
    entity_type: str | None = None
    entity_id: int | None = None
    action: str | None = None
    actor_user_id: int | None = None
    since: datetime | None = None
    until: datetime | None = None


def list_events(session: Session, filters: AuditFilters, limit: int,
                offset: int) -> tuple[list[AuditEvent], int]:
    """Newest first."""
    query = _filtered(filters)
    total = session.scalar(select(func.count()).select_from(query.subquery())) or 0
    events = session.scalars(query.order_by(AuditEvent.at.desc(), AuditEvent.id.desc())
                             .limit(limit).offset(offset)).all()
    return list(events), total


def prune(session: Session, now: datetime, days: int) -> int:
    """Deletes the events older than `days`; answers how many."""
    result = session.execute(delete(AuditEvent).where(AuditEvent.at < now - timedelta(days=days)))
    return int(result.rowcount)  # type: ignore[attr-defined]


def _filtered(filters: AuditFilters) -> Select[AuditEvent]:
    query = select(AuditEvent).where(or_(AuditEvent.project_id == filters.project_id,
                                         AuditEvent.project_id.is_(None)))
    for column, wanted in ((AuditEvent.entity_type, filters.entity_type),
                           (AuditEvent.entity_id, filters.entity_id),
                           (AuditEvent.action, filters.action),
                           (AuditEvent.actor_user_id, filters.actor_user_id)):
        if wanted is not None:
            query = query.where(column == wanted)
    if filters.since is not None:
        query = query.where(AuditEvent.at >= filters.since)
    if filters.until is not None:
        query = query.where(AuditEvent.at < filters.until)
    return query
