from datetime import datetime

from sqlalchemy import ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from latlab.models.base import Base


class Annotation(Base):
    """Something that happened at a moment, drawn on every trend it concerns
    (`annotations`): a person's or a CI step's note (a deploy, a config change), or the lab's
    own when it notices a host's tuning, a suite's version or the project's gate settings
    change. A moment, or a range (`until`: a load test, a noisy neighbour's week). It concerns
    one suite or every one (`suite` None), one host or every one (`host_name` None)."""

    __tablename__ = "annotation"
    __table_args__ = (Index("ix_annotation_project_at", "project_id", "at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("project.id", ondelete="CASCADE"))
    at: Mapped[datetime]
    until: Mapped[datetime | None]
    kind: Mapped[str] = mapped_column(String(16))  # note, host, suite, gate
    text: Mapped[str] = mapped_column(String(500))
    link: Mapped[str | None] = mapped_column(String(2000))
    suite: Mapped[str | None] = mapped_column(String(64))
    host_name: Mapped[str | None] = mapped_column(String(200))
    # The run at which the lab noticed the change (kind host or suite).
    run_id: Mapped[int | None] = mapped_column(ForeignKey("run.id", ondelete="SET NULL"))
    created_by: Mapped[str] = mapped_column(String(200))  # a user's email, a token's name, lab
    created_at: Mapped[datetime]
