"""The result contract `latlab.result/v1` (what CI and runners submit) and the run reads."""

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import (
    AwareDatetime,
    Field,
    StringConstraints,
    field_validator,
    model_validator,
)

from latlab.core.schemas import ReadSchema, Schema
from latlab.runs.histogram import Summary
from latlab.runs.metrics import MetricInfo

SCHEMA_VERSION = "latlab.result/v1"

Slug = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9._-]{0,63}$")]
Key = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_.-]{0,63}$")]
Text200 = Annotated[str, StringConstraints(min_length=1, max_length=200)]
LatencyNs = Annotated[int, Field(strict=True, ge=0)]
Finite = Annotated[float, Field(allow_inf_nan=False)]
NonNegative = Annotated[float, Field(allow_inf_nan=False, ge=0)]
Scalar = Annotated[str, StringConstraints(max_length=500)] | bool | int | Finite | None

MAX_SAMPLES = 20_000_000


class Latency(Schema):
    """A latency distribution in integer nanoseconds: an HdrHistogram or the raw samples."""

    hdr: Annotated[str, StringConstraints(min_length=1, max_length=16_000_000)] | None = Field(
        None, description="Standard compressed HdrHistogram V2, base64."
    )
    samples_ns: Annotated[list[LatencyNs], Field(min_length=1, max_length=MAX_SAMPLES)] | None = (
        None
    )

    @model_validator(mode="after")
    def exactly_one(self) -> "Latency":
        if (self.hdr is None) == (self.samples_ns is None):
            raise ValueError("give exactly one of 'hdr' or 'samples_ns'")
        return self


class Interval(Schema):
    """Latency over time: one window of a trial."""

    t_s: NonNegative
    count: Annotated[int, Field(strict=True, ge=0)]
    p50: NonNegative | None = None
    p90: NonNegative | None = None
    p99: NonNegative | None = None
    p999: NonNegative | None = None
    max: NonNegative | None = None


class TrialIn(Schema):
    latency: Latency
    latency_uncorrected: Latency | None = Field(
        None, description="Open-loop runs: the view not corrected for coordinated omission."
    )
    metrics: Annotated[dict[Key, Finite], Field(max_length=200)] = {}
    intervals: Annotated[list[Interval], Field(max_length=100_000)] | None = None
    tuning: Annotated[
        dict[Key, Annotated[str, StringConstraints(max_length=500)]], Field(max_length=50)
    ] | None = Field(None, description='What the load program applied or the host refused, '
                     'e.g. {"mlock": "refused: Operation not permitted", "pin_cpus": "0,1"}.')


class SeriesIn(Schema):
    labels: Annotated[dict[Key, Annotated[str, StringConstraints(max_length=200)]],
                      Field(max_length=20)] = {}
    trials: Annotated[list[TrialIn], Field(min_length=1, max_length=1000)]


class SourceIn(Schema):
    kind: Literal["ci", "job", "manual"] = "ci"
    commit: Annotated[str, StringConstraints(pattern=r"^[0-9a-fA-F]{4,64}$")] | None = None
    branch: Annotated[str, StringConstraints(min_length=1, max_length=200)] | None = None
    build_url: Annotated[str, StringConstraints(pattern=r"^https?://", max_length=2000)] | None = (
        None
    )
    pull_request: Annotated[int, Field(strict=True, gt=0)] | None = None


class HostIn(Schema):
    name: Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$")]
    tags: Annotated[list[Slug], Field(max_length=50)] = []
    fingerprint: Annotated[dict[Key, Scalar | list[Scalar]], Field(max_length=100)] = {}


class RunCreate(Schema):
    """A `latlab.result/v1` document."""

    schema_version: Literal["latlab.result/v1"] = Field(alias="schema")
    suite: Slug
    scenario: Slug
    params: Annotated[dict[Key, Scalar], Field(max_length=100)] = {}
    started_at: AwareDatetime
    finished_at: AwareDatetime | None = None
    source: SourceIn = SourceIn()
    host: HostIn | None = None
    series: Annotated[list[SeriesIn], Field(min_length=1, max_length=500)]

    @field_validator("series")
    @classmethod
    def labels_unique(cls, series: list[SeriesIn]) -> list[SeriesIn]:
        seen: set[tuple[tuple[str, str], ...]] = set()
        for item in series:
            key = tuple(sorted(item.labels.items()))
            if key in seen:
                raise ValueError(f"two series have the same labels {dict(key)}")
            seen.add(key)
        return series

    @model_validator(mode="after")
    def finished_after_started(self) -> "RunCreate":
        if self.finished_at is not None and self.finished_at < self.started_at:
            raise ValueError("finished_at is before started_at")
        return self


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
