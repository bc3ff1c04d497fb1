from datetime import datetime
from typing import Any

from sqlalchemy import Index, String, text
from sqlalchemy.orm import Mapped, mapped_column

from latlab.models.base import Base


class OutboxMessage(Base):
    """A message to Celery (a task, or a revoke), written in the transaction that asks for it
    and sent after the commit, or later by the relay while the broker is away."""

    __tablename__ = "outbox_message"
    __table_args__ = (
        Index("ix_outbox_message_unsent", "id", postgresql_where=text("sent_at is null")),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    task: Mapped[str] = mapped_column(String(200))
    queue: Mapped[str | None] = mapped_column(String(200))
    task_id: Mapped[str | None] = mapped_column(String(200), index=True)
    kwargs: Mapped[dict[str, Any]]
    # Celery's send_task options (time limits, countdown) or the revoke's signal.
    options: Mapped[dict[str, Any]]
    created_at: Mapped[datetime]
    sent_at: Mapped[datetime | None]
