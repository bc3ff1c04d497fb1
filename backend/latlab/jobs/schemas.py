from datetime import datetime
from typing import Annotated, Any

from pydantic import ConfigDict, Field, StringConstraints, model_validator

from latlab.core.schemas import Schema
from latlab.models import JobStatus
from latlab.repos.schemas import Name, Ref
from latlab_contract.estimate import MAX_TIMEOUT_S
from latlab_contract.fields import Slug


class Compare(Schema):
    base: Ref = Field(description="The branch, tag or commit measured as the base")
    head: Ref = Field(description="The one measured beside it")
    max_minutes: Annotated[int | None, Field(
        ge=1, le=MAX_TIMEOUT_S // 60, description="A cap of lab time over the job's stages: "
        "no stage starts that would take it past the cap. By default the job stops only at "
        "a decision or its last look (four times its first stage's trials)")] = None


class JobCreate(Schema):
    model_config = ConfigDict(json_schema_extra={"examples": [
        {"suite": "echo", "scenario": "default", "params": {"count": 50000}},
        {"suite": "http-order", "scenario": "large", "repetitions": 2,
         "params": {"loads": "c,rust,go", "pin_cpus": "1", "mlock": True}},
        {"suite": "http-order", "scenario": "steady", "params": {"server": "repo"},
         "repo": "orders", "compare": {"base": "main", "head": "4f1c2e7"}}]})

    suite: Slug
    scenario: Slug = "default"
    params: Annotated[dict[str, Any], Field(max_length=100)] = {}
    host_tags: Annotated[list[Slug], Field(max_length=20)] = []
    all_matching: bool = Field(False, description="One job on every matching online host")
    repetitions: Annotated[int, Field(
        ge=1, le=100, description="Trials per series; 5 lets a comparison test a change")] = 5
    timeout_s: Annotated[int | None, Field(
        ge=10, le=MAX_TIMEOUT_S, description="Seconds the job may take; by default its "
        "estimate (POST /jobs/estimate) with a margin and time to build, at least 900")] = None
    profile: bool = Field(False, description="After the repetitions, one more trial per "
                          "series with each program's CPU profiled (perf, py-spy or "
                          "async-profiler); that trial enters no statistic")
    repo: Name | None = Field(None, description="A repository of the project whose code the "
                              "suite builds and measures (a suite with `[repo]`)")
    ref: Ref | None = Field(None, description="The repository's branch, tag or commit "
                            "measured (default: its default branch), resolved to a commit "
                            "when the job is launched")
    compare: Compare | None = Field(
        None, description="A try job: both commits built and their trials interleaved on "
        "one host (a warm-up of each first), series labelled side=base and side=head; the "
        "run's verdict is head against base. Measured in stages until decided: its first "
        "stage's repetitions (ten unless given), then as many again and twice as many again "
        "while undecided, all in one run")

    @model_validator(mode="after")
    def one_source(self) -> "JobCreate":
        if (self.ref is not None or self.compare is not None) and self.repo is None:
            raise ValueError("`ref` and `compare` need `repo`")
        if self.ref is not None and self.compare is not None:
            raise ValueError("give `ref` or `compare`, not both")
        return self


class JobCreated(Schema):
    id: int
    status: JobStatus
    job_ids: list[int] = Field(description="Every job created (several with all_matching)")


class JobEstimate(Schema):
    series: int = Field(description="Series the params expand into")
    trials: int = Field(description="Trials of each series (the repetitions, and one more "
                        "when profiling)")
    estimate_s: float | None = Field(description="Seconds the trials should take, by the "
                                     "suite's estimate; null when its host states none")
    timeout_s: int = Field(description="The timeout the job gets: the one asked for, else "
                           "the estimate's")


class ProgramRead(Schema):
    name: str
    pid: int


class JobRead(Schema):
    id: int
    project: str
    suite: str
    scenario: str
    params: dict[str, Any]
    host_tags: list[str]
    repetitions: int
    timeout_s: int
    profile: bool
    repo: str | None = Field(description="The repository built and measured")
    ref: str | None = Field(description="Its ref as given (a try job's head)")
    commit: str | None = Field(description="The commit the ref named at launch")
    base: dict[str, str] | None = Field(
        description='A try job\'s base: {"ref", "commit"}')
    stages: dict[str, Any] | None = Field(
        description='A try job\'s stages: {"looks": trials a side at each look, "cap_s": its '
        'cap of lab time or null, "measured": [{"trials", "seconds"}] of each stage so far}')
    status: JobStatus
    phase: str | None
    progress: float
    host_name: str | None
    run_id: int | None
    attempts: int
    error: str | None
    programs: list[ProgramRead]
    parent_id: int | None
    schedule_id: int | None
    created_at: datetime
    dispatched_at: datetime | None
    started_at: datetime | None
    finished_at: datetime | None


class JobPage(Schema):
    items: list[JobRead]
    total: int
    limit: int
    offset: int


class ScheduleCreate(Schema):
    model_config = ConfigDict(json_schema_extra={"examples": [
        {"name": "nightly echo", "cron": "0 3 * * *", "job": {"suite": "echo"}}]})

    name: Annotated[str, StringConstraints(min_length=1, max_length=200)]
    cron: Annotated[str, StringConstraints(min_length=9, max_length=100)] = Field(
        description="Five-field cron expression, UTC (e.g. '0 2 * * *')"
    )
    job: JobCreate
    enabled: bool = True


class ScheduleRead(Schema):
    id: int
    name: str
    cron: str
    job: JobCreate
    enabled: bool
    created_at: datetime
    last_run_at: datetime | None
    next_run_at: datetime
