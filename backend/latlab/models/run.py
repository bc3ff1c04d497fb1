from datetime import datetime
from typing import Any

from sqlalchemy import (
    CheckConstraint,
    Double,
    ForeignKey,
    Index,
    LargeBinary,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB
from sqlalchemy.orm import Mapped, mapped_column, relationship

from latlab.models.base import Base
from latlab.models.host import Host
from latlab.models.project import Project


class Run(Base):
    """One stored result of a scenario on one host, from a job or a CI submission."""

    __tablename__ = "run"
    __table_args__ = (
        UniqueConstraint("project_id", "idempotency_key"),
        Index("ix_run_project_suite_scenario_started", "project_id", "suite", "scenario",
              "started_at"),
        Index("ix_run_project_suite_started", "project_id", "suite", "started_at"),
        Index("ix_run_project_started", "project_id", "started_at"),
        # A host's previous run, whose fingerprint a new run's is compared with (annotations).
        Index("ix_run_project_host_started", "project_id", "host_name", "started_at"),
        Index("ix_run_started", "started_at"),
        Index("ix_run_not_rolled_up", "started_at", postgresql_where="rolled_up_at IS NULL"),
        Index("ix_run_created_at", "created_at"),
        Index("ix_run_project_headline_p99", "project_id", "headline_p99"),
        Index("ix_run_project_headline_p99_desc", "project_id",
              text("headline_p99 DESC NULLS LAST")),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("project.id", ondelete="CASCADE"))
    suite: Mapped[str] = mapped_column(String(64))
    scenario: Mapped[str] = mapped_column(String(64))
    params: Mapped[dict[str, Any]]
    started_at: Mapped[datetime]
    finished_at: Mapped[datetime | None]
    created_at: Mapped[datetime]
    source_kind: Mapped[str] = mapped_column(String(16))
    commit: Mapped[str | None] = mapped_column(String(64), index=True)
    # The repository of the project whose code the run measured (a job that built it).
    repo: Mapped[str | None] = mapped_column(String(64))
    branch: Mapped[str | None] = mapped_column(String(200), index=True)
    build_url: Mapped[str | None] = mapped_column(Text)
    pull_request: Mapped[int | None]
    host_id: Mapped[int | None] = mapped_column(ForeignKey("host.id", ondelete="SET NULL"),
                                                index=True)
    # The host as it was when the run was measured; the host row changes over time.
    host_name: Mapped[str | None] = mapped_column(String(200))
    host_tags: Mapped[list[str]] = mapped_column(ARRAY(String(64)), default=list)
    host_fingerprint: Mapped[dict[str, Any]] = mapped_column(default=dict)
    job_id: Mapped[int | None] = mapped_column(ForeignKey("job.id", ondelete="SET NULL"))
    idempotency_key: Mapped[str | None] = mapped_column(String(200))
    # sha256 of the submitted body: the same key with another body is a conflict.
    request_hash: Mapped[str | None] = mapped_column(String(64))
    # The CI gate: pass / fail / no-baseline, with the reasons, against `baseline_run_id`.
    verdict: Mapped[str | None] = mapped_column(String(16))
    verdict_reasons: Mapped[list[dict[str, Any]]] = mapped_column(JSONB, default=list)
    baseline_run_id: Mapped[int | None] = mapped_column(
        ForeignKey("run.id", ondelete="SET NULL"))
    # Against windows of history: per judged metric the window, the value, its bound, p and
    # the smallest change the window lets the gate see (empty: judged against one run).
    gate_evidence: Mapped[list[dict[str, Any]]] = mapped_column(JSONB, default=list)
    # The P99 of the series a list shows for the run (`runs.overview.headlines`), kept when
    # the run is judged, so that the runs list can sort by it.
    headline_p99: Mapped[float | None]
    # Where a CI branch started: its history until it has its own (`source.start_point`).
    start_branch: Mapped[str | None] = mapped_column(String(200))
    start_commit: Mapped[str | None] = mapped_column(String(64))
    # The axis the run sweeps, {axis, values}: its series form load-latency curves.
    sweep: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    # Units and directions of metrics the submission declared (a CI harness's own metrics).
    metric_info: Mapped[dict[str, Any]] = mapped_column(JSONB, default=dict)
    # The metrics the submission asks the gate to judge (used when its suite is unknown).
    gate: Mapped[list[str] | None] = mapped_column(JSONB)
    # What a harness adapter read beside the measurements: {context, notes}
    # (`latlab_contract.result.Harness`).
    harness: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    # The submission expects failed operations: they are shown, never fail the gate.
    errors_expected: Mapped[bool] = mapped_column(default=False, server_default=text("false"))
    # A run measured to confirm another's suspected regression (never a baseline, never in a
    # history), and on the suspected run: pending / confirmed / unconfirmed.
    confirms_run_id: Mapped[int | None] = mapped_column(
        ForeignKey("run.id", ondelete="SET NULL"), index=True)
    confirmation: Mapped[str | None] = mapped_column(String(16))
    # Counted once at ingest, so the runs list needs no count per row.
    series_count: Mapped[int] = mapped_column(default=0)
    trial_count: Mapped[int] = mapped_column(default=0)
    # Retention: when the trials' intervals and histograms were retired (summaries stay).
    intervals_retired_at: Mapped[datetime | None]
    histograms_retired_at: Mapped[datetime | None]
    # When its day's rollups last included it (a run arriving later re-rolls its day).
    rolled_up_at: Mapped[datetime | None]

    project: Mapped[Project] = relationship(lazy="raise")
    host: Mapped[Host | None] = relationship(lazy="raise", foreign_keys=[host_id])
    series: Mapped[list["Series"]] = relationship(
        back_populates="run", lazy="raise", order_by="Series.id", passive_deletes=True
    )


class Series(Base):
    """One labelled stream of a run, e.g. `{client: rust}`.

    A series also carries its history's keys and its run's start, host and branch, so a
    history (trends, change points, rollups) is an index range, whatever the table's size.
    """

    __tablename__ = "series"
    __table_args__ = (
        UniqueConstraint("run_id", "label_key"),
        Index("ix_series_history_started", "history", "params_key", "started_at"),
        Index("ix_series_history_host_started", "history", "params_key", "host_name",
              "started_at"),
        Index("ix_series_history_any_params", "history", "started_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("run.id", ondelete="CASCADE"), index=True)
    labels: Mapped[dict[str, Any]]
    # Canonical JSON of the labels: series of two runs match when their keys are equal.
    label_key: Mapped[str] = mapped_column(Text)
    # Computed at ingest over all trials: the merged histogram's summary, median metrics.
    summary: Mapped[dict[str, Any]]
    # Which summary statistics a harness printed ("reported") and which were computed from a
    # histogram rebuilt from its spectrum ("interpolated"); None when all were computed.
    summary_origin: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    summary_uncorrected: Mapped[dict[str, Any] | None]
    metrics: Mapped[dict[str, Any]] = mapped_column(default=dict)
    # Its trials' failures added up: {failed, total (None when a trial's is unknown), detail,
    # trials}; None when none failed.
    failures: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    # hash(project, suite, scenario, labels): the series' history; None for a confirmation
    # run's series, which belong to no history. params_key: hash of the run's params.
    history: Mapped[str | None] = mapped_column(String(32))
    params_key: Mapped[str] = mapped_column(String(32))
    started_at: Mapped[datetime]
    branch: Mapped[str | None] = mapped_column(String(200))
    host_name: Mapped[str | None] = mapped_column(String(200))

    run: Mapped[Run] = relationship(back_populates="series", lazy="raise")
    trials: Mapped[list["Trial"]] = relationship(
        back_populates="series", lazy="raise", order_by="Trial.index", passive_deletes=True
    )


class Trial(Base):
    """One repetition of a series: its histogram, its summary and its metrics.

    Latency columns are nanoseconds. Raw samples are never stored row by row: the histogram
    (compressed HdrHistogram V2 bytes) holds the distribution.
    """

    __tablename__ = "trial"
    # Partitioned by month of its run's start (migration 0007; beat creates partitions
    # ahead): the partition key is part of every unique key.
    __table_args__ = (
        UniqueConstraint("series_id", "index", "started_at"),
        CheckConstraint("count >= 0", name="count_non_negative"),
        {"postgresql_partition_by": "RANGE (started_at)"},
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    started_at: Mapped[datetime] = mapped_column(primary_key=True)
    series_id: Mapped[int] = mapped_column(ForeignKey("series.id", ondelete="CASCADE"))
    index: Mapped[int]
    histogram: Mapped[bytes | None] = mapped_column(LargeBinary)  # None once retired
    histogram_uncorrected: Mapped[bytes | None] = mapped_column(LargeBinary)
    count: Mapped[int]
    min: Mapped[float] = mapped_column(Double)
    max: Mapped[float] = mapped_column(Double)
    mean: Mapped[float] = mapped_column(Double)
    stddev: Mapped[float] = mapped_column(Double)
    p50: Mapped[float] = mapped_column(Double)
    p90: Mapped[float] = mapped_column(Double)
    p95: Mapped[float] = mapped_column(Double)
    p99: Mapped[float] = mapped_column(Double)
    p999: Mapped[float] = mapped_column(Double)
    p9999: Mapped[float] = mapped_column(Double)
    # True when the summary came from exact samples rather than histogram buckets.
    exact: Mapped[bool]
    # As the series' (above): the harness's own statistics and the interpolated ones.
    summary_origin: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    summary_uncorrected: Mapped[dict[str, Any] | None]
    metrics: Mapped[dict[str, Any]] = mapped_column(default=dict)
    # What the harness counted as failed (`latlab_contract.result.Failures`); None: nothing.
    failures: Mapped[dict[str, Any] | None] = mapped_column(JSONB)
    intervals: Mapped[list[dict[str, Any]] | None] = mapped_column(JSONB)
    # What the load program applied (CPU pinning, mlock) or the host refused.
    tuning: Mapped[dict[str, str] | None] = mapped_column(JSONB)
    # Why the trial is left out of every verdict (its host disturbed it); None: it counts.
    disturbed: Mapped[str | None] = mapped_column(Text)

    series: Mapped[Series] = relationship(back_populates="trials", lazy="raise")


class Profile(Base):
    """A CPU profile of one program of a series, recorded in a trial of its own that no
    statistic counts: its folded stacks, zlib-compressed (`runs.profiles`)."""

    __tablename__ = "profile"
    __table_args__ = (UniqueConstraint("series_id", "program"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    run_id: Mapped[int] = mapped_column(ForeignKey("run.id", ondelete="CASCADE"), index=True)
    series_id: Mapped[int] = mapped_column(ForeignKey("series.id", ondelete="CASCADE"))
    program: Mapped[str] = mapped_column(String(64))
    tool: Mapped[str] = mapped_column(String(64))
    frequency_hz: Mapped[float | None] = mapped_column(Double)
    samples: Mapped[int]
    stacks: Mapped[int]  # distinct stacks
    folded_bytes: Mapped[int]  # the folded text's size, uncompressed
    data: Mapped[bytes] = mapped_column(LargeBinary)

    series: Mapped[Series] = relationship(lazy="raise")
