"""Celery tasks leave only after the transaction that asked for them commits.

`enqueue` records a task on the session; a commit sends what was recorded, a rollback drops
it. The api never imports worker code: tasks are sent by name.
"""

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from celery import Celery
from sqlalchemy import event
from sqlalchemy.orm import Session

from latlab.core.settings import get_settings

_PENDING = "latlab_pending_tasks"


@dataclass(frozen=True)
class PendingTask:
    name: str
    kwargs: dict[str, Any]
    queue: str


@lru_cache
def get_sender() -> Celery:
    """A Celery client used only to send tasks by name."""
    settings = get_settings()
    return Celery("latlab-sender", broker=settings.redis_url, set_as_current=False)


def enqueue(session: Session, name: str, queue: str, **kwargs: Any) -> None:
    session.info.setdefault(_PENDING, []).append(PendingTask(name, kwargs, queue))


@event.listens_for(Session, "after_commit")
def _send_after_commit(session: Session) -> None:
    pending: list[PendingTask] = session.info.pop(_PENDING, [])
    for task in pending:
        get_sender().send_task(task.name, kwargs=task.kwargs, queue=task.queue)


@event.listens_for(Session, "after_rollback")
def _drop_after_rollback(session: Session) -> None:
    session.info.pop(_PENDING, None)
