from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, StringConstraints, model_validator

from latlab.analysis import expectations
from latlab.core.schemas import Schema
from latlab.repos.schemas import Ref
from latlab_contract.fields import Slug
from latlab_contract.vocabulary import LATENCY_KEYS

# Names an expectation can use: a letter first.
NAME_PATTERN = r"^[a-z][a-z0-9._-]{0,63}$"
Name = Annotated[str, StringConstraints(pattern=NAME_PATTERN)]
Metric = Annotated[str, StringConstraints(pattern=r"^[a-z][a-z0-9_]{0,63}$")]
LabelValue = Annotated[str, StringConstraints(min_length=1, max_length=200)]
Text = Annotated[str, StringConstraints(max_length=20_000)]
Status = Literal["running", "done", "failed"]

EXAMPLE: dict[str, Any] = {
    "name": "tuning", "title": "Does host tuning halve the order API's P50?",
    "question": "Report 001: pinned, locked and FIFO-scheduled clients against the defaults.",
    "jobs": {"baseline": {"suite": "http-order", "scenario": "large",
                          "params": {"loads": "rust"}},
             "tuned": {"suite": "http-order", "scenario": "large",
                       "params": {"loads": "rust", "pin_cpus": "1", "mlock": True}}},
    "series": {"before": {"job": "baseline", "labels": {"client": "rust"}},
               "after": {"job": "tuned", "labels": {"client": "rust"}}},
    "expectations": ["p50(after) <= 0.5 * p50(before)"],
    "references": [{"series": "before", "metric": "p50", "value": 412.0, "unit": "us",
                    "source": "report 001, table 2"}]}


class ExperimentJob(Schema):
    """A job as `POST /jobs` launches it; the experiment's run chooses the hosts."""

    suite: Slug
    scenario: Slug = "default"
    params: Annotated[dict[str, Any], Field(max_length=100)] = {}
    repetitions: Annotated[int, Field(ge=1, le=100)] = 5
    repo: Slug | None = None
    ref: Ref | None = None


class NamedSeries(Schema):
    job: Name = Field(description="One of the experiment's jobs")
    labels: Annotated[dict[str, LabelValue], Field(
        max_length=20, description="Labels the series carries in the job's run; an axis an "
        "expectation spans (`for param ...`) is left out")] = {}


class Reference(Schema):
    """A figure from elsewhere (a report's own table), shown beside the lab's."""

    series: Name
    metric: Metric
    value: float
    unit: Annotated[str, StringConstraints(max_length=16)] | None = None
    source: Annotated[str, StringConstraints(min_length=1, max_length=200)]


class ExperimentDocument(Schema):
    model_config = ConfigDict(json_schema_extra={"examples": [EXAMPLE]})

    name: Name
    title: Annotated[str, StringConstraints(min_length=1, max_length=200)]
    question: Text = ""
    jobs: Annotated[dict[Name, ExperimentJob], Field(min_length=1, max_length=20)]
    series: Annotated[dict[Name, NamedSeries], Field(max_length=100)] = {}
    expectations: Annotated[list[Annotated[str, StringConstraints(max_length=500)]], Field(
        max_length=100, description="e.g. `p50(after) <= 0.5 * p50(before)`, "
        "`throughput(zig) >= throughput(go) for concurrency <= 100`, `p95(reqrep) <= 500 "
        "ms`: a ratio of one metric in two named series, or a bound in the metric's unit")
    ] = []
    references: Annotated[list[Reference], Field(max_length=500)] = []
    derived: Annotated[dict[Metric, Annotated[str, StringConstraints(max_length=200)]], Field(
        max_length=50, description="Metrics the lab computes per trial, marked derived: "
        "`messages_per_s / devices` (per device), `throughput / connections`: a measured "
        "metric over (or times) a param of the series")] = {}
    conclusions: Text = ""

    @model_validator(mode="after")
    def names_known(self) -> "ExperimentDocument":
        for name, text in self.derived.items():
            derived = expectations.parse_derived(text)
            if name in LATENCY_KEYS or derived.metric in self.derived:
                raise ValueError(f"derived metric {name!r} = {text!r}: a derived metric has a "
                                 f"name of its own and is computed from a measured one")
        for name, series in self.series.items():
            if series.job not in self.jobs:
                raise ValueError(f"series {name!r} names job {series.job!r}, which the "
                                 f"experiment does not have (its jobs: {', '.join(self.jobs)})")
        for text in self.expectations:
            expectation = expectations.parse(text)
            for term in (expectation.left, expectation.right):
                if term is not None and term.series not in self.series:
                    raise ValueError(f"{text!r} names series {term.series!r}, which the "
                                     f"experiment does not define")
        for reference in self.references:
            if reference.series not in self.series:
                raise ValueError(f"a reference names series {reference.series!r}, which the "
                                 f"experiment does not define")
        return self


class ExperimentRead(ExperimentDocument):
    version: int
    created_at: datetime


class ExperimentRunCreate(Schema):
    host_tags: Annotated[list[Slug], Field(max_length=20)] = []


class RunJob(Schema):
    job_id: int
    status: str
    run_id: int | None


class ExpectationJudged(Schema):
    expectation: str
    point: dict[str, float] | None = Field(
        description="The axis point judged (`for param ...`), or null")
    outcome: Literal["holds", "does-not-hold", "not-decided"]
    value: float | None = Field(description="The ratio, or the series' median in its unit")
    interval: list[float] | None = Field(description="The value's 95 % interval: low, high")
    decidable: float | None = Field(
        description="The smallest distance from the bound these trials decide, relative")
    unit: str | None
    reason: str


class FigureRead(Schema):
    """A reference figure beside the lab's: the median of the series' trials in this run."""

    series: str
    metric: str
    source: str
    reference: float
    lab: float | None = Field(description="In the reference's unit (time units converted), "
                              "or the metric's when the reference names none")
    interval: list[float] | None = Field(description="The lab's 95 % interval: low, high")
    unit: str | None
    ratio: float | None = Field(description="The lab's figure over the reference's")
    derived: str | None = Field(
        None, description="How the lab computed its figure (`messages_per_s / devices`) when "
        "it is derived, not measured")


class ExperimentRunRead(Schema):
    id: int
    experiment: str
    version: int
    status: Status
    host_tags: list[str]
    jobs: dict[str, RunJob]
    judgements: list[ExpectationJudged] | None
    figures: list[FigureRead] | None
    message: str | None
    created_at: datetime
    finished_at: datetime | None
