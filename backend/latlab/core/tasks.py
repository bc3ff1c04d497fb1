"""Messages to Celery leave through a transactional outbox.

`enqueue` (a task) and `expect` (a Redis key runners read: which attempt of a job the lab
expects, `latlab_contract.attempt_key`)
write an `OutboxMessage` row in the caller's transaction: a rollback drops it, a commit keeps
it, so a stored run or job never loses its follow-up and no task ever refers to an
uncommitted row. Right after the commit, once the session has given its connection back to
the pool, the rows are sent: a broker that is down or frozen costs the caller at most the
sender's short socket timeouts and never holds a database connection meanwhile (a frozen
Redis used to fill the api's pool). What could not be sent stays for `relay` (beat, every few
seconds), which sends it once the broker is back. Delivery is at least once: tasks re-read
the database and ignore what is done. The api never imports worker code: tasks are sent by
name.
"""

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

from celery import Celery
from sqlalchemy import delete, event, inspect, select, update
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, SessionTransaction

from latlab.core.clock import get_clock
from latlab.core.db import get_sessionmaker
from latlab.core.kv import redis_client
from latlab.core.settings import get_settings
from latlab.models import OutboxMessage
from latlab_contract.broker import BROKER_ERRORS, CELERY_DEFAULTS, TRANSPORT_OPTIONS

log = logging.getLogger(__name__)
EXPECT = "redis.set"
# A key `expect` sets outlives any attempt (the longest job time limit is hours) and is
# deleted when the attempt ends; the expiry only bounds what a lost deletion leaves.
EXPECT_TTL_S = 2 * 86400
# The relay leaves fresh rows to the sender that wrote them, which gives up on a broker that
# does not answer well before then.
RELAY_AFTER = timedelta(seconds=2)
SEND_TIMEOUT_S = 1.0
KEEP_SENT = timedelta(hours=1)
_PENDING = "latlab_outbox"
_COMMITTED = "latlab_outbox_committed"


@lru_cache
def get_sender() -> Celery:
    """A Celery client used only to send tasks by name and control messages."""
    sender = Celery("latlab-sender", broker=get_settings().redis_url, set_as_current=False)
    sender.conf.update(CELERY_DEFAULTS, broker_connection_timeout=SEND_TIMEOUT_S,
                       broker_use_ssl=get_settings().broker_tls,
                       broker_transport_options={
                           **TRANSPORT_OPTIONS, "socket_timeout": SEND_TIMEOUT_S,
                           "socket_connect_timeout": SEND_TIMEOUT_S})
    return sender


@dataclass(frozen=True)
class _Message:
    """What a committed `OutboxMessage` sends, read before its session lets it go."""

    id: int
    task: str
    queue: str | None
    task_id: str | None
    kwargs: dict[str, Any]
    options: dict[str, Any]

    @classmethod
    def of(cls, row: OutboxMessage) -> "_Message":
        return cls(row.id, row.task, row.queue, row.task_id, row.kwargs, row.options)


def enqueue(session: Session, name: str, queue: str, task_id: str | None = None,
            options: dict[str, Any] | None = None, **kwargs: Any) -> None:
    """Sends task `name` to `queue` once the transaction commits. `options` go to Celery's
    send_task (soft_time_limit, time_limit, countdown)."""
    message = OutboxMessage(task=name, queue=queue, task_id=task_id, kwargs=kwargs,
                            options=options or {}, created_at=get_clock().now())
    session.add(message)
    session.info.setdefault(_PENDING, []).append(message)


def expect(session: Session, key: str, value: str | None) -> None:
    """Sets (None: deletes) Redis key `key` once the transaction commits, in order with the
    tasks around it: what runners read of the lab's state (`latlab_contract.attempt_key`)."""
    enqueue(session, EXPECT, "", key=key, value=value)


def left_at(session: Session, task_id: str, default: datetime) -> datetime | None:
    """When the message of `task_id` left for the broker: None while it waits in the outbox,
    `default` when there is no such message (sent long ago)."""
    message = session.scalar(select(OutboxMessage).where(OutboxMessage.task_id == task_id)
                             .order_by(OutboxMessage.id.desc()).limit(1))
    return default if message is None else message.sent_at


def withdraw(session: Session, task_id: str) -> bool:
    """Deletes the message of `task_id` that waits in the outbox, unless the relay is sending
    it right now; says whether it did (a withdrawn message never leaves)."""
    message = session.scalar(select(OutboxMessage).where(
        OutboxMessage.task_id == task_id, OutboxMessage.sent_at.is_(None))
        .with_for_update(skip_locked=True).limit(1))
    if message is None:
        return False
    session.delete(message)
    return True


def relay() -> int:
    """Sends the unsent messages older than RELAY_AFTER, oldest first; stops at the first
    broker error, leaving the rest for the next call. Returns how many left."""
    now = get_clock().now()
    query = (select(OutboxMessage).where(OutboxMessage.sent_at.is_(None),
                                         OutboxMessage.created_at <= now - RELAY_AFTER)
             .order_by(OutboxMessage.id).limit(1000).with_for_update(skip_locked=True))
    with get_sessionmaker()() as session, session.begin():
        rows = list(session.scalars(query))
        sent = _send_all([_Message.of(row) for row in rows])
        for row in rows[:len(sent)]:
            row.sent_at = now
        session.execute(delete(OutboxMessage).where(OutboxMessage.sent_at < now - KEEP_SENT))
    return len(sent)


def _send_all(messages: list[_Message]) -> list[_Message]:
    """Sends `messages` in order until the broker fails; returns those sent."""
    for count, message in enumerate(messages):
        try:
            _send(message)
        except BROKER_ERRORS as error:
            log.warning("broker unreachable (%s); unsent messages wait in the outbox", error)
            return messages[:count]
    return messages


def _send(message: _Message) -> None:
    sender = get_sender()
    if message.task == EXPECT:
        key, value = message.kwargs["key"], message.kwargs["value"]
        with redis_client() as client:  # the broker's Redis, with the sender's timeouts
            if value is None:
                client.delete(key)
            else:
                client.set(key, value, ex=EXPECT_TTL_S)
    else:
        # No publish retries here: an unsent message is the relay's to send again.
        sender.send_task(message.task, kwargs=message.kwargs, queue=message.queue,
                         task_id=message.task_id, retry=False, **message.options)


@event.listens_for(Session, "after_commit")
def _take_committed(session: Session) -> None:
    if session.in_nested_transaction():  # a savepoint: its messages leave with the whole
        return
    pending: list[OutboxMessage] = session.info.pop(_PENDING, [])
    session.info[_COMMITTED] = [_Message.of(m) for m in pending
                                if inspect(m).identity is not None]


@event.listens_for(Session, "after_transaction_end")
def _send_committed(session: Session, transaction: SessionTransaction) -> None:
    """Runs once the committed transaction has given its connection back: the sends wait on
    the broker holding no database connection. Short transactions before and after read
    which rows are there to send (a test's rolled-back transaction leaves none) and mark
    those sent, unless the relay got there first."""
    committed: list[_Message] = session.info.pop(_COMMITTED, [])
    if transaction.parent is not None or not committed:
        return
    ids = [m.id for m in committed]
    unsent = (OutboxMessage.id.in_(ids), OutboxMessage.sent_at.is_(None))
    try:
        with get_sessionmaker()() as reading:
            visible = set(reading.scalars(select(OutboxMessage.id).where(*unsent)))
        sent = _send_all([m for m in committed if m.id in visible])
        if sent:
            with get_sessionmaker()() as marking, marking.begin():
                marking.execute(update(OutboxMessage).where(
                    *unsent, OutboxMessage.id.in_([m.id for m in sent]))
                    .values(sent_at=get_clock().now()))
    except SQLAlchemyError as error:  # the commit stands; the relay sends them later
        log.warning("outbox: sending after commit failed (%s); the relay will", error)


@event.listens_for(Session, "after_rollback")
def _drop_after_rollback(session: Session) -> None:
    session.info.pop(_PENDING, None)
