"""Messages to Celery go through the transactional outbox: written with the transaction,
sent after its commit, kept while the broker is down or frozen (the commit stands, in bounded
time) and relayed once it is back. A real Redis of the test's own is stopped and frozen."""

import os
import signal
import threading
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
import redis
from sqlalchemy import func, select

import latlab_stack as localstack
from latlab.core import tasks
from latlab.core.settings import get_settings
from latlab.jobs import service as job_service
from latlab.jobs import watchdog
from latlab.models import Host, Job, JobStatus, OutboxMessage, Project
from latlab_contract import EXECUTE_JOB

QUEUE = "outbox-test"


class Broker:
    """A Redis of the test's own, stopped and started again on the same port."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.port = localstack.free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.start()

    def start(self) -> None:
        self.service = localstack.start_redis(self.directory, self.port, durable=False)

    def stop(self) -> None:
        self.service.stop()

    def signal(self, number: int) -> None:
        os.kill(self.service.process.pid, number)

    def queued(self) -> int:
        return self.queued_in(QUEUE)

    def queued_in(self, queue: str) -> int:
        return int(redis.Redis.from_url(self.url).llen(queue))


@pytest.fixture
def broker(tmp_path, monkeypatch) -> Iterator[Broker]:
    """The outbox's sender talks to this Redis during the test."""
    tmp_path.chmod(0o755)
    server = Broker(tmp_path / "redis")
    monkeypatch.setenv("LATLAB_REDIS_URL", server.url)
    get_settings.cache_clear()
    tasks.get_sender.cache_clear()
    yield server
    server.stop()
    monkeypatch.undo()
    get_settings.cache_clear()
    tasks.get_sender.cache_clear()


def _unsent(session) -> int:
    session.expire_all()
    return session.scalar(select(func.count()).select_from(OutboxMessage).where(
        OutboxMessage.sent_at.is_(None))) or 0


def _commit_in_thread(session) -> None:
    """Commits with a task queued; fails the test if that does not return in time."""
    tasks.enqueue(session, "ingest.noop", QUEUE, x=1)
    done = threading.Event()

    def commit() -> None:
        session.commit()
        done.set()

    threading.Thread(target=commit, daemon=True).start()
    assert done.wait(60), "the commit hung on the broker"


def test_a_rollback_sends_nothing_and_a_commit_sends_at_once(committed_db, broker) -> None:
    tasks.enqueue(committed_db, "ingest.noop", QUEUE, x=1)
    committed_db.rollback()
    assert committed_db.scalar(select(func.count()).select_from(OutboxMessage)) == 0
    tasks.enqueue(committed_db, "ingest.noop", QUEUE, x=2)
    committed_db.commit()
    assert broker.queued() == 1 and _unsent(committed_db) == 0


def test_messages_wait_for_a_broker_that_is_down_or_frozen(committed_db, broker,
                                                           clock) -> None:
    broker.stop()
    _commit_in_thread(committed_db)  # the transaction stands; its message waits
    assert _unsent(committed_db) == 1
    broker.start()
    assert tasks.relay() == 0  # fresh rows are left to the sender that wrote them
    clock.advance(seconds=tasks.RELAY_AFTER.total_seconds())
    assert tasks.relay() == 1 and broker.queued() == 1 and _unsent(committed_db) == 0

    broker.signal(signal.SIGSTOP)  # frozen: connections are accepted, nothing is answered
    try:
        _commit_in_thread(committed_db)
        assert _unsent(committed_db) == 1
    finally:
        broker.signal(signal.SIGCONT)
    clock.advance(seconds=tasks.RELAY_AFTER.total_seconds())
    # The frozen server may still act on the publish it had read before it froze: at least
    # once, then.
    assert tasks.relay() == 1 and broker.queued() in (2, 3)
    # Sent messages are kept an hour (the watchdog reads when a job's task left), then go.
    clock.advance(seconds=(tasks.KEEP_SENT + timedelta(minutes=1)).total_seconds())
    tasks.relay()
    assert committed_db.scalar(select(func.count()).select_from(OutboxMessage)) == 0


def test_a_job_whose_task_waits_in_the_outbox_is_not_lost(db, clock) -> None:
    """The pickup watchdog counts from when the job's task left for the broker; a task that
    could not leave within the pickup time is withdrawn and the job queued again, its
    attempt not spent, whatever holds the outbox (the broker away, the relay not running)."""
    project = db.scalar(select(Project).where(Project.slug == "default"))
    host = Host(name="none", created_at=clock.now())  # no runner: it never heard of it
    db.add(host)
    db.flush()
    job = Job(project_id=project.id, suite="echo", scenario="default", params={},
              host_tags=[], repetitions=1, status=JobStatus.dispatched, progress=0.0,
              attempts=1, created_at=clock.now(), dispatched_at=clock.now(), programs=[],
              timeout_s=60, host_id=host.id)
    db.add(job)
    db.flush()
    tasks.enqueue(db, EXECUTE_JOB, "host.none", task_id=job_service.task_id(job), spec={})
    db.flush()
    pickup = get_settings().job_pickup_s
    clock.advance(seconds=pickup - 1)
    assert watchdog.find_lost(db) == [] and job.status is JobStatus.dispatched
    message = db.scalar(select(OutboxMessage).where(OutboxMessage.task == EXECUTE_JOB))
    message.sent_at = clock.now()  # the broker is back and the relay sent it
    clock.advance(seconds=pickup - 1)
    assert watchdog.find_lost(db) == []
    clock.advance(seconds=2)
    assert watchdog.find_lost(db) == [job] and job.status is JobStatus.queued
    assert job.attempts == 1 and "attempt 1 lost" in job.error

    # Attempt 2's task never leaves: withdrawn after the pickup time, attempt 2 not spent.
    job.status, job.attempts, job.dispatched_at = JobStatus.dispatched, 2, clock.now()
    tasks.enqueue(db, EXECUTE_JOB, "host.none", task_id=job_service.task_id(job), spec={})
    db.flush()
    clock.advance(seconds=pickup + 1)
    assert watchdog.find_lost(db) == [job] and job.status is JobStatus.queued
    assert job.attempts == 1 and "attempt 2 not sent" in job.error
    assert db.scalar(select(func.count()).select_from(OutboxMessage).where(
        OutboxMessage.task == EXECUTE_JOB, OutboxMessage.sent_at.is_(None))) == 0  # withdrawn
