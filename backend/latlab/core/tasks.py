"""Side effects leave only after the transaction that asked for them commits.

`enqueue` records a Celery task on the session, `on_commit` any other callback (a revoke);
a commit runs what was recorded, a rollback drops it. The api never imports worker code:
tasks are sent by name.
"""

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from celery import Celery
from sqlalchemy import event
from sqlalchemy.orm import Session

from latlab.core.settings import get_settings

_PENDING = "latlab_pending_tasks"


@lru_cache
def get_sender() -> Celery:
    """A Celery client used only to send tasks by name and control messages."""
    settings = get_settings()
    return Celery("latlab-sender", broker=settings.redis_url, set_as_current=False)


def on_commit(session: Session, callback: Callable[[], None]) -> None:
    session.info.setdefault(_PENDING, []).append(callback)


def enqueue(session: Session, name: str, queue: str, task_id: str | None = None,
            options: dict[str, Any] | None = None, **kwargs: Any) -> None:
    """`options` go to Celery's send_task (e.g. soft_time_limit, time_limit)."""

    def send() -> None:
        get_sender().send_task(name, kwargs=kwargs, queue=queue, task_id=task_id,
                               **(options or {}))

    send.task_name = name  # type: ignore[attr-defined]  # lets tests see what is pending
    on_commit(session, send)


@event.listens_for(Session, "after_commit")
def _run_after_commit(session: Session) -> None:
    pending: list[Callable[[], None]] = session.info.pop(_PENDING, [])
    for callback in pending:
        callback()


@event.listens_for(Session, "after_rollback")
def _drop_after_rollback(session: Session) -> None:
    session.info.pop(_PENDING, None)
