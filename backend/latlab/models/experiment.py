from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, String, Text, UniqueConstraint
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from latlab.models.base import Base


class Experiment(Base):
    """A named, versioned study of a project (`experiments.service`): the jobs it runs, its
    named series and the expectations the lab judges on them. Saving a changed document
    adds a version; runs keep the version they ran."""

    __tablename__ = "experiment"
    __table_args__ = (UniqueConstraint("project_id", "name", "version"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("project.id", ondelete="CASCADE"),
                                            index=True)
    name: Mapped[str] = mapped_column(String(64))
    version: Mapped[int]
    document: Mapped[dict[str, Any]]  # an `ExperimentDocument`
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    created_at: Mapped[datetime]


class ExperimentRun(Base):
    """One run of an experiment's version: its jobs, launched together, and once they have
    all ended, each expectation as the lab judged it."""

    __tablename__ = "experiment_run"

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("project.id", ondelete="CASCADE"),
                                            index=True)
    experiment_id: Mapped[int] = mapped_column(
        ForeignKey("experiment.id", ondelete="CASCADE"), index=True)
    host_tags: Mapped[list[str]] = mapped_column(JSONB, default=list)
    jobs: Mapped[dict[str, Any]]  # the experiment's job name -> the job's id
    status: Mapped[str] = mapped_column(String(16), index=True)  # running, done, failed
    # Each expectation (at each point of its axis) judged: `ExpectationJudged`.
    judgements: Mapped[list[dict[str, Any]] | None] = mapped_column(JSONB)
    # The lab's figure of each reference figure's series and metric beside it:
    # `FigureRead`.
    figures: Mapped[list[dict[str, Any]] | None] = mapped_column(JSONB)
    message: Mapped[str | None] = mapped_column(Text)
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    created_at: Mapped[datetime]
    finished_at: Mapped[datetime | None]
