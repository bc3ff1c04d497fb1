import enum
from datetime import datetime
from typing import Any

from sqlalchemy import Enum, ForeignKey, String, Text
from sqlalchemy.dialects.postgresql import ARRAY, JSONB
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


# A job on a host (sent to its runner, or running there), and a job that has ended.
ACTIVE_JOB = (JobStatus.dispatched, JobStatus.running)
ENDED_JOB = (JobStatus.succeeded, JobStatus.failed, JobStatus.cancelled, JobStatus.timed_out)

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
    # Set for `all_matching` jobs: this one must run on that host.
    pinned_host_id: Mapped[int | None] = mapped_column(
        ForeignKey("host.id", ondelete="CASCADE")
    )
    run_id: Mapped[int | None] = mapped_column(ForeignKey("run.id", ondelete="SET NULL",
                                                          use_alter=True))
    attempts: Mapped[int] = mapped_column(default=0)
    # Jobs fanned out by `all_matching` point at the request that created them.
    parent_id: Mapped[int | None] = mapped_column(ForeignKey("job.id", ondelete="CASCADE"))
    schedule_id: Mapped[int | None] = mapped_column(
        ForeignKey("schedule.id", ondelete="SET NULL")
    )
    error: Mapped[str | None] = mapped_column(Text)
    # The running programs (name, pid), as the runner reported them.
    programs: Mapped[list[dict[str, Any]]] = mapped_column(JSONB, default=list)
    last_event_at: Mapped[datetime | None]
    timeout_s: Mapped[int] = mapped_column(default=900)
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    # A confirmation job re-measures this run's suspected regression.
    confirms_run_id: Mapped[int | None] = mapped_column(ForeignKey("run.id", ondelete="SET NULL"))
    # ...interleaved with the baseline's suite version when the host still has its build.
    baseline_version: Mapped[str | None] = mapped_column(String(64))
    # One more trial per series with each program's CPU profiled (`runs.profiles`).
    profile: Mapped[bool] = mapped_column(default=False)
    # A job that builds a repository of the project: its commit, resolved from the ref given
    # when the job was launched ({"repo", "ref", "commit"}), and a try job's base
    # (`"base": {"ref", "commit"}`), measured beside it.
    repository_id: Mapped[int | None] = mapped_column(
        ForeignKey("repository.id", ondelete="SET NULL"))
    source: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    # A try job measured in stages until decided (`jobs.stages`): its looks (trials a side
    # at each), its cap of lab time, the stages measured so far.
    stages: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    # A step of a bisection (`bisections.service`).
    bisection_id: Mapped[int | None] = mapped_column(
        ForeignKey("bisection.id", ondelete="SET NULL"))
    created_at: Mapped[datetime]
    dispatched_at: Mapped[datetime | None]
    started_at: Mapped[datetime | None]
    finished_at: Mapped[datetime | None]


class Schedule(Base):
    """A job spec launched by beat on a cron expression."""

    __tablename__ = "schedule"

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("project.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(200))
    cron: Mapped[str] = mapped_column(String(100))
    spec: Mapped[dict[str, Any]]
    enabled: Mapped[bool] = mapped_column(default=True)
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    created_at: Mapped[datetime]
    last_run_at: Mapped[datetime | None]
    next_run_at: Mapped[datetime]
