import enum
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    BigInteger,
    Double,
    Enum,
    ForeignKey,
    Index,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Mapped, mapped_column, relationship

from latlab.models.base import Base

if TYPE_CHECKING:
    from latlab.models.run import Run


class Severity(enum.StrEnum):
    warning = "warning"
    critical = "critical"


class AlertState(enum.StrEnum):
    open = "open"
    acknowledged = "acknowledged"
    resolved = "resolved"


class Baseline(Base):
    """A run pinned as the baseline of (suite, scenario, branch)."""

    __tablename__ = "baseline"
    __table_args__ = (UniqueConstraint("project_id", "suite", "scenario", "branch"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("project.id", ondelete="CASCADE"))
    suite: Mapped[str] = mapped_column(String(64))
    scenario: Mapped[str] = mapped_column(String(64))
    branch: Mapped[str] = mapped_column(String(200))
    run_id: Mapped[int] = mapped_column(ForeignKey("run.id", ondelete="CASCADE"))
    pinned_by_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    created_at: Mapped[datetime]


class SlaRule(Base):
    """A static (`p99 < 2 ms`) or relative (`throughput drop > 20 %`) rule on a metric."""

    __tablename__ = "sla_rule"

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("project.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(200))
    suite: Mapped[str] = mapped_column(String(64))
    scenario: Mapped[str | None] = mapped_column(String(64))
    # Labels a series must carry (a subset match); empty = every series.
    series_selector: Mapped[dict[str, Any]]
    metric: Mapped[str] = mapped_column(String(64))
    op: Mapped[str] = mapped_column(String(2))
    threshold: Mapped[float] = mapped_column(Double)
    unit: Mapped[str] = mapped_column(String(16))
    severity: Mapped[Severity] = mapped_column(
        Enum(Severity, name="severity", native_enum=False, length=16))
    kind: Mapped[str] = mapped_column(String(16))
    enabled: Mapped[bool] = mapped_column(default=True)
    # Channel ids to notify; None = every channel of the project.
    channel_ids: Mapped[list[int] | None] = mapped_column(ARRAY(BigInteger))
    created_at: Mapped[datetime]


class Alert(Base):
    """A breach, a regression, a change point or an improvement; one open alert per source
    (rule or detector) and series history."""

    __tablename__ = "alert"
    __table_args__ = (
        Index("uq_alert_open_source_history", "source", "history_key", unique=True,
              postgresql_where=text("state <> 'resolved'")),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("project.id", ondelete="CASCADE"))
    # What raised it: "rule:<id>", "regression", "improvement", "change-point:<metric>",
    # "creep:<metric>", "missing-data".
    source: Mapped[str] = mapped_column(String(64))
    rule_id: Mapped[int | None] = mapped_column(ForeignKey("sla_rule.id", ondelete="SET NULL"))
    history_key: Mapped[str] = mapped_column(Text)
    kind: Mapped[str] = mapped_column(String(32))
    severity: Mapped[Severity] = mapped_column(
        Enum(Severity, name="severity", native_enum=False, length=16))
    state: Mapped[AlertState] = mapped_column(
        Enum(AlertState, name="alert_state", native_enum=False, length=16), index=True)
    suite: Mapped[str] = mapped_column(String(64))
    scenario: Mapped[str] = mapped_column(String(64))
    series_labels: Mapped[dict[str, Any]]
    metric: Mapped[str] = mapped_column(String(64))
    value: Mapped[float | None] = mapped_column(Double)
    threshold: Mapped[float | None] = mapped_column(Double)
    baseline_value: Mapped[float | None] = mapped_column(Double)
    unit: Mapped[str] = mapped_column(String(16))
    message: Mapped[str] = mapped_column(Text)
    run_id: Mapped[int | None] = mapped_column(ForeignKey("run.id", ondelete="SET NULL"))
    baseline_run_id: Mapped[int | None] = mapped_column(
        ForeignKey("run.id", ondelete="SET NULL"))
    # The run whose measurement confirmed a regression before anyone was alerted.
    confirmation_run_id: Mapped[int | None] = mapped_column(
        ForeignKey("run.id", ondelete="SET NULL"))
    # The bisection searching for the commit that caused it (a repository's regression).
    bisection_id: Mapped[int | None] = mapped_column(
        ForeignKey("bisection.id", ondelete="SET NULL"))
    channel_ids: Mapped[list[int] | None] = mapped_column(ARRAY(BigInteger))
    occurrences: Mapped[int] = mapped_column(default=1)
    opened_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    acknowledged_at: Mapped[datetime | None]
    acknowledged_by_id: Mapped[int | None] = mapped_column(
        ForeignKey("user.id", ondelete="SET NULL"))
    resolved_at: Mapped[datetime | None]
    resolved_by_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    resolution: Mapped[str | None] = mapped_column(Text)
    # Triage: what the person who acknowledged it said, and who is on it (a user of the
    # project).
    note: Mapped[str | None] = mapped_column(Text)
    assignee_id: Mapped[int | None] = mapped_column(
        ForeignKey("user.id", ondelete="SET NULL"), index=True)

    # The run it was last seen in: its commit and branch group the alerts one commit caused.
    run: Mapped["Run | None"] = relationship(lazy="raise", foreign_keys=[run_id], viewonly=True)


class Channel(Base):
    """Where alerts go: a Slack incoming webhook, a generic webhook or email (`mailto:`
    addresses, through the lab's SMTP server). The URL is a secret."""

    __tablename__ = "channel"

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("project.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(200))
    kind: Mapped[str] = mapped_column(String(16))
    url: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime]
    # An email channel's messages of a day, sent as one mail at the lab's digest hour.
    digest: Mapped[bool] = mapped_column(default=False, server_default=text("false"))
    # A muted channel is sent nothing; its messages are kept, marked `muted`.
    muted: Mapped[bool] = mapped_column(default=False, server_default=text("false"))
    # Delivery health: failed attempts in a row, since when, and when the next may start.
    consecutive_failures: Mapped[int] = mapped_column(default=0, server_default=text("0"))
    failing_since: Mapped[datetime | None]
    retry_at: Mapped[datetime | None]
    last_error: Mapped[str | None] = mapped_column(Text)


class Notification(Base):
    """The outbox: one message for one channel, stored before it is delivered."""

    __tablename__ = "notification"

    id: Mapped[int] = mapped_column(primary_key=True)
    alert_id: Mapped[int] = mapped_column(ForeignKey("alert.id", ondelete="CASCADE"),
                                          index=True)
    channel_id: Mapped[int] = mapped_column(ForeignKey("channel.id", ondelete="CASCADE"))
    event: Mapped[str] = mapped_column(String(16))
    payload: Mapped[dict[str, Any]]
    status: Mapped[str] = mapped_column(String(16), index=True)
    attempts: Mapped[int] = mapped_column(default=0)
    last_error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime]
    next_attempt_at: Mapped[datetime]
    sent_at: Mapped[datetime | None]


class DeliveryAttempt(Base):
    __tablename__ = "delivery_attempt"

    id: Mapped[int] = mapped_column(primary_key=True)
    notification_id: Mapped[int] = mapped_column(
        ForeignKey("notification.id", ondelete="CASCADE"), index=True)
    attempted_at: Mapped[datetime]
    status_code: Mapped[int | None]
    error: Mapped[str | None] = mapped_column(Text)
    ok: Mapped[bool]
