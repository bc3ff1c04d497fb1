from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, StringConstraints, model_validator

from latlab.analysis.schemas import CompareRead, TrendRead
from latlab.core.clock import get_clock
from latlab.core.params import IdItem
from latlab.core.schemas import ReadSchema, Schema
from latlab.runs.schemas import RunRead
from latlab_contract.fields import Moment, Slug

Kind = Literal["run", "compare", "trend"]
Origin = Annotated[str, StringConstraints(
    pattern=r"^https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?$", max_length=300)]


class TrendTarget(Schema):
    suite: Slug
    scenario: Slug
    metric: Annotated[str, StringConstraints(min_length=1, max_length=64)] = "p99"
    labels: Annotated[dict[Annotated[str, StringConstraints(max_length=64)],
                           Annotated[str, StringConstraints(max_length=1024)]],
                      Field(max_length=50)] = {}
    branch: Annotated[str, StringConstraints(min_length=1, max_length=200)] | None = None


class ShareLinkCreate(Schema):
    model_config = ConfigDict(json_schema_extra={"examples": [
        {"kind": "run", "run_id": 42, "expires_at": "2027-01-31T00:00:00Z"},
        {"kind": "compare", "baseline": 41, "candidate": 42},
        {"kind": "trend", "trend": {"suite": "http-order", "scenario": "steady",
                                    "metric": "p99", "labels": {"client": "rust"}}}]})

    kind: Kind
    run_id: IdItem | None = Field(None, description="kind run: the run")
    baseline: IdItem | None = Field(None, description="kind compare: the baseline run")
    candidate: IdItem | None = Field(None, description="kind compare: the candidate run")
    trend: TrendTarget | None = Field(None, description="kind trend: the series and metric")
    expires_at: Moment | None = Field(None, description="Default: never (revoke it instead)")

    @model_validator(mode="after")
    def names_its_target(self) -> "ShareLinkCreate":
        wanted = {"run": ("run_id",), "compare": ("baseline", "candidate"),
                  "trend": ("trend",)}[self.kind]
        for name in ("run_id", "baseline", "candidate", "trend"):
            given = getattr(self, name) is not None
            if given != (name in wanted):
                raise ValueError(f"a {self.kind} link names {' and '.join(wanted)} only"
                                 f" ({name} {'given' if given else 'missing'})")
        if self.expires_at is not None and self.expires_at <= get_clock().now():
            raise ValueError("expires_at is in the past")
        return self

    def target(self) -> dict[str, Any]:
        if self.kind == "run":
            return {"run_id": self.run_id}
        if self.kind == "compare":
            return {"baseline": self.baseline, "candidate": self.candidate}
        assert self.trend is not None
        return self.trend.model_dump(exclude_none=True)


class ShareLinkRead(ReadSchema):
    id: int
    kind: Kind
    target: dict[str, Any]
    prefix: str = Field(description="The token's first characters, to tell links apart")
    created_by: str
    created_at: datetime
    expires_at: datetime | None
    revoked_at: datetime | None


class ShareLinkCreated(ShareLinkRead):
    token: str = Field(description="Shown once: the link is the only place it is kept")
    url: str = Field(description="The page, opened without a login")
    badge_url: str | None = Field(description="kind trend: an SVG badge of the series' latest "
                                  "value and verdict")


class SharedRead(Schema):
    """What a share link shows, and nothing else of its project."""

    kind: Kind
    project: str = Field(description="The project's name")
    expires_at: datetime | None
    run: RunRead | None = None
    compare: CompareRead | None = None
    trend: TrendRead | None = None


class EmbedOrigins(Schema):
    model_config = ConfigDict(json_schema_extra={"examples": [
        {"origins": ["https://wiki.example.com"]}]})

    origins: Annotated[list[Origin], Field(max_length=20)] = Field(
        description="Pages of these origins may frame the project's shared links; none: no "
                    "page may")
