"""The backend's Celery app: the `ingest` worker, the `alerts` worker and beat.

Runners (in `latlab_workers`) hold no database credentials; they send their outcomes here by
task name, and the ingest worker stores them through the same service as `POST /api/v1/runs`.
Alert delivery has a queue and a worker of its own: heartbeats, job events and the job
watchdog never wait behind a receiver.
"""

import logging
from datetime import timedelta
from typing import Any

from celery import Celery, Task
from celery.signals import worker_process_init
from sqlalchemy import delete

from latlab.alerts import delivery
from latlab.alerts.history import check_missing_data
from latlab.alerts.lifecycle import DELIVER
from latlab.audit import recorder
from latlab.audit import service as audit_service
from latlab.bisections import service as bisection_service
from latlab.core import tasks
from latlab.core.clock import get_clock
from latlab.core.db import get_engine, get_sessionmaker
from latlab.core.settings import get_settings
from latlab.experiments import service as experiment_service
from latlab.hosts import service as host_service
from latlab.hosts import trust
from latlab.ingest import outcomes
from latlab.jobs import schedules, watchdog
from latlab.jobs import service as job_service
from latlab.models import LoginSession
from latlab.runs import maintenance
from latlab_contract import (
    ALERTS_QUEUE,
    HOST_HEARTBEAT,
    INGEST_QUEUE,
    JOB_EVENT,
    JOB_OUTCOME,
    LAB_QUEUE,
    Heartbeat,
    JobEvent,
    JobOutcome,
)
from latlab_contract.broker import CELERY_DEFAULTS

log = logging.getLogger(__name__)
# What runners may send; they reach the ingest worker on INGEST_QUEUE.
RUNNER_TASKS = frozenset({HOST_HEARTBEAT, JOB_EVENT, JOB_OUTCOME})


class LabTask(Task):  # type: ignore[misc]  # Celery ships no types
    """A task of this app: the lab's own tasks (beat's, the api's) run only when they came
    from the lab's queues, never from the queue runners write to."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        queue = (self.request.delivery_info or {}).get("routing_key")
        if self.name not in RUNNER_TASKS and queue == INGEST_QUEUE:
            log.warning("task %s refused: it came from the runners' queue", self.name)
            return None
        return super().__call__(*args, **kwargs)


app = Celery("latlab", broker=get_settings().redis_url, task_cls=LabTask)
app.conf.update(
    CELERY_DEFAULTS,
    task_default_queue=LAB_QUEUE,
    broker_use_ssl=get_settings().broker_tls,
    # A message held by a killed worker comes back when the worker starts again.
    worker_consumer="latlab_contract.broker:NodeConsumer",
    task_routes={DELIVER: {"queue": ALERTS_QUEUE}, "alerts.redeliver": {"queue": ALERTS_QUEUE}},
    beat_schedule={
        "prune-sessions": {"task": "maintenance.prune_sessions", "schedule": 3600.0},
        "prune-audit": {"task": "maintenance.prune_audit", "schedule": 3600.0},
        "job-watchdog": {"task": "jobs.watchdog", "schedule": 5.0},
        "bisections": {"task": "bisections.advance", "schedule": 5.0},
        "experiments": {"task": "experiments.advance", "schedule": 5.0},
        "outbox-relay": {"task": "outbox.relay", "schedule": 5.0},
        "schedules": {"task": "schedules.run_due", "schedule": 30.0},
        "redeliver": {"task": "alerts.redeliver", "schedule": 15.0},
        "missing-data": {"task": "alerts.missing_data", "schedule": 30.0},
        "history-maintenance": {"task": "maintenance.history", "schedule": 60.0},
    },
)


# Changes the workers make (beat's, the ingest worker's) are audited too, as "system".
recorder.install()


@worker_process_init.connect
def _dispose_pool_after_fork(**_: Any) -> None:
    get_engine().dispose(close=False)


# What runners send is signed by their host (`latlab.hosts.trust`): a message that is not
# believed is audited and otherwise ignored.


@app.task(name=HOST_HEARTBEAT, ignore_result=True, soft_time_limit=30)
def host_heartbeat(message: dict[str, Any]) -> None:
    """A runner announces itself: name, tags, fingerprint and the suites it can run."""
    with get_sessionmaker()() as session, session.begin():
        if (heartbeat := trust.admit(session, HOST_HEARTBEAT, message)) is not None:
            host_service.record_heartbeat(session, Heartbeat.model_validate(heartbeat))
            job_service.dispatch_queued(session)


@app.task(name=JOB_EVENT, soft_time_limit=30)
def job_event(message: dict[str, Any]) -> None:
    """Progress or an end (failed, timed out, cancelled) reported by a runner."""
    with get_sessionmaker()() as session, session.begin():
        if (event := trust.admit(session, JOB_EVENT, message)) is not None:
            job_service.apply_event(session, JobEvent.model_validate(event))


@app.task(name=JOB_OUTCOME, soft_time_limit=120, time_limit=180)
def job_outcome(message: dict[str, Any]) -> None:
    """A job's result: stored as its run through the same service as `POST /runs`."""
    with get_sessionmaker()() as session, session.begin():
        if (outcome := trust.admit(session, JOB_OUTCOME, message)) is not None:
            outcomes.apply_outcome(session, JobOutcome.model_validate(outcome))


@app.task(name="bisections.advance", soft_time_limit=60)
def bisections_advance() -> int:
    """Moves bisections whose step has ended on to their next step or their end."""
    with get_sessionmaker()() as session, session.begin():
        return len(bisection_service.advance(session))


@app.task(name="experiments.advance", soft_time_limit=60)
def experiments_advance() -> int:
    """Judges the experiment runs whose jobs have all ended."""
    with get_sessionmaker()() as session, session.begin():
        return len(experiment_service.advance(session))


@app.task(name="jobs.watchdog", soft_time_limit=30)
def jobs_watchdog() -> int:
    """Retries or fails jobs whose runner went silent; dispatches queued jobs."""
    with get_sessionmaker()() as session, session.begin():
        return len(watchdog.find_lost(session))


@app.task(name="schedules.run_due", soft_time_limit=60)
def schedules_run_due() -> int:
    """Launches the schedules that are due."""
    with get_sessionmaker()() as session, session.begin():
        return len(schedules.run_due(session))


@app.task(name="outbox.relay", soft_time_limit=60)
def relay_outbox() -> int:
    """Sends the Celery messages that could not leave when their transaction committed."""
    return tasks.relay()


@app.task(name=DELIVER, bind=True, soft_time_limit=delivery.ATTEMPT_LIMIT_S)
def deliver(self: Task, notification_id: int) -> None:
    """One attempt at one alert message, if it is due; the next one is queued by it. A
    message given back by a worker that died while it sent is sent again at once."""
    with get_sessionmaker()() as session:
        delivery.deliver(session, notification_id,
                         redelivered=bool(self.request.delivery_info.get("redelivered")))


@app.task(name="alerts.redeliver", soft_time_limit=30)
def redeliver() -> int:
    """Sends again the alert messages whose task was lost."""
    with get_sessionmaker()() as session, session.begin():
        return delivery.redeliver_due(session)


@app.task(name="alerts.missing_data", soft_time_limit=30)
def missing_data() -> int:
    """Alerts on schedules whose latest launch produced no run in time."""
    with get_sessionmaker()() as session, session.begin():
        return check_missing_data(session)


# A maintenance call works this long at most, so heartbeats and job events on the same
# queue never wait long behind it; beat calls again a minute later to go on.
MAINTENANCE_BUDGET_S = 20.0


@app.task(name="maintenance.history", soft_time_limit=60)
def history_maintenance() -> dict[str, int]:
    """Partitions ahead, rollups of finished days, retention (`maintenance.apply`)."""
    return maintenance.apply(get_sessionmaker(), MAINTENANCE_BUDGET_S)


@app.task(name="maintenance.prune_sessions")
def prune_sessions() -> int:
    """Deletes dashboard sessions that expired more than a day ago."""
    cutoff = get_clock().now() - timedelta(days=1)
    with get_sessionmaker()() as session, session.begin():
        result = session.execute(delete(LoginSession).where(LoginSession.expires_at < cutoff))
        return int(result.rowcount)  # type: ignore[attr-defined]


@app.task(name="maintenance.prune_audit")
def prune_audit() -> int:
    """Deletes audit events older than `audit_retention_days`."""
    with get_sessionmaker()() as session, session.begin():
        return audit_service.prune(session, get_clock().now(),
                                   get_settings().audit_retention_days)
