from datetime import datetime
from typing import Annotated, Literal

from pydantic import ConfigDict, Field, StringConstraints

from latlab.core.schemas import ReadSchema, Schema

ProjectSlug = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9-]{0,63}$")]
Bisect = Literal["off", "ask", "automatic"]
_BISECT = ("A confirmed regression of a repository's series between two commits: automatic "
           "starts its bisection (lab time), ask says how to start one on the alert, off "
           "neither")
ProjectName = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1,
                                               max_length=200, pattern=r"^[^\x00]*$")]


class ProjectCreate(Schema):
    model_config = ConfigDict(json_schema_extra={"examples": [
        {"slug": "payments", "name": "Payments gateway"}]})

    slug: ProjectSlug = Field(description="Lower-case letters, digits and dashes; fixed once "
                              "made (tokens and links name it)")
    name: ProjectName
    confirm_regressions: bool = False
    bisect_regressions: Bisect = Field("off", description=_BISECT)


class ProjectUpdate(Schema):
    model_config = ConfigDict(json_schema_extra={"examples": [
        {"name": "Payments (EU)"}, {"confirm_regressions": True}, {"archived": True}]})

    name: ProjectName | None = None
    confirm_regressions: bool | None = Field(
        None, description="Measure a suspected regression of any lab job again before "
        "alerting (scheduled jobs always are)")
    bisect_regressions: Bisect | None = Field(None, description=_BISECT)
    allow_private_webhooks: bool | None = Field(
        None, description="Let channels call loopback, private and link-local addresses (a "
        "receiver inside the lab's network); off, such URLs are refused")
    archived: bool | None = Field(
        None, description="An archived project keeps its data for reading and takes nothing "
        "new (runs, jobs, rules, channels, schedules, tokens)")


class ProjectRead(ReadSchema):
    id: int
    slug: str
    name: str
    confirm_regressions: bool
    bisect_regressions: Bisect
    allow_private_webhooks: bool
    created_at: datetime
    archived_at: datetime | None


class CurrentProject(Schema):
    model_config = ConfigDict(json_schema_extra={"examples": [{"project": "payments"}]})

    project: ProjectSlug
