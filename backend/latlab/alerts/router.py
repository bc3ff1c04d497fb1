from typing import Annotated

from fastapi import APIRouter, Path, status
from sqlalchemy import func, select

from latlab.alerts import delivery, lifecycle
from latlab.alerts.schemas import (
    AlertPage,
    AlertRead,
    ChannelCreate,
    ChannelRead,
    DeliveryRead,
    SlaRuleCreate,
    SlaRuleRead,
    SlaRuleUpdate,
)
from latlab.auth import service as auth_service
from latlab.auth.dependencies import Member, Reader
from latlab.core.clock import get_clock
from latlab.core.db import DbSession
from latlab.core.errors import NotFound
from latlab.models import Alert as AlertModel
from latlab.models import AlertState, Channel, Notification, Severity, SlaRule
from latlab.suites import service as suite_service

router = APIRouter(tags=["alerts"])
Id = Annotated[int, Path(ge=1)]

@router.get("/sla-rules/templates")
def rule_templates(principal: Reader, session: DbSession) -> list[SlaRuleCreate]:
    """Rules the suites suggest (from the seed reports), ready to adapt; `op` is the breach
    condition ("p99 > 2 ms" alerts when the p99 is over 2 ms)."""
    return [SlaRuleCreate(suite=suite, **template.model_dump())
            for suite, template in suite_service.templates(session)]


@router.post("/sla-rules", status_code=status.HTTP_201_CREATED)
def create_rule(body: SlaRuleCreate, user: Member, session: DbSession,
                project: str | None = None) -> SlaRuleRead:
    """Add an SLA rule; it is evaluated on every new run of its suite."""
    rule = SlaRule(project_id=auth_service.get_project(session, project).id,
                   created_at=get_clock().now(), **body.model_dump())
    session.add(rule)
    session.flush()
    return SlaRuleRead.model_validate(rule, from_attributes=True)


@router.get("/sla-rules")
def list_rules(principal: Reader, session: DbSession) -> list[SlaRuleRead]:
    """All SLA rules."""
    return [SlaRuleRead.model_validate(r, from_attributes=True)
            for r in session.scalars(select(SlaRule).order_by(SlaRule.id))]


@router.patch("/sla-rules/{rule_id}")
def update_rule(rule_id: Id, body: SlaRuleUpdate, user: Member,
                session: DbSession) -> SlaRuleRead:
    """Switch a rule on or off, or change its threshold or severity."""
    rule = session.get(SlaRule, rule_id)
    if rule is None:
        raise NotFound(f"no SLA rule {rule_id}")
    for name, value in body.model_dump(exclude_none=True).items():
        setattr(rule, name, value)
    return SlaRuleRead.model_validate(rule, from_attributes=True)


@router.delete("/sla-rules/{rule_id}", status_code=status.HTTP_204_NO_CONTENT)
def delete_rule(rule_id: Id, user: Member, session: DbSession) -> None:
    """Delete a rule (its alerts stay)."""
    rule = session.get(SlaRule, rule_id)
    if rule is None:
        raise NotFound(f"no SLA rule {rule_id}")
    session.delete(rule)


@router.get("/alerts")
def list_alerts(principal: Reader, session: DbSession, state: AlertState | None = None,
                severity: Severity | None = None, limit: int = 100,
                offset: int = 0) -> AlertPage:
    """Alerts, newest first, by state and severity."""
    query = select(AlertModel)
    if state is not None:
        query = query.where(AlertModel.state == state)
    if severity is not None:
        query = query.where(AlertModel.severity == severity)
    total = session.scalar(select(func.count()).select_from(query.subquery())) or 0
    alerts = session.scalars(query.order_by(AlertModel.id.desc()).limit(min(limit, 500))
                             .offset(max(offset, 0)))
    return AlertPage(items=[AlertRead.model_validate(a, from_attributes=True) for a in alerts],
                     total=total)


@router.get("/alerts/{alert_id}")
def get_alert(alert_id: Id, principal: Reader, session: DbSession) -> AlertRead:
    """One alert."""
    return AlertRead.model_validate(lifecycle.get_alert(session, alert_id), from_attributes=True)


@router.get("/alerts/{alert_id}/deliveries")
def alert_deliveries(alert_id: Id, principal: Reader, session: DbSession) -> list[DeliveryRead]:
    """Each message of this alert and how its delivery went."""
    rows = session.scalars(select(Notification).where(Notification.alert_id == alert_id)
                           .order_by(Notification.id))
    return [DeliveryRead.model_validate(n, from_attributes=True) for n in rows]


@router.post("/alerts/{alert_id}/acknowledge")
def acknowledge(alert_id: Id, user: Member, session: DbSession) -> AlertRead:
    """Someone is on it."""
    alert = lifecycle.get_alert(session, alert_id)
    lifecycle.acknowledge(alert, user.id)
    return AlertRead.model_validate(alert, from_attributes=True)


@router.post("/alerts/{alert_id}/resolve")
def resolve(alert_id: Id, user: Member, session: DbSession) -> AlertRead:
    """Close the alert by hand; channels get a resolve message."""
    alert = lifecycle.get_alert(session, alert_id)
    lifecycle.resolve(session, alert, user.id, f"resolved by {user.email}")
    return AlertRead.model_validate(alert, from_attributes=True)


@router.post("/channels", status_code=status.HTTP_201_CREATED)
def create_channel(body: ChannelCreate, user: Member, session: DbSession,
                   project: str | None = None) -> ChannelRead:
    """Add a Slack incoming webhook or a generic webhook; the URL is never shown again."""
    channel = Channel(project_id=auth_service.get_project(session, project).id,
                      created_at=get_clock().now(), **body.model_dump())
    session.add(channel)
    session.flush()
    return ChannelRead.model_validate(channel, from_attributes=True)


@router.get("/channels")
def list_channels(principal: Reader, session: DbSession) -> list[ChannelRead]:
    """Channels (without their URLs)."""
    return [ChannelRead.model_validate(c, from_attributes=True)
            for c in session.scalars(select(Channel).order_by(Channel.id))]


@router.delete("/channels/{channel_id}", status_code=status.HTTP_204_NO_CONTENT)
def delete_channel(channel_id: Id, user: Member, session: DbSession) -> None:
    """Delete a channel."""
    channel = session.get(Channel, channel_id)
    if channel is None:
        raise NotFound(f"no channel {channel_id}")
    session.delete(channel)


@router.post("/channels/{channel_id}/test")
def test_channel(channel_id: Id, user: Member, session: DbSession) -> DeliveryRead:
    """Send a test message now and say how it went."""
    channel = session.get(Channel, channel_id)
    if channel is None:
        raise NotFound(f"no channel {channel_id}")
    status_code, error = delivery.post(channel.kind, channel.url, {
        "event": "test", "message": f"latlab can reach channel '{channel.name}'."})
    ok = status_code is not None and status_code < 300
    return DeliveryRead(id=0, channel_id=channel.id, event="test",
                        status="sent" if ok else "failed", attempts=1,
                        last_error=None if ok else (error or f"HTTP {status_code}"),
                        sent_at=get_clock().now() if ok else None)
