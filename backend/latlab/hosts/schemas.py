from datetime import datetime
from typing import Annotated, Any

from pydantic import Field

from latlab.core.schemas import Schema
from latlab.hosts.tuning import TuningCheck
from latlab.projects.schemas import ProjectSlug
from latlab_contract import SuiteInfo


class CurrentJob(Schema):
    id: int
    suite: str
    scenario: str
    status: str
    phase: str | None
    progress: float


class HostRead(Schema):
    id: int
    name: str
    address: str | None
    tags: list[str]
    online: bool
    last_heartbeat_at: datetime | None
    last_seen_at: datetime | None
    fingerprint: dict[str, Any]
    tuning: list[TuningCheck]
    suites: list[str]
    busy: bool = Field(description="Running a job (of any project)")
    current_job: CurrentJob | None = Field(description="The job it runs, if of the caller's "
                                           "project")
    projects: list[str] | None = Field(
        description="The projects it serves (their jobs run on it, their members see it); "
        "null: every project. Others than the caller's are shown to admins only")


class HostProjects(Schema):
    projects: Annotated[list[ProjectSlug], Field(max_length=500)] | None = Field(
        description="The projects the host serves from now on; null: every project")


class SuiteRead(SuiteInfo):
    hosts: list[str] = Field(description="Online hosts that offer the suite")
    lightest_scenario: str | None = Field(
        description="The scenario the suite estimates shortest (a launch form's default); null "
        "when the suite estimates none")
