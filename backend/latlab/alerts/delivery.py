"""Delivering the alert outbox: Slack incoming webhooks (Block Kit), generic JSON webhooks
and email (`alerts.email`), on the `alerts` queue and worker, so a slow or dead receiver
delays nothing else in the lab. Every POST goes through `latlab.core.outbound` (no private
address unless the project allows it). A digest channel's messages wait for the day's digest
hour and go as one (each keeps its own attempts).

A message has one chain of attempts: each `deliver` task makes one attempt if the message is
due and queues the next one with its countdown; a duplicate task finds it not due, or locked,
and does nothing. Backoff is per channel: after a failure the channel is left alone until its
`retry_at` (exponential, capped), its other messages wait for that moment instead of each
trying on its own, and the first success sends them all. A channel with FAILING_AFTER failures
in a row is `failing` (the api and the dashboard show it); a muted channel is sent nothing.
Every attempt is recorded before it is made (see `deliver`), so a message sent again after a
kill shows as two attempts, and says it may repeat; 5xx, 429 and network failures are retried
until the receiver is back, other 4xx fail for good; every attempt is bounded by
`delivery_timeout_s`."""

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import httpx
from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from latlab.alerts import email
from latlab.alerts.lifecycle import DELIVER
from latlab.core import outbound
from latlab.core.clock import get_clock
from latlab.core.settings import get_settings
from latlab.core.tasks import enqueue
from latlab.models import Channel, DeliveryAttempt, Notification, Project
from latlab_contract import ALERTS_QUEUE
from latlab_contract.vocabulary import quantity

FAILING_AFTER = 3
# A message still due this long after its time lost its task: `redeliver_due` sends it again.
LOST_AFTER = timedelta(seconds=30)
# The `deliver` task's time limit; an attempt holds its message this long.
ATTEMPT_LIMIT_S = 60
CUT_OFF = "cut off: no answer was recorded (the worker stopped while it sent)"


@dataclass(frozen=True)
class _Attempt:
    """An attempt recorded and committed, about to be made: of one message, or of a digest's
    (an attempt of each, sent as one)."""

    ids: tuple[int, ...]
    notification_ids: tuple[int, ...]
    channel_id: int
    kind: str
    url: str
    allow_private: bool
    payload: dict[str, Any]


def deliver(session: Session, notification_id: int, redelivered: bool = False) -> None:
    """One delivery attempt if the message is due, in three steps, each committed. First the
    attempt is recorded as cut off, counted, and holds its message for the task's time limit
    (a duplicate task finds it not due); then the POST, holding no lock and no database
    connection; then its answer replaces the record. A worker killed mid-send leaves the
    attempt cut off, and the next one (its redelivered task, which passes the hold, or the
    sweep's) is counted as another: a repeat shows. Commits `session`."""
    attempt = _begin(session, notification_id, redelivered)
    session.commit()
    if attempt is None:
        return
    status_code, error = send(attempt.kind, attempt.url, attempt.payload,
                              allow_private=attempt.allow_private)
    _record(session, attempt, status_code, error)
    session.commit()


def _begin(session: Session, notification_id: int, redelivered: bool) -> _Attempt | None:
    now = get_clock().now()
    notification = session.scalar(
        select(Notification).where(Notification.id == notification_id,
                                   Notification.status == "pending")
        .with_for_update(skip_locked=True).execution_options(populate_existing=True))
    if notification is None or (notification.next_attempt_at > now and not redelivered):
        return None
    channel = session.get(Channel, notification.channel_id, populate_existing=True)
    if channel is None:
        notification.status = "failed"
        notification.last_error = "the channel was deleted"
        return None
    if channel.muted:
        notification.status = "muted"
        return None
    if channel.retry_at is not None and channel.retry_at > now:
        _schedule(session, notification, channel.retry_at, now)  # wait for the channel
        return None
    # A digest sends every message of its channel that is due, each with an attempt.
    sent = [notification] + ([] if not channel.digest else list(session.scalars(
        select(Notification).where(
            Notification.channel_id == channel.id, Notification.status == "pending",
            Notification.next_attempt_at <= now, Notification.id != notification.id)
        .order_by(Notification.id).with_for_update(skip_locked=True)
        .execution_options(populate_existing=True))))
    attempts, payloads = [], []
    for each in sent:
        first_at = session.scalar(select(func.min(DeliveryAttempt.attempted_at)).where(
            DeliveryAttempt.notification_id == each.id))
        attempt = DeliveryAttempt(notification_id=each.id, attempted_at=now,
                                  status_code=None, error=CUT_OFF, ok=False)
        session.add(attempt)
        attempts.append(attempt)
        each.attempts += 1
        each.next_attempt_at = now + timedelta(seconds=ATTEMPT_LIMIT_S)
        payloads.append({**each.payload, "attempt": each.attempts,
                         "may_repeat": first_at and _may_repeat(each, first_at)})
    session.flush()
    project = session.get(Project, channel.project_id)
    key = f"<latlab-{'-'.join(str(each.id) for each in sent[:8])}@{_domain()}>"
    payload = (payloads[0] if not channel.digest
               else {"event": "digest", "messages": payloads, "day": now.date().isoformat()})
    return _Attempt(tuple(a.id for a in attempts), tuple(each.id for each in sent), channel.id,
                    channel.kind, channel.url,
                    project is not None and project.allow_private_webhooks,
                    {**payload, "message_key": key})


def _may_repeat(notification: Notification, first_at: datetime) -> str:
    """What tells a reader of a message sent again that they may have seen it (a cut-off
    attempt may have reached them; Slack does not de-duplicate)."""
    return (f"Attempt {notification.attempts} of this message (alert "
            f"{notification.payload.get('alert_id')}): it may repeat the one first sent at "
            f"{first_at:%Y-%m-%d %H:%M:%S} UTC.")


def _record(session: Session, attempt: _Attempt, status_code: int | None,
            error: str | None) -> None:
    """The attempt's answer, for each message it sent. The channel is locked before the
    messages, as `mute` does."""
    done = get_clock().now()
    channel = session.get(Channel, attempt.channel_id, with_for_update=True,
                          populate_existing=True)
    if channel is None:  # deleted meanwhile
        return
    ok = status_code is not None and 200 <= status_code < 300
    failed = not ok and status_code is not None and permanent(channel.kind, status_code)
    if ok and channel.consecutive_failures:
        _recovered(session, channel, done)
    elif not ok:
        channel.last_error = error or f"HTTP {status_code}"
        channel.consecutive_failures += 1
        channel.failing_since = channel.failing_since or done
        if not failed and not channel.muted:
            channel.retry_at = done + backoff(channel.consecutive_failures)
    for attempt_id, notification_id in zip(attempt.ids, attempt.notification_ids, strict=True):
        notification = session.get(Notification, notification_id, with_for_update=True,
                                   populate_existing=True)
        record = session.get(DeliveryAttempt, attempt_id)
        if notification is None or record is None:  # deleted meanwhile
            continue
        record.status_code, record.error, record.ok = status_code, error, ok
        if ok:
            notification.status = "sent"
            notification.sent_at = done
            notification.last_error = None
            continue
        notification.last_error = channel.last_error
        if failed:
            notification.status = "failed"
        elif channel.muted:  # muted while this attempt was posting: no next attempt
            notification.status = "muted"
        else:
            assert channel.retry_at is not None
            _schedule(session, notification, channel.retry_at, done)


def permanent(kind: str, status_code: int) -> bool:
    """An answer the same message will get again: a webhook's 4xx but 429, an SMTP 5xx."""
    if kind == "email":
        return email.permanent(status_code)
    return 400 <= status_code < 500 and status_code != 429


def redeliver_due(session: Session) -> int:
    """Sends again the pending messages whose task was lost (due for LOST_AFTER already)."""
    due = session.scalars(select(Notification.id).where(
        Notification.status == "pending",
        Notification.next_attempt_at <= get_clock().now() - LOST_AFTER))
    count = 0
    for notification_id in due:
        enqueue(session, DELIVER, ALERTS_QUEUE, notification_id=notification_id)
        count += 1
    return count


def mute(session: Session, channel: Channel, muted: bool) -> None:
    """A muted channel is sent nothing: its waiting messages are kept, marked `muted`. A
    message a delivery has locked (deciding whether to send it) is skipped, not waited for;
    that delivery, or the answer of an attempt in flight, finds the channel muted and marks
    the message muted itself, unless the attempt succeeded."""
    channel.muted = muted
    if muted:
        waiting = select(Notification.id).where(
            Notification.channel_id == channel.id, Notification.status == "pending"
        ).with_for_update(skip_locked=True)
        session.execute(update(Notification).where(Notification.id.in_(waiting))
                        .values(status="muted").execution_options(synchronize_session=False))


def channel_status(channel: Channel) -> str:
    if channel.muted:
        return "muted"
    return "failing" if channel.consecutive_failures >= FAILING_AFTER else "ok"


def _schedule(session: Session, notification: Notification, at: datetime,
              now: datetime) -> None:
    notification.next_attempt_at = at
    enqueue(session, DELIVER, ALERTS_QUEUE, notification_id=notification.id,
            options={"countdown": max((at - now).total_seconds(), 0.0)})


def _recovered(session: Session, channel: Channel, now: datetime) -> None:
    """The channel answers again: its waiting messages go now."""
    channel.consecutive_failures = 0
    channel.failing_since = None
    channel.retry_at = None
    channel.last_error = None
    waiting = session.scalars(select(Notification).where(
        Notification.channel_id == channel.id, Notification.status == "pending",
        Notification.next_attempt_at > now))
    for other in waiting:
        _schedule(session, other, now, now)


def send(kind: str, url: str, payload: dict[str, Any],
         allow_private: bool = False) -> tuple[int | None, str | None]:
    """One message: a POST, or a mail, bounded by `delivery_timeout_s` (connect, and each
    read or write)."""
    if kind == "email":
        return _mail(url, payload)
    body = ({"text": fallback_text(payload), "blocks": blocks(payload)} if kind == "slack"
            else payload)
    try:
        answer = outbound.post_json(url, body, allow_private=allow_private,
                                    timeout=get_settings().delivery_timeout_s)
    except (OSError, httpx.HTTPError) as error:  # refused, unreachable, timed out
        return None, f"{type(error).__name__}: {error}"
    status = answer.status_code
    return status, None if 200 <= status < 300 else f"HTTP {status}: {answer.text[:500]}"


def _mail(url: str, payload: dict[str, Any]) -> tuple[int | None, str | None]:
    key = payload.get("message_key") or f"<latlab-{payload['event']}@{_domain()}>"
    if payload["event"] != "digest":
        return email.send(url, fallback_text(payload), email.plain(blocks(payload)), key)
    messages = payload["messages"]
    subject = f"[latlab] {len(messages)} alert message{'s' * (len(messages) != 1)} of " \
              f"{payload['day']}"
    text = "\n".join(f"{fallback_text(message)}\n{email.plain(blocks(message))}"
                     for message in messages)
    return email.send(url, subject, text, key)


def _domain() -> str:
    """The lab's host name, for Message-IDs."""
    return urlsplit(get_settings().public_url).hostname or "latlab"


def fallback_text(payload: dict[str, Any]) -> str:
    verb = {"opened": "ALERT", "resolved": "RESOLVED", "test": "TEST",
            "bisected": "BISECTED"}.get(payload["event"], "ALERT")
    repeat = f" ({payload['may_repeat']})" if payload.get("may_repeat") else ""
    return f"[{verb}] {payload['message']}{repeat}"


def blocks(payload: dict[str, Any]) -> list[dict[str, Any]]:
    """Block Kit: what happened, value vs threshold and baseline, links."""
    icon = {"opened": ":rotating_light:" if payload.get("severity") == "critical"
            else ":warning:", "resolved": ":white_check_mark:", "test": ":wave:",
            "bisected": ":mag:"}
    title = {"opened": f"{payload.get('kind', 'alert')} ({payload.get('severity')})",
             "resolved": "resolved", "test": "test message",
             "bisected": "bisection of a regression"}[payload["event"]]
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
        ("confirmation_url", "confirmation run"),
        ("profiles_url", "where the time went (flame graphs)"), ("bisection_url", "bisection"),
        ("alert_url", "alert"))
        if payload.get(k)]
    result: list[dict[str, Any]] = [
        {"type": "section", "text": {"type": "mrkdwn", "text":
            f"{icon[payload['event']]} *latlab {title}*\n{payload['message']}"}},
    ]
    if fields:
        result.append({"type": "section",
                       "fields": [{"type": "mrkdwn", "text": f} for f in fields]})
    remarks = (payload.get("resolution"), payload.get("note") and f"Note: {payload['note']}",
               payload.get("may_repeat"))
    for remark in filter(None, remarks):
        result.append({"type": "context", "elements": [{"type": "mrkdwn", "text": remark}]})
    if payload.get("annotations"):
        marked = "; ".join(f"{a['at'][:16].replace('T', ' ')} UTC {a['text']}"
                           + (f" (<{a['link']}|link>)" if a.get("link") else "")
                           for a in payload["annotations"])
        result.append({"type": "context", "elements": [
            {"type": "mrkdwn", "text": f"Annotated in the day before the run: {marked}"}]})
    if links:
        result.append({"type": "context", "elements": [
            {"type": "mrkdwn", "text": " · ".join(links)}]})
    return result


def backoff(attempts: int) -> timedelta:
    settings = get_settings()
    return timedelta(seconds=min(settings.delivery_backoff_s * 2 ** max(attempts - 1, 0),
                                 settings.delivery_backoff_max_s))
