from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, StringConstraints, field_validator

from latlab.core.schemas import Schema
from latlab.repos.schemas import Name, Ref
from latlab_contract.estimate import MAX_TIMEOUT_S
from latlab_contract.fields import Slug

Status = Literal["running", "found", "not-reproduced", "narrowed", "failed", "cancelled"]
LabelValue = Annotated[str, StringConstraints(min_length=1, max_length=200)]


class BisectionCreate(Schema):
    model_config = ConfigDict(json_schema_extra={"examples": [
        {"repo": "orders", "good": "v1.0", "bad": "main", "suite": "http-order",
         "scenario": "steady", "params": {"server": "repo"}, "metric": "p99"}]})

    repo: Name
    good: Ref = Field(description="A commit (or branch, tag) without the regression")
    bad: Ref = Field(description="A later one with it; `good` must be on its first-parent "
                     "history")
    suite: Slug
    scenario: Slug = "default"
    params: Annotated[dict[str, Any], Field(max_length=100)] = {}
    series: Annotated[dict[str, LabelValue], Field(
        max_length=20, description="The labels of the series judged (e.g. {\"client\": "
        "\"go\"}); empty: any series of the run")] = {}
    metric: Annotated[str, StringConstraints(pattern=r"^[a-z0-9_]{1,64}$")] = Field(
        "p99", description="The gate metric whose regression is searched for")
    host_tags: Annotated[list[Slug], Field(max_length=20)] = []
    repetitions: Annotated[int, Field(
        ge=2, le=100, description="Trials a side in each step's first stage (a step is a try "
        "job: more while undecided)")] = 10
    max_minutes: Annotated[int | None, Field(
        ge=1, le=MAX_TIMEOUT_S // 60 * 8, description="A cap of lab time over all steps; "
        "reaching it ends the search with the narrowest range found")] = None

    @field_validator("series")
    @classmethod
    def no_side(cls, series: dict[str, str]) -> dict[str, str]:
        if "side" in series:
            raise ValueError("`side` is the try job's own label (base or head)")
        return series


class CommitState(Schema):
    sha: str
    subject: str
    author: str
    state: Literal["good", "bad", "culprit", "unbuildable", "unknown"] = Field(
        description="What the search knows of it: good (measured, or older than a good one), "
        "bad (likewise), the culprit, does not build, or not known")


class Step(Schema):
    kind: Literal["ends", "search", "culprit"] = Field(
        description="ends: good against bad, first; search: the newest good commit against "
        "the middle of the range; culprit: the culprit beside its parent")
    base: str
    head: str
    job_id: int
    run_id: int | None = None
    outcome: str | None = Field(None, description="The try verdict's on the metric: "
                                "regressed, improved, unchanged, untested (undecided); "
                                "unbuildable (the head does not build); null while measured")
    change: float | None = Field(None, description="Head against base, relative (+0.1: 10 % "
                                 "higher)")
    interval: list[float] | None = None
    detectable: float | None = None
    minutes: float | None = None
    said: str | None = None


class BisectionRead(Schema):
    id: int
    repo: str
    commit_url: str | None = Field(
        description="The repository's commit URL ({sha} in it is replaced by a "
        "commit's full sha); null when it has none")
    good: str
    bad: str
    suite: str
    scenario: str
    params: dict[str, Any]
    series: dict[str, Any]
    metric: str
    status: Status
    commits: list[CommitState] = Field(description="Oldest first, good to bad")
    steps: list[Step]
    result: dict[str, Any] | None = Field(
        description='{"culprit": {"sha", "subject", "author", "change", "interval", "share", '
        '"run_id"}, "culprits": [every one found, oldest first]} or {"range": [sha...]}')
    message: str | None
    max_minutes: int | None
    created_at: datetime
    finished_at: datetime | None
