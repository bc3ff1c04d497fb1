from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from latlab.models.base import Base


class AuditEvent(Base):
    """One change of the lab's configuration: who made it, when, to what, and its values
    before and after (secrets redacted). Written in the transaction of the change
    (`latlab.audit.recorder`); kept `audit_retention_days`."""

    __tablename__ = "audit_event"
    __table_args__ = (
        Index("ix_audit_event_project_id_at", "project_id", "at"),
        Index("ix_audit_event_entity", "entity_type", "entity_id"),
        Index("ix_audit_event_at", "at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[datetime]
    # The project the changed thing belongs to; None for users (the lab's, not a project's).
    project_id: Mapped[int | None] = mapped_column(
        ForeignKey("project.id", ondelete="CASCADE"))
    actor_user_id: Mapped[int | None] = mapped_column(
        ForeignKey("user.id", ondelete="SET NULL"))
    actor_token_id: Mapped[int | None] = mapped_column(
        ForeignKey("api_token.id", ondelete="SET NULL"))
    # Who, readable after the user or token is gone: an email, "token <name> (<prefix>)", or
    # "system" (beat, the CLI).
    actor: Mapped[str] = mapped_column(String(400))
    entity_type: Mapped[str] = mapped_column(String(32))
    entity_id: Mapped[int]
    action: Mapped[str] = mapped_column(String(16))
    before: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    after: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
