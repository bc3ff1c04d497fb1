import enum
from datetime import datetime
from typing import Any

from sqlalchemy import Enum, ForeignKey, String, Text
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Mapped, mapped_column

from latlab.models.base import Base


class JobStatus(enum.StrEnum):
    queued = "queued"
    dispatched = "dispatched"
    running = "running"
    succeeded = "succeeded"
    failed = "failed"
    cancelled = "cancelled"
    timed_out = "timed_out"


class Job(Base):
    """A request to execute a suite scenario on a host whose tags match."""

    __tablename__ = "job"

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("project.id", ondelete="CASCADE"))
    suite: Mapped[str] = mapped_column(String(64))
    scenario: Mapped[str] = mapped_column(String(64))
    params: Mapped[dict[str, Any]]
    host_tags: Mapped[list[str]] = mapped_column(ARRAY(String(64)), default=list)
    repetitions: Mapped[int] = mapped_column(default=1)
    status: Mapped[JobStatus] = mapped_column(
        Enum(JobStatus, name="job_status", native_enum=False, length=16), index=True
    )
    phase: Mapped[str | None] = mapped_column(String(32))
    progress: Mapped[float] = mapped_column(default=0.0)
    host_id: Mapped[int | None] = mapped_column(ForeignKey("host.id", ondelete="SET NULL"))
    run_id: Mapped[int | None] = mapped_column(ForeignKey("run.id", ondelete="SET NULL",
                                                          use_alter=True))
    attempts: Mapped[int] = mapped_column(default=0)
    error: Mapped[str | None] = mapped_column(Text)
    timeout_s: Mapped[int] = mapped_column(default=900)
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    created_at: Mapped[datetime]
    dispatched_at: Mapped[datetime | None]
    started_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]
