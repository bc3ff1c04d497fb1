from datetime import datetime
from typing import Annotated, Any

from pydantic import Field, StringConstraints

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
    enrolled_at: datetime | None = Field(
        description="When its runner joined the lab (null: a host only named by CI "
        "submissions, or revoked): only an enrolled host's messages are believed")
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


# A host's name is its queue's (`host.<name>`) and its Redis user's.
HostName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$")]
HostTag = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9._-]{0,63}$")]


class InvitationCreate(Schema):
    name: HostName = Field(description="The host's name: its queue is host.<name>")
    tags: Annotated[list[HostTag], Field(max_length=20)] = []
    projects: Annotated[list[ProjectSlug], Field(max_length=500)] | None = Field(
        None, description="The projects the host will serve; null: every project")
    expires_in_hours: int = Field(24, ge=1, le=24 * 30)


class InvitationRead(Schema):
    id: int
    name: str
    tags: list[str]
    projects: list[str] | None
    expires_at: datetime
    code: str = Field(description="The one-time code (shown once: only its hash is kept)")
    command: str = Field(description="What to run on the new machine, in a checkout of "
                         "latlab")


class JoinRequest(Schema):
    code: str = Field(min_length=1, max_length=64)
