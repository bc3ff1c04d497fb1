"""The backend's Celery app: the `ingest` worker and beat.

Runners (in `latlab_workers`) hold no database credentials; they send their outcomes here by
task name, and this worker stores them through the same service as `POST /api/v1/runs`.
"""

import hashlib
import json
from datetime import timedelta
from typing import Any

from celery import Celery
from celery.signals import worker_process_init
from sqlalchemy import delete

from latlab.auth import service as auth_service
from latlab.core.clock import get_clock
from latlab.core.db import get_engine, get_sessionmaker
from latlab.core.settings import get_settings
from latlab.models import LoginSession
from latlab.runs import service as run_service
from latlab.runs.schemas import RunCreate

INGEST_QUEUE = "ingest"

app = Celery("latlab", broker=get_settings().redis_url)
app.conf.update(
    task_acks_late=True,
    task_reject_on_worker_lost=True,
    worker_prefetch_multiplier=1,
    task_default_queue=INGEST_QUEUE,
    broker_connection_retry_on_startup=True,
    task_ignore_result=True,
    beat_schedule={
        "prune-sessions": {"task": "maintenance.prune_sessions", "schedule": 3600.0,
                           "options": {"queue": INGEST_QUEUE}},
    },
)


@worker_process_init.connect
def _dispose_pool_after_fork(**_: Any) -> None:
    get_engine().dispose(close=False)


@app.task(name="ingest.store_outcome", soft_time_limit=120, time_limit=180,
          autoretry_for=(ConnectionError,), max_retries=5, retry_backoff=True)
def store_outcome(outcome: dict[str, Any], project: str, idempotency_key: str,
                  job_id: int | None = None) -> int:
    """Stores a runner's `latlab.result/v1` outcome; a redelivered one stores nothing new."""
    raw = json.dumps(outcome, sort_keys=True).encode()
    body = RunCreate.model_validate(outcome)
    with get_sessionmaker()() as session, session.begin():
        target = auth_service.ensure_project(session, project)
        submission = run_service.submit(
            session, target, body, request_hash=hashlib.sha256(raw).hexdigest(),
            idempotency_key=idempotency_key, job_id=job_id,
        )
        return submission.run.id


@app.task(name="maintenance.prune_sessions")
def prune_sessions() -> int:
    """Deletes dashboard sessions that expired more than a day ago."""
    cutoff = get_clock().now() - timedelta(days=1)
    with get_sessionmaker()() as session, session.begin():
        result = session.execute(delete(LoginSession).where(LoginSession.expires_at < cutoff))
        return int(result.rowcount)  # type: ignore[attr-defined]
