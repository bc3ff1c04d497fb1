from datetime import datetime
from typing import Annotated, Literal

from pydantic import ConfigDict, Field, StringConstraints, model_validator

from latlab.core.clock import get_clock
from latlab.core.schemas import ReadSchema, Schema
from latlab_contract.fields import NO_NUL, HostName, Moment, Slug

Kind = Literal["note", "host", "suite", "gate"]
Link = Annotated[str, StringConstraints(max_length=2000, pattern=r"^https?://[^\s]+$")]


class AnnotationCreate(Schema):
    model_config = ConfigDict(json_schema_extra={"examples": [
        {"text": "deployed orders 2.4 (batching off)", "suite": "http-order",
         "link": "https://ci.example.com/deploys/812"}]})

    text: Annotated[str, StringConstraints(min_length=1, max_length=500, pattern=NO_NUL,
                                           strip_whitespace=True)]
    at: Moment | None = Field(None, description="When it happened (ISO 8601 with a zone); "
                              "default: now")
    until: Moment | None = Field(None, description="The end of a range (a load test, a week "
                                 "of maintenance): after `at`")
    suite: Slug | None = Field(None, description="The suite whose trends it concerns; "
                               "default: every suite's")
    host: HostName | None = Field(None, description="The host whose runs it concerns; "
                                  "default: every host's")
    link: Link | None = Field(None, description="A page about it (a deploy, a change request)")

    @model_validator(mode="after")
    def ends_after_it_starts(self) -> "AnnotationCreate":
        if self.until is not None and self.until <= (self.at or get_clock().now()):
            raise ValueError("until must come after at (or after now, without at)")
        return self


class AnnotationRead(ReadSchema):
    id: int
    at: datetime
    until: datetime | None = Field(description="The end of a range; None: a moment")
    kind: Kind = Field(description="note: a person's or a CI step's; host: the lab saw a "
                       "host's tuning or hardware change between two of its runs; suite: the "
                       "lab saw a suite's version change; gate: the project's gate settings "
                       "changed")
    text: str
    link: str | None
    suite: str | None = Field(description="None: every suite's trends")
    host: str | None = Field(validation_alias="host_name",
                             description="None: every host's runs")
    run_id: int | None = Field(description="The run at which the lab noticed the change")
    created_by: str
    created_at: datetime
