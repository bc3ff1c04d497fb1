"""An alert's life: opened once per (source, history), updated while its condition holds,
resolved when it clears or by a person; each event stored in the outbox (`Notification`, one
row per channel) in the same transaction and delivered by a Celery task after the commit."""

from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlencode

from sqlalchemy import select
from sqlalchemy.orm import Session

from latlab.annotations import service as annotations
from latlab.core.clock import get_clock
from latlab.core.errors import Conflict
from latlab.core.settings import get_settings
from latlab.core.tasks import enqueue
from latlab.models import Alert, AlertState, Channel, Notification, Run, Severity
from latlab_contract import ALERTS_QUEUE

DELIVER = "alerts.deliver"


def alert_context(run: Run, labels: dict[str, Any], metric: str, unit: str,
             key: str) -> dict[str, Any]:
    return {"project_id": run.project_id, "suite": run.suite, "scenario": run.scenario,
            "series_labels": labels, "metric": metric, "unit": unit, "history_key": key,
            "run_id": run.id}


def raise_or_clear(session: Session, source: str, active: bool, context: dict[str, Any],
                    *, kind: str, severity: Severity, message: str,
                    resolution: str | None = None) -> None:
    """One open alert per (source, history): opened once, updated while the condition
    holds (without a new message), resolved when it clears: a recovery in the context's run,
    unless `resolution` says why."""
    now = get_clock().now()
    alert = session.scalar(select(Alert).where(
        Alert.source == source, Alert.history_key == context["history_key"],
        Alert.state != AlertState.resolved).with_for_update())
    if active and alert is None:
        alert = Alert(source=source, kind=kind, severity=severity, state=AlertState.open,
                      message=message, opened_at=now, updated_at=now, occurrences=1,
                      **{k: context.get(k) for k in (
                          "project_id", "suite", "scenario", "series_labels", "metric", "unit",
                          "history_key", "run_id", "value", "threshold", "baseline_value",
                          "baseline_run_id", "rule_id", "channel_ids", "confirmation_run_id")})
        session.add(alert)
        session.flush()
        notify(session, alert, "opened")
    elif active and alert is not None:
        alert.occurrences += 1
        alert.updated_at = now
        alert.run_id = context["run_id"]
        alert.value = context.get("value")
        alert.baseline_value = context.get("baseline_value")
        alert.message = message
    elif not active and alert is not None:
        if resolution is None:
            resolution = (f"recovered in run {context['run_id']}" if context.get("run_id")
                          else "recovered")
        resolve(session, alert, by_id=None, resolution=resolution)


def resolve(session: Session, alert: Alert, by_id: int | None, resolution: str) -> None:
    if alert.state is AlertState.resolved:
        raise Conflict(f"alert {alert.id} is already resolved")
    now = get_clock().now()
    alert.state = AlertState.resolved
    alert.resolved_at = now
    alert.resolved_by_id = by_id
    alert.resolution = resolution
    alert.updated_at = now
    notify(session, alert, "resolved")


def acknowledge(alert: Alert, by_id: int, note: str | None = None) -> None:
    """Someone is on it: no message (the channels hear again when it resolves, note
    included)."""
    if alert.state is not AlertState.open:
        raise Conflict(f"alert {alert.id} is {alert.state}, not open")
    alert.state = AlertState.acknowledged
    alert.acknowledged_at = get_clock().now()
    alert.acknowledged_by_id = by_id
    alert.note = note
    alert.updated_at = alert.acknowledged_at


def notify(session: Session, alert: Alert, event: str, message: str | None = None
           ) -> list[Notification]:
    """Stores one outbox row per channel (the alert's, else all of its project's) and sends
    their delivery after the commit; a muted channel's row is kept, marked `muted`.
    `message`: what this event says, where it is not the alert's own (a bisection's end)."""
    query = select(Channel).where(Channel.project_id == alert.project_id)
    if alert.channel_ids:
        query = query.where(Channel.id.in_(alert.channel_ids))
    now = get_clock().now()
    said = payload(alert, event, message)
    run = None if alert.run_id is None or event != "opened" else session.get(Run, alert.run_id)
    if run is not None:
        said["annotations"] = [
            {"at": a.at.isoformat(), "text": a.text, "link": a.link, "kind": a.kind}
            for a in annotations.before_run(session, run)]
    rows = []
    for channel in session.scalars(query):
        # A digest's message waits for the digest hour; the sweep of due messages
        # (`delivery.redeliver_due`) sends it then, with the others of its channel.
        row = Notification(alert_id=alert.id, channel_id=channel.id, event=event,
                           payload=said,
                           status="muted" if channel.muted else "pending", attempts=0,
                           created_at=now,
                           next_attempt_at=next_digest(now) if channel.digest else now)
        session.add(row)
        rows.append(row)
    session.flush()
    for row in rows:
        if row.status == "pending" and row.next_attempt_at == now:
            enqueue(session, DELIVER, ALERTS_QUEUE, notification_id=row.id)
    return rows


def next_digest(now: datetime) -> datetime:
    """The next digest hour (LATLAB_DIGEST_HOUR, UTC) after `now`."""
    at = now.astimezone(UTC).replace(hour=get_settings().digest_hour, minute=0, second=0,
                                     microsecond=0)
    return at if at > now else at + timedelta(days=1)


def payload(alert: Alert, event: str, message: str | None = None) -> dict[str, Any]:
    """What the message says, frozen when the event happens."""
    base = get_settings().public_url.rstrip("/")
    compare_url = (f"{base}/compare?baseline={alert.baseline_run_id}&candidate={alert.run_id}"
                   if alert.baseline_run_id and alert.run_id else None)
    return {
        "event": event, "alert_id": alert.id, "kind": alert.kind,
        "severity": alert.severity.value, "suite": alert.suite, "scenario": alert.scenario,
        "series": alert.series_labels, "metric": alert.metric, "unit": alert.unit,
        "value": alert.value, "threshold": alert.threshold,
        "baseline_value": alert.baseline_value, "message": message or alert.message,
        "run_url": f"{base}/runs/{alert.run_id}" if alert.run_id else None,
        "compare_url": compare_url, "alert_url": f"{base}/alerts/{alert.id}",
        "confirmation_url": (f"{base}/runs/{alert.confirmation_run_id}"
                             if alert.confirmation_run_id else None),
        "profiles_url": (profiles_url(base, alert.confirmation_run_id)
                         if alert.confirmation_run_id else None),
        "resolution": alert.resolution, "note": alert.note,
        "bisection_url": (f"{base}/bisections/{alert.bisection_id}" if alert.bisection_id
                          else None),
    }


def profiles_url(base: str, confirmation_run_id: int) -> str:
    """The differential flame graphs of a confirmation: the baseline's version against the
    candidate's, both profiled in the same run."""
    query = urlencode({"baseline": confirmation_run_id, "candidate": confirmation_run_id,
                       "baseline_labels": '{"variant":"baseline"}',
                       "candidate_labels": '{"variant":"candidate"}'})
    return f"{base}/compare/profiles?{query}"


def series_name(run: Run, labels: dict[str, Any]) -> str:
    named = ", ".join(f"{k}={v}" for k, v in sorted(labels.items()))
    return f"{run.suite}/{run.scenario}" + (f" [{named}]" if named else "")

