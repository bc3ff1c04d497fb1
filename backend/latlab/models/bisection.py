from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, String, Text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from latlab.models.base import Base


class Bisection(Base):
    """The search for the commit that made a repository's series slower between a good and a
    bad commit (`bisections.service`): each step a try job of two of its commits."""

    __tablename__ = "bisection"

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("project.id", ondelete="CASCADE"),
                                            index=True)
    repository_id: Mapped[int | None] = mapped_column(
        ForeignKey("repository.id", ondelete="SET NULL"))
    repo: Mapped[str] = mapped_column(String(64))
    suite: Mapped[str] = mapped_column(String(64))
    scenario: Mapped[str] = mapped_column(String(64))
    params: Mapped[dict[str, Any]]
    # The series judged (labels a series must carry; {}: any) and the metric.
    series: Mapped[dict[str, Any]] = mapped_column(JSONB, default=dict)
    metric: Mapped[str] = mapped_column(String(64))
    host_tags: Mapped[list[str]] = mapped_column(JSONB, default=list)
    repetitions: Mapped[int]  # trials a side in each step's first stage
    # The first-parent history from good to bad, oldest first, both ends included:
    # [{"sha", "subject", "author"}].
    commits: Mapped[list[dict[str, Any]]] = mapped_column(JSONB)
    # Indexes into `commits`: the newest known not to have regressed, the oldest known to.
    good: Mapped[int] = mapped_column(default=0)
    bad: Mapped[int]
    unbuildable: Mapped[list[str]] = mapped_column(JSONB, default=list)
    # After a culprit under the whole change: the parts of the range (index pairs) still to
    # search; None before.
    pending: Mapped[list[list[int]] | None] = mapped_column(JSONB)
    # Each step as it was measured: {"kind" (ends, search, culprit), "base_index",
    # "head_index", "base", "head", "job_id", "run_id", "outcome", "change", "interval",
    # "detectable", "minutes", "said"}.
    steps: Mapped[list[dict[str, Any]]] = mapped_column(JSONB, default=list)
    status: Mapped[str] = mapped_column(String(16), index=True)
    # How it ended: the culprit ({"sha", "subject", "author", "change", "interval", "share"})
    # or the narrowest range, and what it says.
    result: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    message: Mapped[str | None] = mapped_column(Text)
    max_minutes: Mapped[int | None]
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    created_at: Mapped[datetime]
    finished_at: Mapped[datetime | None]
