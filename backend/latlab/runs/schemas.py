"""The run reads; the result contract itself (`RunCreate`) is `latlab_contract.result`."""

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field

from latlab.core.schemas import ReadSchema, Schema
from latlab.runs.histogram import Summary
from latlab_contract.result import Sweep
from latlab_contract.vocabulary import (
    GENERIC,
    LATENCY_KEYS,
    MIN_TAIL_SAMPLES,
    TIME_UNITS,
    MetricInfo,
)


class StartPointRead(Schema):
    branch: str
    commit: str | None


class SourceRead(Schema):
    kind: str
    repo: str | None = Field(None, description="The project's repository whose code the run "
                             "measured (a job that built it); `commit` is then its commit")
    commit: str | None
    branch: str | None
    build_url: str | None
    pull_request: int | None
    start_point: StartPointRead | None = None


class GateWindow(Schema):
    """The runs of a series' history a metric was judged against."""

    branch: str
    runs: int = Field(description="Runs in the window (after far-off ones were left out)")
    outliers: int = Field(description="Runs left out as far off the others")
    spread: float = Field(description="The runs' spread: standard deviation of log values")
    first_run_id: int
    last_run_id: int
    first_commit: str | None
    last_commit: str | None


class VerdictReason(Schema):
    kind: Literal["regression", "suspected-regression", "too-few-trials", "sla",
                  "not-compared", "errors", "failures", "try", "stages"] = Field(
        description="regression: a tested regression (fails the gate): against the series' "
        "history (its window) at any number of trials, against one baseline run with enough "
        "trials; "
        "suspected-regression: tested, but from fewer trials than a confirmation takes (for a "
        "lab job, which the lab measures again: any gate metric whose trials do not rule out "
        "a 7.5 % change for the worse); "
        "too-few-trials: a change the trials cannot test; sla: a rule's breach (fails); "
        "not-compared: a series or gated metric the gate judged nothing of (new, vanished, "
        "not printed by the harness, too few samples): a run with nothing compared is "
        "no-baseline, never pass; errors: more failed operations than the project's "
        "max_error_rate (fails); failures: failed operations within it, or expected by the "
        "submission (a warning); try: a try job's head against its base on a gated metric, "
        "not a regression (a regression of head is `regression`); stages: where a try job's "
        "stages stopped (decided, or undecided at its last look or its cap of lab time) or "
        "that it measures more")
    series: dict[str, str]
    metric: str
    message: str
    baseline: float | None = None
    candidate: float | None = None
    p_value: float | None = None
    rule_id: int | None = None
    severity: str | None = None
    value: float | None = None
    window: GateWindow | None = Field(None, description="Judged against history: the window")
    bound: float | None = Field(None, description="Judged against history: the value past "
                                "which the candidate fails")
    smallest_change: dict[str, float] | None = Field(
        None, description="Judged against history: the smallest change the window lets the "
        "gate see, relative, by candidate trials (\"1\", \"3\", \"5\")")
    outcome: Literal["regressed", "improved", "unchanged", "untested", "suspected"] | None = (
        Field(None, description="A try job's: what head did against base"))
    interval: list[float] | None = Field(
        None, description="A try job's: the change's 95 % interval [low, high], relative")
    detectable: float | None = Field(
        None, description="A try job's: the smallest change it could have seen, relative")


class GateEvidence(Schema):
    """One gated metric of one series judged against its window."""

    series: dict[str, str]
    metric: str
    unit: str
    method: Literal["window"]
    outcome: Literal["regressed", "improved", "unchanged"]
    value: float = Field(description="The candidate's value: the median of its trials")
    trials: int
    centre: float = Field(description="The window's typical value (geometric mean)")
    bound: float = Field(description="Past this value the candidate fails")
    p_value: float = Field(description="One-sided: a value this much worse from the same "
                           "history")
    level: float = Field(description="The p-value it had to reach (Holm over the gated "
                         "metrics)")
    smallest_change: dict[str, float] = Field(
        description="The smallest change the window lets the gate see four times in five, "
        "relative, by candidate trials")
    message: str
    window: GateWindow


class RunCreated(Schema):
    id: int
    url: str = Field(description="The run's page in the dashboard.")
    replayed: bool = Field(description="True when the Idempotency-Key matched an earlier run.")
    verdict: Literal["pass", "fail", "inconclusive", "no-baseline"] | None = Field(
        description="The CI gate: fail on an SLA breach or a regression tested with enough "
        "trials; inconclusive when the trials cannot settle a change (the reasons say how "
        "many would); pass; no-baseline")
    reasons: list[VerdictReason]
    gated_metrics: list[str] = Field(
        description="The metrics the gate judges in every series (reliable ones only)")
    gate_evidence: list[GateEvidence] = Field(
        [], description="Judged against history: each gated metric's window, value, bound, p "
        "and the smallest change the window lets the gate see")
    baseline_run_id: int | None
    compare_url: str | None
    notes: list[str] = Field(
        [], description="What the harness adapter could not read as asked, and what to do "
        "about it (k6 printed no p(99): the --summary-trend-stats line that gives it)")


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
    verdict: Literal["pass", "fail", "inconclusive", "no-baseline"] | None
    baseline_run_id: int | None
    confirmation: Literal["pending", "confirmed", "unconfirmed"] | None = Field(
        description="A suspected regression measured again by a lab job: pending, confirmed "
        "(the run fails and alerts), unconfirmed (no one is alerted)")
    confirms_run_id: int | None = Field(
        description="This run measured again the suspected regression of that run")
    intervals_retired_at: datetime | None = Field(
        description="When retention removed the trials' intervals (summaries stay)")
    histograms_retired_at: datetime | None = Field(
        description="When retention removed the trials' histograms (summaries stay)")


class Headline(Schema):
    series: dict[str, Any] = Field(description="The labels of the series a list shows: the "
                                   "first the run's verdict failed on (a regression, a "
                                   "suspected one, an SLA breach), else the one whose P99 the "
                                   "gate found furthest above its window, else the first")
    p99: float | None = Field(description="Its P99 in ns (all trials merged)")
    throughput: float | None = Field(description="Its throughput metric, when reported")
    p99_interpolated: bool = Field(
        False, description="The harness did not print a P99: this one is interpolated in a "
        "histogram rebuilt from the percentiles it printed (shown ~)")
    window_delta_pct: float | None = Field(
        None, description="Its P99's change in % against the centre of its history's window, "
        "as the CI gate judged it (None: not judged against a window)")


class RunListItem(RunSummary):
    headline: Headline | None = Field(
        description="The P99 and throughput of the series a list shows for the run (None: no "
        "series)")


class RunPage(Schema):
    items: list[RunListItem]
    total: int = Field(description="Matching runs, counted up to 10,000")
    total_capped: bool = Field(description="True when more than `total` runs match")
    limit: int
    offset: int


_REPORTED = ("Summary statistics as the benchmark harness printed them (k6's p(95), wrk2's "
             "99.000%, pytest-benchmark's median), not computed by the lab")
_RESOLUTION = ("The step the harness printed latency in (ApacheBench: 1 ms): a value under it "
               "shows as 0; null: the lab's own resolution")
_INTERPOLATED = ("Summary statistics computed from a histogram the lab rebuilt from the "
                 "percentiles a harness printed: interpolated between them")


class FailuresRead(Schema):
    """Operations the harness counted as failed."""

    failed: int
    total: int | None = Field(description="Operations attempted (null: the harness did not "
                              "say)")
    detail: str = Field(description="What failed, in the harness's words")
    trials: int | None = Field(None, description="A series: how many of its trials failed some")


class HarnessRead(Schema):
    context: dict[str, Any] = Field(description="The machine and build the harness said it "
                                    "ran on")
    notes: list[str] = Field(description="What the adapter could not read as asked, and what "
                             "to do about it")


class _Measured(Schema):
    """What a trial and a series both carry: their latency's summary, how far to trust it,
    and their metrics."""

    summary: Summary
    unreliable: list[str] = Field(description="Summary percentiles with fewer than 10 samples "
                                  "beyond them: not numbers to trust")
    reported: list[str] = Field(description=_REPORTED)
    interpolated: list[str] = Field(description=_INTERPOLATED)
    resolution_ns: int | None = Field(description=_RESOLUTION)
    summary_uncorrected: Summary | None
    metrics: dict[str, float]


class TrialRead(_Measured):
    index: int
    exact: bool = Field(description="Summary from raw samples (exact) or histogram buckets.")
    failures: FailuresRead | None = None
    intervals: list[dict[str, Any]] | None
    tuning: dict[str, str] | None
    disturbed: str | None = Field(
        description="Why the trial is left out of every verdict (its host disturbed it)")


class SeriesRead(_Measured):
    id: int
    labels: dict[str, str]
    failures: FailuresRead | None = Field(
        None, description="Its trials' failures added up (null: none failed)")
    trials: list[TrialRead]


class RunRead(RunSummary):
    params: dict[str, Any]
    host_tags: list[str]
    host_fingerprint: dict[str, Any]
    job_id: int | None
    verdict_reasons: list[VerdictReason]
    gate_evidence: list[GateEvidence] = Field(
        description="Judged against history: each gated metric's window, value, bound, p and "
        "the smallest change the window lets the gate see (empty when judged against one "
        "run)")
    series: list[SeriesRead]
    sweep: Sweep | None = Field(description="The axis the run sweeps: its series form "
                                "load-latency curves over these values")
    metric_info: dict[str, MetricInfo] = Field(
        description="Unit and direction of every metric and summary key in this run."
    )
    harness: HarnessRead | None = Field(
        None, description="What a harness adapter read beside the measurements")
    errors_expected: bool = Field(
        False, description="The submission expects failed operations: never a gate failure")


class SpectrumPoint(Schema):
    percentile: float
    value: float


class Spectrum(Schema):
    series_id: int
    labels: dict[str, str]
    unit: Literal["ns"] = "ns"
    corrected: list[SpectrumPoint]
    uncorrected: list[SpectrumPoint] | None


class VocabularyRead(Schema):
    """How the dashboard reads numbers: nothing here is re-defined in the frontend."""

    # The real tables as the example, so the dashboard's unit tests use the api's own values.
    model_config = ConfigDict(json_schema_extra={"examples": [
        {"metrics": {name: info.model_dump() for name, info in GENERIC.items()},
         "time_units": dict(TIME_UNITS.items()), "latency_keys": list(LATENCY_KEYS),
         "min_tail_samples": MIN_TAIL_SAMPLES}]})

    metrics: dict[str, MetricInfo] = Field(description="The generic metrics; a run's own are "
                                           "in its metric_info")
    time_units: dict[str, float] = Field(description="Time units as multiples of a ns")
    latency_keys: list[str] = Field(description="A latency summary's keys, in the order they "
                                    "are shown")
    min_tail_samples: int = Field(description="Samples a tail percentile needs beyond it to "
                                  "be trusted")


RetentionDays = Annotated[int, Field(strict=True, ge=1, le=36_500)] | None


class RetentionRead(Schema):
    project: str
    intervals_retention_days: int | None = Field(
        description="Days a trial keeps its latency-over-time intervals; null: forever")
    histograms_retention_days: int | None = Field(
        description="Days a trial keeps its histogram; null: forever. Summaries and daily "
                    "rollups are kept forever")


class RetentionUpdate(Schema):
    intervals_retention_days: RetentionDays
    histograms_retention_days: RetentionDays


class ProfileRead(Schema):
    id: int
    series_id: int
    labels: dict[str, str] = Field(description="The labels of the series profiled")
    program: str
    tool: str = Field(description="What recorded it: perf, py-spy, async-profiler, ...")
    frequency_hz: float | None
    samples: int
    stacks: int = Field(description="Distinct stacks")
    folded_bytes: int = Field(description="The folded text's size")


class SparkPoint(Schema):
    run_id: int
    p99: float | None


class OverviewRow(Schema):
    run: RunListItem = Field(description="The suite and scenario's latest run")
    open_alerts: int = Field(description="Alerts of this suite and scenario not resolved")
    critical_alerts: int
    failing: bool = Field(description="The latest run failed its gate, or a critical alert is "
                          "open: such rows come first")
    spark: list[SparkPoint] = Field(description="The headline P99 of its latest runs, oldest "
                                    "first")


class OverviewPage(Schema):
    items: list[OverviewRow]
    total: int = Field(description="Suite and scenario pairs with runs")
    limit: int
    offset: int
    suites_without_runs: list[str] = Field(description="Catalogue suites with no run yet")


class ContextPoint(Schema):
    run_id: int
    p99: float | None = Field(description="P99 in ns")
    throughput: float | None


class SeriesContext(Schema):
    series_id: int
    history: list[ContextPoint] = Field(description="Its history's latest runs on the run's "
                                        "branch with its params, oldest first, ending at the run")
    baseline: ContextPoint | None = Field(description="The same series in the run's baseline")


class BisectionRef(Schema):
    id: int
    status: str = Field(description="running, found, not-reproduced, narrowed, failed or "
                                    "cancelled")
    message: str | None = Field(description="How it ended (the culprit and its change); "
                                            "null while it searches")


class AlertRef(Schema):
    id: int
    severity: str
    state: str
    metric: str
    message: str
    bisection: BisectionRef | None = Field(
        description="The bisection searching for the commit that caused the regression")


class RunContext(Schema):
    series: list[SeriesContext]
    alerts: list[AlertRef] = Field(description="The alerts this run opened")
