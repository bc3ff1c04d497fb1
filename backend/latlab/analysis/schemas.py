from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, StringConstraints

from latlab.core.schemas import Schema
from latlab.runs.schemas import GateEvidence
from latlab_contract.vocabulary import MetricInfo


class MetricDelta(Schema):
    metric: str
    label: str
    unit: str
    direction: Literal["lower", "higher", "none"]
    baseline: float
    candidate: float
    delta: float
    delta_pct: float | None
    verdict: Literal["improved", "regressed", "unchanged", "inconclusive"]
    confidence: Literal["high", "low"]
    p_value: float | None
    method: str
    evidence: str = Field(description="Why: the test, its p-value and the trial counts")
    baseline_trials: int
    candidate_trials: int
    reliable: bool = Field(description="False for a tail percentile with < 10 samples beyond it")


class SeriesDelta(Schema):
    labels: dict[str, Any] = Field(description="The labels the two series were matched on")
    baseline_series_id: int
    candidate_series_id: int
    baseline_labels: dict[str, Any]
    candidate_labels: dict[str, Any]
    metrics: list[MetricDelta]


class RunRef(Schema):
    id: int
    suite: str
    scenario: str
    branch: str | None
    commit: str | None
    host_name: str | None
    started_at: datetime


class CompareRead(Schema):
    baseline: RunRef
    candidate: RunRef
    baseline_labels: dict[str, str] = Field(description="The baseline's series selector")
    candidate_labels: dict[str, str] = Field(description="The candidate's series selector")
    series: list[SeriesDelta]
    unmatched_baseline: list[dict[str, Any]]
    unmatched_candidate: list[dict[str, Any]]
    warnings: list[str] = Field(description="Why the two runs may not be comparable")


class FrameDelta(Schema):
    frame: str
    baseline_self: float = Field(description="Share of the baseline's samples with this frame "
                                 "on the CPU (the stack's leaf), 0-1")
    candidate_self: float
    self_delta: float = Field(description="candidate_self - baseline_self")
    baseline_total: float = Field(description="Share of the baseline's samples with this "
                                  "frame anywhere on the stack, 0-1")
    candidate_total: float
    total_delta: float


class StackDelta(Schema):
    frames: list[str] = Field(description="Root first")
    baseline: int = Field(description="The baseline's samples of this stack")
    candidate: int


class ProfileDelta(Schema):
    labels: dict[str, Any] = Field(description="The labels the two series were matched on")
    program: str
    baseline_profile_id: int
    candidate_profile_id: int
    baseline_tool: str
    candidate_tool: str
    baseline_samples: int
    candidate_samples: int
    frames: list[FrameDelta] = Field(
        description="The frames whose share changed most first (self, then total), at most "
        "`frames` of them")
    stacks: list[StackDelta] = Field(
        description="Both sides' stacks with their samples, heaviest first: a differential "
        "flame graph")
    stacks_left_out: int = Field(description="Light stacks left out of `stacks`")


class ProfileUnmatched(Schema):
    side: Literal["baseline", "candidate"]
    labels: dict[str, Any]
    program: str


class ProfileCompareRead(Schema):
    baseline: RunRef
    candidate: RunRef
    baseline_labels: dict[str, str]
    candidate_labels: dict[str, str]
    profiles: list[ProfileDelta] = Field(description="One per series and program profiled "
                                         "on both sides")
    unmatched: list[ProfileUnmatched] = Field(description="Profiles of one side only")


class BaselinePin(Schema):
    model_config = ConfigDict(json_schema_extra={"examples": [{"run_id": 12, "branch": "main"}]})

    run_id: int
    branch: str | None = None


class BaselineRead(Schema):
    id: int
    suite: str
    scenario: str
    branch: str
    run_id: int
    created_at: datetime


class TrendPoint(Schema):
    run_id: int | None = Field(description="None for a day read from the rollups")
    runs: int = Field(1, description="Runs the value stands for (a day's rollup: its median)")
    started_at: datetime
    value: float
    commit: str | None
    branch: str | None
    host_name: str | None


class ChangePointRead(Schema):
    index: int
    run_id: int | None
    started_at: datetime
    before: float
    after: float
    delta_pct: float | None
    p_value: float


class TrendBranch(Schema):
    name: str
    runs: int = Field(description="Runs of the history on this branch with the params drawn")
    last_started_at: datetime


class TrendParamsSet(Schema):
    params: dict[str, Any]
    runs: int = Field(description="Runs of the history with these params on the branch drawn")
    last_run_id: int = Field(description="The newest of them")
    last_started_at: datetime
    drawn: bool = Field(description="True for the params the trend draws")


class TrendWindow(Schema):
    """The window the trend's latest run is judged against, drawn as its centre and bound."""

    run_id: int = Field(description="The trend's latest run")
    source: Literal["gate", "computed"] = Field(
        description="gate: the run's own gate evidence; computed: the same for this metric "
                    "alone on the branch drawn (the gate did not judge it against a window), "
                    "at the project's false-alarm level where the gate takes Holm's over its "
                    "gated metrics")
    evidence: GateEvidence


class TrendSeries(Schema):
    labels: dict[str, str]
    failing: bool = Field(description="The newest run's verdict failed on this series (a "
                          "regression, a suspected one, an SLA breach)")


class TrendCatalogue(Schema):
    newest_run_id: int = Field(description="The scenario's newest run (or the run asked for)")
    series: list[TrendSeries] = Field(description="The series of its newest runs, those the "
                                      "newest failed on first")
    metrics: list[MetricInfo] = Field(description="Their metrics and latency percentiles")


class TrendRead(Schema):
    suite: str
    scenario: str
    metric: str
    params: dict[str, Any] = Field(description="The params of the runs drawn")
    branch: str = Field(description="The branch drawn (a history never mixes branches)")
    branches: list[TrendBranch] = Field(
        description="The branches with runs of this history and params, the most recent "
                    "first (among its newest 5,000 runs)")
    params_sets: list[TrendParamsSet] = Field(
        description="The params sets with runs of this history on the branch drawn, the most "
                    "recent first (among its newest 5,000 runs): each is a history of its own")
    resolution: Literal["run", "day"] = Field(
        description="run: a point per run; day: a point per day from the daily rollups (the "
                    "range held more runs than the limit)")
    unit: str
    direction: str
    labels: dict[str, str]
    points: list[TrendPoint] = Field(
        description="Oldest first; runs started in the same second in their order of arrival")
    change_points: list[ChangePointRead] = Field(
        description="Found in the points drawn: the branch's own history")
    window: TrendWindow | None = Field(
        None, description="The latest run's window (None: days of rollups, or too short a "
                          "history)")


Fraction = Annotated[float, Field(gt=0, lt=1)]


class GateRule(Schema):
    """Thresholds of the CI gate; a field left out (or null) keeps the level above's."""

    window: Annotated[int, Field(ge=5, le=500)] | None = Field(
        None, description="Runs a window of history holds at most (default 30)")
    test: Literal["t", "z", "percentage"] | None = Field(
        None, description="t: Student's t prediction test (default); z: normal quantiles; "
        "percentage: fails past `percentage` worse than the window's centre")
    false_alarm: Annotated[float, Field(ge=0.0001, le=0.2)] | None = Field(
        None, description="The chance that an unchanged run fails, over its gated metrics "
        "(default 0.01)")
    min_effect: Annotated[float, Field(ge=0, lt=1)] | None = Field(
        None, description="Changes smaller than this never fail, in CI runs and lab jobs "
        "(default 0.05: 5 %)")
    percentage: Fraction | None = Field(
        None, description="With test `percentage`: the change that fails (default 0.1)")
    max_error_rate: Annotated[float, Field(ge=0, le=1)] | None = Field(
        None, description="The share of a series' operations its harness may count as "
        "failed before the run fails as `errors` (default 0.01: 1 %), unless the submission "
        "says errors are expected")


class GateSettings(Schema):
    """The CI gate's thresholds of the current project: its default, then per suite
    (`"http-order"`) and per scenario (`"http-order/large"`)."""

    default: GateRule = GateRule()
    suites: Annotated[dict[Annotated[str, StringConstraints(
        pattern=r"^[a-z0-9][a-z0-9._-]{0,63}(/[a-z0-9][a-z0-9._-]{0,63})?$")], GateRule],
        Field(max_length=500)] = {}


class GateSettingsRead(GateSettings):
    project: str
    effective_default: dict[str, Any] = Field(
        description="The thresholds a run gets where no suite or scenario says otherwise")
