from typing import Annotated

from fastapi import APIRouter, Depends, status

from latlab.alerts import delivery, lifecycle, service
from latlab.alerts.schemas import (
    AlertAcknowledge,
    AlertAssign,
    AlertBulkAction,
    AlertPage,
    AlertRead,
    Assignee,
    ChannelCreate,
    ChannelRead,
    ChannelTest,
    ChannelUpdate,
    DeliveryRead,
    SlaRuleCreate,
    SlaRuleRead,
    SlaRuleUpdate,
)
from latlab.auth.dependencies import Member, Reader
from latlab.core.db import DbSession
from latlab.core.errors import Conflict, NotFound
from latlab.core.openapi import documented, raises
from latlab.core.params import Id, IdQuery, Limit, Offset
from latlab.core.routing import ApiRoute
from latlab.models import Alert, AlertState, Channel, Severity, SlaRule
from latlab.projects import service as projects
from latlab.suites import service as suite_service

router = APIRouter(tags=["alerts"], route_class=ApiRoute)


@raises(NotFound)
def get_rule(rule_id: Id, principal: Reader, session: DbSession) -> SlaRule:
    return service.get_rule(session, principal.project_id, rule_id)


@raises(NotFound)
def get_alert(alert_id: Id, principal: Reader, session: DbSession) -> Alert:
    return service.get_alert(session, principal.project_id, alert_id)


@raises(NotFound)
def get_channel(channel_id: Id, principal: Reader, session: DbSession) -> Channel:
    return service.get_channel(session, principal.project_id, channel_id)


RuleFromPath = Annotated[SlaRule, Depends(get_rule)]
AlertFromPath = Annotated[Alert, Depends(get_alert)]
ChannelFromPath = Annotated[Channel, Depends(get_channel)]


@router.get("/sla-rules/templates")
def rule_templates(principal: Reader, session: DbSession) -> list[SlaRuleCreate]:
    """Rules the suites suggest (from the seed reports), ready to adapt; `op` is the breach
    condition ("p99 > 2 ms" alerts when the p99 is over 2 ms)."""
    return [SlaRuleCreate(suite=suite, **template.model_dump())
            for suite, template in suite_service.templates(session)]


@router.post("/sla-rules", status_code=status.HTTP_201_CREATED, responses=documented(Conflict))
def create_rule(body: SlaRuleCreate, principal: Member, session: DbSession) -> SlaRuleRead:
    """Add an SLA rule to the project; it is evaluated on every new run of its suite."""
    rule = service.create_rule(session, projects.writable(principal.project), body)
    return SlaRuleRead.model_validate(rule, from_attributes=True)


@router.get("/sla-rules")
def list_rules(principal: Reader, session: DbSession) -> list[SlaRuleRead]:
    """The project's SLA rules."""
    return [SlaRuleRead.model_validate(r, from_attributes=True)
            for r in service.list_rules(session, principal.project_id)]


@router.patch("/sla-rules/{rule_id}")
def update_rule(rule: RuleFromPath, body: SlaRuleUpdate, principal: Member) -> SlaRuleRead:
    """Switch a rule on or off, or change its threshold or severity."""
    return SlaRuleRead.model_validate(service.update_rule(rule, body), from_attributes=True)


@router.delete("/sla-rules/{rule_id}", status_code=status.HTTP_204_NO_CONTENT)
def delete_rule(rule: RuleFromPath, principal: Member, session: DbSession) -> None:
    """Delete a rule; its alerts still open are resolved, saying so."""
    service.delete_rule(session, rule, principal.user)


@router.get("/alerts")
def list_alerts(principal: Reader, session: DbSession, state: AlertState | None = None,
                severity: Severity | None = None, assignee_id: IdQuery | None = None,
                limit: Limit = 100, offset: Offset = 0) -> AlertPage:
    """The project's alerts, newest first, by state, severity and assignee."""
    alerts, total = service.list_alerts(session, principal.project_id, state, severity,
                                        assignee_id, limit, offset)
    return AlertPage(items=[alert_read(a) for a in alerts], total=total)


@router.get("/alerts/assignees")
def list_assignees(principal: Reader, session: DbSession) -> list[Assignee]:
    """Who may be assigned the project's alerts: its members and the lab's admins."""
    return [Assignee.model_validate(u) for u in projects.writers(session, principal.project_id)]


@router.post("/alerts/bulk", responses=documented(Conflict))
def bulk_action(body: AlertBulkAction, principal: Member, session: DbSession) -> list[AlertRead]:
    """Acknowledge or resolve several alerts at once: all of them, or none if one is not the
    project's or not in a state for it."""
    alerts = service.act_on_many(session, principal.project_id, body, principal.signed_in)
    return [alert_read(a) for a in alerts]


@router.get("/alerts/{alert_id}")
def get_one_alert(alert: AlertFromPath) -> AlertRead:
    """One alert."""
    return alert_read(alert)


@router.get("/alerts/{alert_id}/deliveries")
def alert_deliveries(alert: AlertFromPath, session: DbSession) -> list[DeliveryRead]:
    """Each message of this alert and how its delivery went."""
    return [DeliveryRead.model_validate(n, from_attributes=True)
            for n in service.deliveries(session, alert)]


@router.post("/alerts/{alert_id}/acknowledge", responses=documented(Conflict))
def acknowledge(alert: AlertFromPath, principal: Member,
                body: AlertAcknowledge | None = None) -> AlertRead:
    """Someone is on it, with an optional note."""
    lifecycle.acknowledge(alert, principal.signed_in.id, body.note if body else None)
    return alert_read(alert)


@router.post("/alerts/{alert_id}/resolve", responses=documented(Conflict))
def resolve(alert: AlertFromPath, principal: Member, session: DbSession) -> AlertRead:
    """Close the alert by hand; channels get a resolve message."""
    service.resolve(session, alert, principal.signed_in)
    return alert_read(alert)


@router.put("/alerts/{alert_id}/assignee")
def assign(alert: AlertFromPath, body: AlertAssign, principal: Member,
           session: DbSession) -> AlertRead:
    """Give the alert to a user of the project, or to nobody."""
    service.assign(session, principal.project_id, alert, body.assignee_id)
    return alert_read(alert)


@router.post("/channels", status_code=status.HTTP_201_CREATED, responses=documented(Conflict))
def create_channel(body: ChannelCreate, principal: Member, session: DbSession) -> ChannelRead:
    """Add a Slack incoming webhook or a generic webhook to the project; the URL is never
    shown again."""
    channel = service.create_channel(session, projects.writable(principal.project), body)
    return channel_read(channel)


@router.get("/channels")
def list_channels(principal: Reader, session: DbSession) -> list[ChannelRead]:
    """The project's channels (without their URLs) and how their deliveries go."""
    return [channel_read(c) for c in service.list_channels(session, principal.project_id)]


@router.patch("/channels/{channel_id}")
def update_channel(channel: ChannelFromPath, body: ChannelUpdate, principal: Member,
                   session: DbSession) -> ChannelRead:
    """Mute a channel (it is sent nothing; its waiting messages are kept as muted) or unmute
    it."""
    delivery.mute(session, channel, body.muted)
    return channel_read(channel)


@router.delete("/channels/{channel_id}", status_code=status.HTTP_204_NO_CONTENT)
def delete_channel(channel: ChannelFromPath, principal: Member, session: DbSession) -> None:
    """Delete a channel."""
    session.delete(channel)


@router.post("/channels/{channel_id}/test")
def test_channel(channel: ChannelFromPath, principal: Member) -> ChannelTest:
    """Send a test message now; answers the receiver's status and the time it took."""
    return service.test_channel(principal.project, channel)


def channel_read(channel: Channel) -> ChannelRead:
    return ChannelRead.model_validate(
        {**{k: getattr(channel, k) for k in ChannelRead.model_fields if k != "status"},
         "status": delivery.channel_status(channel)})


def alert_read(alert: Alert) -> AlertRead:
    return AlertRead.model_validate(alert, from_attributes=True)
