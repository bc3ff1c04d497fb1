from datetime import datetime
from typing import Annotated, Any

from pydantic import ConfigDict, Field, StringConstraints

from latlab.core.schemas import Schema
from latlab.models import JobStatus
from latlab_contract.estimate import MAX_TIMEOUT_S

Slug = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9._-]{0,63}$")]


class JobCreate(Schema):
    model_config = ConfigDict(json_schema_extra={"examples": [
        {"suite": "echo", "scenario": "default", "params": {"count": 50000}},
        {"suite": "http-order", "scenario": "large", "repetitions": 2,
         "params": {"loads": "c,rust,go", "pin_cpus": "1", "mlock": True}}]})

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
