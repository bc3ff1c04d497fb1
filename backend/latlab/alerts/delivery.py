"""Delivering the outbox: Slack incoming webhooks (Block Kit) and generic JSON webhooks,
sent through `latlab.core.outbound` (no private address unless the project allows it).
Every attempt is recorded; 5xx, 429 and network failures are retried with exponential backoff
until the receiver is back, other 4xx fail for good."""

from datetime import timedelta
from typing import Any

import httpx
from sqlalchemy import select
from sqlalchemy.orm import Session

from latlab.alerts.lifecycle import DELIVER
from latlab.core import outbound
from latlab.core.clock import get_clock
from latlab.core.settings import get_settings
from latlab.core.tasks import enqueue
from latlab.models import Channel, DeliveryAttempt, Notification, Project
from latlab.runs.metrics import quantity
from latlab_contract import INGEST_QUEUE

TIMEOUT_S = 5


def deliver(session: Session, notification_id: int) -> float | None:
    """One delivery attempt; returns the seconds to wait before the next one, or None when
    nothing is left to do."""
    notification = session.get(Notification, notification_id, with_for_update=True)
    if notification is None or notification.status != "pending":
        return None
    channel = session.get(Channel, notification.channel_id)
    now = get_clock().now()
    if channel is None:
        notification.status = "failed"
        notification.last_error = "the channel was deleted"
        return None
    project = session.get(Project, channel.project_id)
    status_code, error = post(channel.kind, channel.url, notification.payload,
                              allow_private=project is not None and project.allow_private_webhooks)
    ok = status_code is not None and 200 <= status_code < 300
    session.add(DeliveryAttempt(notification_id=notification.id, attempted_at=now,
                                status_code=status_code, error=error, ok=ok))
    notification.attempts += 1
    if ok:
        notification.status = "sent"
        notification.sent_at = now
        notification.last_error = None
        return None
    notification.last_error = error or f"HTTP {status_code}"
    if status_code is not None and 400 <= status_code < 500 and status_code != 429:
        notification.status = "failed"
        return None
    delay = backoff(notification.attempts)
    notification.next_attempt_at = now + delay
    return delay.total_seconds()


def redeliver_due(session: Session) -> int:
    """Sends again what is still pending and due (a lost retry message loses nothing)."""
    due = session.scalars(select(Notification.id).where(
        Notification.status == "pending",
        Notification.next_attempt_at <= get_clock().now()))
    count = 0
    for notification_id in due:
        enqueue(session, DELIVER, INGEST_QUEUE, notification_id=notification_id)
        count += 1
    return count


def post(kind: str, url: str, payload: dict[str, Any],
         allow_private: bool = False) -> tuple[int | None, str | None]:
    body = ({"text": fallback_text(payload), "blocks": blocks(payload)} if kind == "slack"
            else payload)
    try:
        answer = outbound.post_json(url, body, allow_private=allow_private, timeout=TIMEOUT_S)
        return answer.status_code, None if answer.is_success else answer.text[:500]
    except (OSError, httpx.HTTPError) as error:  # refused, unreachable, timed out
        return None, f"{type(error).__name__}: {error}"


def fallback_text(payload: dict[str, Any]) -> str:
    verb = {"opened": "ALERT", "resolved": "RESOLVED", "test": "TEST"}.get(payload["event"],
                                                                         "ALERT")
    return f"[{verb}] {payload['message']}"


def blocks(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """Block Kit: what happened, value vs threshold and baseline, links."""
    icon = {"opened": ":rotating_light:" if payload.get("severity") == "critical"
            else ":warning:", "resolved": ":white_check_mark:", "test": ":wave:"}
    title = {"opened": f"{payload.get('kind', 'alert')} ({payload.get('severity')})",
             "resolved": "resolved", "test": "test message"}[payload["event"]]
    fields = []
    if payload.get("metric"):
        fields.append(f"*Metric*\n{payload['metric']}")
    if payload.get("value") is not None:
        fields.append(f"*Value*\n{quantity(payload['value'], payload.get('unit'))}")
    if payload.get("threshold") is not None:
        fields.append(f"*Threshold*\n{payload['threshold']:g}")
    if payload.get("baseline_value") is not None:
        fields.append(f"*Baseline*\n{quantity(payload['baseline_value'], payload.get('unit'))}")
        if payload.get("value") is not None and payload["baseline_value"]:
            delta = 100 * (payload["value"] - payload["baseline_value"]) / abs(
                payload["baseline_value"])
            fields.append(f"*Delta vs baseline*\n{delta:+.1f} %")
    links = [f"<{payload[k]}|{label}>" for k, label in (
        ("compare_url", "compare with baseline"), ("run_url", "run"),
        ("confirmation_url", "confirmation run"), ("alert_url", "alert"))
        if payload.get(k)]
    result: list[dict[str, Any]] = [
        {"type": "section", "text": {"type": "mrkdwn", "text":
            f"{icon[payload['event']]} *latlab {title}*\n{payload['message']}"}},
    ]
    if fields:
        result.append({"type": "section",
                       "fields": [{"type": "mrkdwn", "text": f} for f in fields]})
    if payload.get("resolution"):
        result.append({"type": "context", "elements": [
            {"type": "mrkdwn", "text": payload["resolution"]}]})
    if links:
        result.append({"type": "context", "elements": [
            {"type": "mrkdwn", "text": " · ".join(links)}]})
    return result


def backoff(attempts: int) -> timedelta:
    settings = get_settings()
    return timedelta(seconds=min(settings.delivery_backoff_s * 2 ** max(attempts - 1, 0),
                                 settings.delivery_backoff_max_s))
