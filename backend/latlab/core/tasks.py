"""Messages to Celery leave through a transactional outbox.

`enqueue` (a task) and `revoke` (stop a running task) write an `OutboxMessage` row in the
caller's transaction: a rollback drops it, a commit keeps it, so a stored run or job never
loses its follow-up and no task ever refers to an uncommitted row. Right after the commit the
rows are sent; a broker that is down or frozen costs at most its socket timeouts, and what
could not be sent stays for `relay` (beat, every few seconds), which sends it once the broker is
back. Delivery is at least once: tasks re-read the database and ignore what is done. The api
never imports worker code: tasks are sent by name.
"""

import logging
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from celery import Celery
from sqlalchemy import delete, event, inspect, select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session

from latlab.core.clock import get_clock
from latlab.core.db import get_sessionmaker
from latlab.core.settings import get_settings
from latlab.models import OutboxMessage
from latlab_contract.broker import BROKER_ERRORS, CELERY_DEFAULTS

log = logging.getLogger(__name__)
REVOKE = "celery.control.revoke"
# The relay leaves fresh rows to the sender that wrote them.
RELAY_AFTER = timedelta(seconds=2)
KEEP_SENT = timedelta(hours=1)
_PENDING = "latlab_outbox"


@lru_cache
def get_sender() -> Celery:
    """A Celery client used only to send tasks by name and control messages."""
    sender = Celery("latlab-sender", broker=get_settings().redis_url, set_as_current=False)
    sender.conf.update(CELERY_DEFAULTS)
    return sender


def enqueue(session: Session, name: str, queue: str, task_id: str | None = None,
            options: dict[str, Any] | None = None, **kwargs: Any) -> None:
    """Sends task `name` to `queue` once the transaction commits. `options` go to Celery's
    send_task (soft_time_limit, time_limit, countdown)."""
    message = OutboxMessage(task=name, queue=queue, task_id=task_id, kwargs=kwargs,
                            options=options or {}, created_at=get_clock().now())
    session.add(message)
    session.info.setdefault(_PENDING, []).append(message)


def revoke(session: Session, task_id: str, signal: str = "SIGTERM") -> None:
    """Stops task `task_id` wherever it runs (its process group gets `signal`), once the
    transaction commits."""
    enqueue(session, REVOKE, "", task_id=task_id, options={"signal": signal})


def left_at(session: Session, task_id: str, default: datetime) -> datetime | None:
    """When the message of `task_id` left for the broker: None while it waits in the outbox,
    `default` when there is no such message (sent long ago)."""
    message = session.scalar(select(OutboxMessage).where(OutboxMessage.task_id == task_id)
                             .order_by(OutboxMessage.id.desc()).limit(1))
    return default if message is None else message.sent_at


def relay(ids: list[int] | None = None) -> int:
    """Sends unsent messages (`ids`, or every one older than RELAY_AFTER), oldest first;
    stops at the first broker error, leaving the rest for the next call. Returns how many
    left."""
    now = get_clock().now()
    query = (select(OutboxMessage).where(OutboxMessage.sent_at.is_(None))
             .order_by(OutboxMessage.id).limit(1000).with_for_update(skip_locked=True))
    query = (query.where(OutboxMessage.id.in_(ids)) if ids is not None
             else query.where(OutboxMessage.created_at <= now - RELAY_AFTER))
    sent = 0
    with get_sessionmaker()() as session, session.begin():
        for message in session.scalars(query):
            try:
                _send(message)
            except BROKER_ERRORS as error:
                log.warning("broker unreachable (%s); unsent messages wait in the outbox",
                            error)
                break
            message.sent_at = now
            sent += 1
        if ids is None:
            session.execute(delete(OutboxMessage).where(OutboxMessage.sent_at < now - KEEP_SENT))
    return sent


def _send(message: OutboxMessage) -> None:
    sender = get_sender()
    if message.task == REVOKE:
        assert message.task_id is not None
        sender.control.revoke(message.task_id, terminate=True,
                              signal=message.options.get("signal", "SIGTERM"))
    else:
        # No publish retries here: an unsent message is the relay's to send again.
        sender.send_task(message.task, kwargs=message.kwargs, queue=message.queue,
                         task_id=message.task_id, retry=False, **message.options)


@event.listens_for(Session, "after_commit")
def _send_after_commit(session: Session) -> None:
    pending: list[OutboxMessage] = session.info.pop(_PENDING, [])
    ids = [key[0] for key in (inspect(m).identity for m in pending) if key is not None]
    if not ids:
        return
    try:
        relay(ids)
    except SQLAlchemyError as error:  # the commit stands; the relay sends them later
        log.warning("outbox: sending after commit failed (%s); the relay will", error)


@event.listens_for(Session, "after_rollback")
def _drop_after_rollback(session: Session) -> None:
    session.info.pop(_PENDING, None)
