"""The run reads; the result contract itself (`RunCreate`) is `latlab_contract.result`."""

from datetime import datetime
from typing import Any, Literal

from pydantic import Field

from latlab.core.schemas import ReadSchema, Schema
from latlab.runs.histogram import Summary
from latlab.runs.metrics import MetricInfo


class SourceRead(Schema):
    kind: str
    commit: str | None
    branch: str | None
    build_url: str | None
    pull_request: int | None


class VerdictReason(Schema):
    kind: Literal["regression", "sla"]
    series: dict[str, str]
    metric: str
    message: str
    baseline: float | None = None
    candidate: float | None = None
    p_value: float | None = None
    rule_id: int | None = None
    severity: str | None = None
    value: float | None = None


class RunCreated(Schema):
    id: int
    url: str = Field(description="The run's page in the dashboard.")
    replayed: bool = Field(description="True when the Idempotency-Key matched an earlier run.")
    verdict: Literal["pass", "fail", "no-baseline"] | None = Field(
        description="The CI gate: fail on an SLA breach or a regression against the baseline")
    reasons: list[VerdictReason]
    gated_metrics: list[str] = Field(
        description="The metrics the gate judges in every series (reliable ones only)")
    baseline_run_id: int | None
    compare_url: str | None


class RunSummary(ReadSchema):
    id: int
    project: str
    suite: str
    scenario: str
    host_name: str | None
    source: SourceRead
    started_at: datetime
    finished_at: datetime | None
    created_at: datetime
    series_count: int
    trial_count: int
    verdict: Literal["pass", "fail", "no-baseline"] | None
    baseline_run_id: int | None


class RunPage(Schema):
    items: list[RunSummary]
    total: int
    limit: int
    offset: int


class TrialRead(Schema):
    index: int
    exact: bool = Field(description="Summary from raw samples (exact) or histogram buckets.")
    summary: Summary
    summary_uncorrected: Summary | None
    metrics: dict[str, float]
    intervals: list[dict[str, Any]] | None
    tuning: dict[str, str] | None


class SeriesRead(Schema):
    id: int
    labels: dict[str, str]
    summary: Summary
    summary_uncorrected: Summary | None
    metrics: dict[str, float]
    trials: list[TrialRead]


class RunRead(RunSummary):
    params: dict[str, Any]
    host_tags: list[str]
    host_fingerprint: dict[str, Any]
    job_id: int | None
    verdict_reasons: list[VerdictReason]
    series: list[SeriesRead]
    metric_info: dict[str, MetricInfo] = Field(
        description="Unit and direction of every metric and summary key in this run."
    )


class SpectrumPoint(Schema):
    percentile: float
    value: float


class Spectrum(Schema):
    series_id: int
    labels: dict[str, str]
    unit: Literal["ns"] = "ns"
    corrected: list[SpectrumPoint]
    uncorrected: list[SpectrumPoint] | None
