from datetime import datetime
from typing import Any, Literal

from pydantic import ConfigDict, Field

from latlab.core.schemas import Schema


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


class TrendRead(Schema):
    suite: str
    scenario: str
    metric: str
    params: dict[str, Any] = Field(description="The params of the history's runs")
    resolution: Literal["run", "day"] = Field(
        description="run: a point per run; day: a point per day from the daily rollups (the "
                    "range held more runs than the limit)")
    unit: str
    direction: str
    labels: dict[str, str]
    points: list[TrendPoint]
    change_points: list[ChangePointRead]
