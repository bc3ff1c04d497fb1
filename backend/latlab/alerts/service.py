"""The project's SLA rules, channels and alerts: every query is scoped to one project."""

import time

from sqlalchemy import func, select
from sqlalchemy.orm import Session, selectinload

from latlab.alerts import delivery, email, lifecycle
from latlab.alerts.schemas import (
    AlertBulkAction,
    ChannelCreate,
    ChannelTest,
    SlaRuleCreate,
    SlaRuleUpdate,
)
from latlab.core import outbound
from latlab.core.clock import get_clock
from latlab.core.errors import NotFound, Unprocessable
from latlab.models import (
    Alert,
    AlertState,
    Channel,
    Notification,
    Project,
    Severity,
    SlaRule,
    User,
)
from latlab.projects import service as projects


def list_rules(session: Session, project_id: int) -> list[SlaRule]:
    return list(session.scalars(select(SlaRule).where(SlaRule.project_id == project_id)
                                .order_by(SlaRule.id)))


def get_rule(session: Session, project_id: int, rule_id: int) -> SlaRule:
    rule = session.scalar(select(SlaRule).where(SlaRule.id == rule_id,
                                                SlaRule.project_id == project_id))
    if rule is None:
        raise NotFound(f"no SLA rule {rule_id}")
    return rule


def create_rule(session: Session, project: Project, request: SlaRuleCreate) -> SlaRule:
    if request.channel_ids:
        known = set(session.scalars(select(Channel.id).where(
            Channel.project_id == project.id, Channel.id.in_(request.channel_ids))))
        unknown = sorted(set(request.channel_ids) - known)
        if unknown:
            raise Unprocessable(f"the project has no channel {unknown[0]}", "$.channel_ids")
    rule = SlaRule(project_id=project.id, created_at=get_clock().now(), **request.model_dump())
    session.add(rule)
    session.flush()
    return rule


def update_rule(rule: SlaRule, request: SlaRuleUpdate) -> SlaRule:
    for name, value in request.model_dump(exclude_none=True).items():
        setattr(rule, name, value)
    return rule


def delete_rule(session: Session, rule: SlaRule, user: User | None) -> None:
    """Deletes `rule` (by `user`, None for an API token) and resolves its alerts still open
    or acknowledged: nothing would clear them any more (their channels hear why)."""
    resolution = f"its rule {rule.name!r} was deleted" + (f" by {user.email}" if user else "")
    open_alerts = session.scalars(select(Alert).where(
        Alert.rule_id == rule.id, Alert.state != AlertState.resolved).with_for_update())
    for alert in open_alerts:
        lifecycle.resolve(session, alert, user.id if user else None, resolution)
    session.delete(rule)


def list_alerts(session: Session, project_id: int, state: AlertState | None,
                severity: Severity | None, assignee_id: int | None, limit: int,
                offset: int) -> tuple[list[Alert], int]:
    query = select(Alert).where(Alert.project_id == project_id)
    if state is not None:
        query = query.where(Alert.state == state)
    if severity is not None:
        query = query.where(Alert.severity == severity)
    if assignee_id is not None:
        query = query.where(Alert.assignee_id == assignee_id)
    total = session.scalar(select(func.count()).select_from(query.subquery())) or 0
    alerts = session.scalars(query.options(selectinload(Alert.run)).order_by(Alert.id.desc())
                             .limit(limit).offset(offset))
    return list(alerts), total


def get_alert(session: Session, project_id: int, alert_id: int) -> Alert:
    alert = session.scalar(select(Alert).where(Alert.id == alert_id,
                                               Alert.project_id == project_id)
                           .options(selectinload(Alert.run)).with_for_update())
    if alert is None:
        raise NotFound(f"no alert {alert_id}")
    return alert


def resolve(session: Session, alert: Alert, user: User) -> None:
    lifecycle.resolve(session, alert, user.id, f"resolved by {user.email}")


def act_on_many(session: Session, project_id: int, request: AlertBulkAction,
                user: User) -> list[Alert]:
    """Acknowledges or resolves each alert named, in the order named; an id the project does
    not have, or an alert not in a state for it, changes none (a savepoint undoes the others,
    whatever the caller does with its transaction)."""
    query = (select(Alert).where(Alert.project_id == project_id, Alert.id.in_(request.alert_ids))
             .options(selectinload(Alert.run)).order_by(Alert.id).with_for_update())
    found = {alert.id: alert for alert in session.scalars(query)}
    missing = [alert_id for alert_id in request.alert_ids if alert_id not in found]
    if missing:
        raise Unprocessable(f"the project has no alert {missing[0]}", "$.alert_ids")
    alerts = [found[alert_id] for alert_id in request.alert_ids]
    with session.begin_nested():
        for alert in alerts:
            if request.action == "acknowledge":
                lifecycle.acknowledge(alert, user.id, request.note)
            else:
                resolve(session, alert, user)
    return alerts


def assign(session: Session, project_id: int, alert: Alert, assignee_id: int | None) -> None:
    if assignee_id is not None and not projects.writers(session, project_id, assignee_id):
        raise Unprocessable(f"user {assignee_id} is not a member of the project who may triage "
                            "its alerts", "$.assignee_id")
    alert.assignee_id = assignee_id
    alert.updated_at = get_clock().now()


def deliveries(session: Session, alert: Alert) -> list[Notification]:
    return list(session.scalars(select(Notification).where(Notification.alert_id == alert.id)
                                .order_by(Notification.id)))


def list_channels(session: Session, project_id: int) -> list[Channel]:
    return list(session.scalars(select(Channel).where(Channel.project_id == project_id)
                                .order_by(Channel.id)))


def get_channel(session: Session, project_id: int, channel_id: int) -> Channel:
    channel = session.scalar(select(Channel).where(Channel.id == channel_id,
                                                   Channel.project_id == project_id))
    if channel is None:
        raise NotFound(f"no channel {channel_id}")
    return channel


def create_channel(session: Session, project: Project, request: ChannelCreate) -> Channel:
    if request.kind == "email" and not email.configured():
        raise Unprocessable(email.NOT_SET, "$.kind")
    try:
        if request.kind != "email":
            outbound.check_url(request.url, allow_private=project.allow_private_webhooks)
    except outbound.TargetRefused as refused:
        raise Unprocessable(str(refused), "$.url") from None
    channel = Channel(project_id=project.id, created_at=get_clock().now(), **request.model_dump())
    session.add(channel)
    session.flush()
    return channel


def test_channel(project: Project, channel: Channel) -> ChannelTest:
    """Sends a test message now; says how it went (status and time, never the receiver's
    answer, which is no business of the caller)."""
    started = time.monotonic()
    status_code, error = delivery.send(channel.kind, channel.url, {
        "event": "test", "message": f"latlab can reach channel '{channel.name}'."},
        allow_private=project.allow_private_webhooks)
    elapsed_ms = (time.monotonic() - started) * 1000
    ok = status_code is not None and 200 <= status_code < 300
    return ChannelTest(
        channel_id=channel.id, ok=ok, status_code=status_code, elapsed_ms=round(elapsed_ms, 1),
        error=None if ok else error if status_code is None
        else f"{'SMTP' if channel.kind == 'email' else 'HTTP'} {status_code}")

