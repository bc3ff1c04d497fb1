import re
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import (
    AliasPath,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationInfo,
    field_validator,
    model_validator,
)

from latlab.alerts.email import MAILTO
from latlab.core.schemas import ReadSchema, Schema
from latlab.models import AlertState, Severity
from latlab_contract.fields import INT64_MAX, Slug

RowId = Annotated[int, Field(ge=1, le=INT64_MAX)]
Note = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=2000)]
# Alerts one bulk action may change: a page of the dashboard's list, and then some.
MAX_BULK = 100


class SlaRuleCreate(Schema):
    model_config = ConfigDict(json_schema_extra={"examples": [
        {"name": "p99 under 2 ms", "suite": "http-order", "scenario": "medium",
         "series_selector": {"client": "rust"}, "metric": "p99", "op": ">", "threshold": 2,
         "unit": "ms", "severity": "critical"}]})

    name: Annotated[str, StringConstraints(min_length=1, max_length=200)]
    suite: Slug
    scenario: Slug | None = None
    series_selector: dict[str, str] = Field(
        {}, description="Labels a series must carry; empty matches every series")
    metric: Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_.-]{0,63}$")]
    op: Literal["<", "<=", ">", ">="]
    threshold: Annotated[float, Field(allow_inf_nan=False)]
    unit: Annotated[str, StringConstraints(max_length=16)] = ""
    severity: Severity = Severity.warning
    kind: Literal["static", "relative"] = "static"
    enabled: bool = True
    channel_ids: Annotated[list[int], Field(max_length=100)] | None = Field(
        None, description="Channels of the project to notify; by default all of them")

    @model_validator(mode="after")
    def relative_in_percent(self) -> "SlaRuleCreate":
        if self.kind == "relative" and self.unit not in ("", "%"):
            raise ValueError("a relative rule's threshold is a change in percent (unit '%')")
        return self


class SlaRuleUpdate(Schema):
    enabled: bool | None = None
    threshold: Annotated[float, Field(allow_inf_nan=False)] | None = None
    severity: Severity | None = None


class SlaRuleRead(SlaRuleCreate):
    id: int
    created_at: datetime


class AlertRead(Schema):
    model_config = ConfigDict(json_schema_serialization_defaults_required=True)

    id: int
    source: str
    kind: str
    severity: Severity
    state: AlertState
    suite: str
    scenario: str
    series_labels: dict[str, Any]
    metric: str
    unit: str
    value: float | None
    threshold: float | None
    baseline_value: float | None
    message: str
    run_id: int | None
    baseline_run_id: int | None
    confirmation_run_id: int | None = Field(
        description="The run that measured the regression again before anyone was alerted")
    bisection_id: int | None = Field(
        description="The bisection searching for the commit that caused the regression")
    rule_id: int | None
    occurrences: int
    opened_at: datetime
    updated_at: datetime
    acknowledged_at: datetime | None
    acknowledged_by_id: int | None
    resolved_at: datetime | None
    resolved_by_id: int | None
    resolution: str | None
    note: str | None = Field(description="What the person who acknowledged it said")
    assignee_id: int | None = Field(description="Who is on it: a user of the project")
    commit: str | None = Field(None, validation_alias=AliasPath("run", "commit"),
                               description="The commit of the run it was last seen in")
    branch: str | None = Field(None, validation_alias=AliasPath("run", "branch"),
                               description="The branch of the run it was last seen in")


class AlertPage(Schema):
    items: list[AlertRead]
    total: int


class AlertAcknowledge(Schema):
    note: Note | None = Field(None, description="What you found or are doing about it; shown "
                              "with the alert and sent with its later messages")


class AlertAssign(Schema):
    model_config = ConfigDict(json_schema_extra={"examples": [{"assignee_id": 3},
                                                              {"assignee_id": None}]})

    assignee_id: RowId | None = Field(
        description="A user of the project who may triage alerts; null: nobody")


class AlertBulkAction(Schema):
    """One action on several alerts of the project: all of them change, or none does."""

    model_config = ConfigDict(json_schema_extra={"examples": [
        {"action": "acknowledge", "alert_ids": [12, 13], "note": "bisecting abc123"},
        {"action": "resolve", "alert_ids": [12, 13, 14]}]})

    action: Literal["acknowledge", "resolve"]
    alert_ids: Annotated[list[RowId], Field(min_length=1, max_length=MAX_BULK)]
    note: Note | None = Field(None, description="With acknowledge only")

    @model_validator(mode="after")
    def distinct_ids_and_a_note_to_acknowledge(self) -> "AlertBulkAction":
        if len(set(self.alert_ids)) != len(self.alert_ids):
            raise ValueError("alert_ids names an alert twice")
        if self.note is not None and self.action != "acknowledge":
            raise ValueError("a note goes with acknowledge only")
        return self


class Assignee(ReadSchema):
    """A user of the project who may be assigned alerts (a member or an admin)."""

    id: int
    email: str
    name: str | None


class ChannelCreate(Schema):
    model_config = ConfigDict(json_schema_extra={"examples": [
        {"name": "latency", "kind": "slack",
         "url": "https://hooks.slack.com/services/T000/B000/XXXX"},
        {"name": "on call", "kind": "email", "url": "mailto:oncall@example.com,lead@example.com",
         "digest": False}]})

    name: Annotated[str, StringConstraints(min_length=1, max_length=200)]
    kind: Literal["slack", "webhook", "email"]
    url: Annotated[str, StringConstraints(pattern=r"^[!-~]+$", max_length=2000)] = Field(
        description="slack, webhook: an http(s) URL in printable ASCII (an international host "
        "name in its xn-- form); loopback, private and link-local addresses are refused unless "
        "an admin allows them for the project. email: mailto: and up to 20 addresses, "
        "comma-separated")
    digest: bool = Field(False, description="email: the day's messages as one mail at the "
                         "lab's digest hour (LATLAB_DIGEST_HOUR, UTC), not one mail each")

    @field_validator("url")
    @classmethod
    def fits_kind(cls, url: str, info: ValidationInfo) -> str:
        kind = info.data.get("kind")
        if kind == "email" and not re.fullmatch(MAILTO, url):
            raise ValueError("an email channel's address is mailto: and up to 20 addresses, "
                             "comma-separated (mailto:oncall@example.com,lead@example.com)")
        if kind in ("slack", "webhook") and not re.fullmatch(r"https?://[!-~]+", url):
            raise ValueError("a webhook's address is an http:// or https:// URL")
        return url

    @field_validator("digest")
    @classmethod
    def digest_by_email(cls, digest: bool, info: ValidationInfo) -> bool:
        if digest and info.data.get("kind") != "email":
            raise ValueError("only an email channel sends a daily digest")
        return digest


class ChannelUpdate(Schema):
    muted: bool = Field(description="A muted channel is sent nothing")


class ChannelRead(Schema):
    """A channel and how its deliveries go; its URL is a secret and is never returned."""

    id: int
    name: str
    kind: str
    digest: bool
    created_at: datetime
    muted: bool
    status: Literal["ok", "failing", "muted"] = Field(
        description="failing: its last deliveries failed, a few in a row")
    consecutive_failures: int
    failing_since: datetime | None
    retry_at: datetime | None = Field(description="No attempt before this (backoff)")
    last_error: str | None


class DeliveryRead(Schema):
    id: int
    channel_id: int
    event: str
    status: str
    attempts: int
    last_error: str | None
    sent_at: datetime | None


class ChannelTest(Schema):
    """How a test message went: the receiver's status and the time it took, not its answer."""

    channel_id: int
    ok: bool
    status_code: int | None = Field(description="The receiver's HTTP status (an email "
                                    "channel's: the SMTP server's reply code), if it answered")
    elapsed_ms: float
    error: str | None = Field(description="HTTP <status> (SMTP <code> and its text), or why no "
                              "answer came (refused address, connection error, timeout)")
