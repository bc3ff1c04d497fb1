"""Faults between the lab and its broker, on real processes: a Redis of the test's own
(stopped, killed, frozen with SIGSTOP), the api as a uvicorn process and the backend's Celery
workers on it, each in a process group of its own, killed with SIGKILL mid-task. Every wait
is bounded; none of the assertions times anything."""

import contextlib
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
import redis
from kombu import Connection, Message, Queue
from sqlalchemy import func, select, text
from sqlalchemy.orm import Session

from latlab.alerts import delivery
from latlab.alerts import service as alert_service
from latlab.alerts.schemas import SlaRuleCreate
from latlab.core import tasks
from latlab.core.db import get_sessionmaker
from latlab.models import (
    Channel,
    DeliveryAttempt,
    Host,
    Job,
    JobStatus,
    Notification,
    Project,
    Run,
    Scope,
)
from latlab_contract import ALERTS_QUEUE, INGEST_QUEUE, JOB_OUTCOME, JobOutcome
from latlab_contract.broker import BROKER_ERRORS, TRANSPORT_OPTIONS
from latlab_contract.signing import seal
from tests.conftest import FrozenClock, start_api, wait_for
from tests.factories import JSON, Actors, notified, result, webhook
from tests.processes import ProcessGroup, enroll_host
from tests.receiver import Receiver
from tests.test_outbox import Broker, broker  # noqa: F401  (a fixture)


class Worker(ProcessGroup):
    """A backend Celery worker on the test's broker, in a process group of its own; its
    output goes to `log`."""

    def __init__(self, queue: str, broker_url: str, log: Path, name: str | None = None,
                 concurrency: int = 1, **env: str) -> None:
        self.queue, self.broker_url, self.log, self.env = queue, broker_url, log, env
        self.name = name or f"{queue}-fault-{os.getpid()}@{socket.gethostname()}"
        self.concurrency = concurrency
        self.start()

    def start(self) -> None:
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "latlab.worker", "worker", "-Q",
                 self.queue, "-c", str(self.concurrency), "-n", self.name,
                 "--loglevel", "WARNING"],
                env={**os.environ, "LATLAB_REDIS_URL": self.broker_url, **self.env},
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        wait_for(self.answers, timeout=90, interval=0.5)

    def answers(self) -> bool:
        if self.process.poll() is not None:
            raise AssertionError(f"the {self.queue} worker exited:\n{self.output()[-3000:]}")
        return bool(tasks.get_sender().control.ping(destination=[self.name], timeout=0.5))

    def output(self) -> str:
        return self.log.read_text(errors="replace")


@pytest.fixture
def alerts_on_broker(broker, tmp_path) -> Iterator[Worker]:  # noqa: F811
    # A failed attempt's next one is held by the worker (a countdown) for 4 s.
    worker = Worker(ALERTS_QUEUE, broker.url, tmp_path / "alerts.log", concurrency=2,
                    LATLAB_DELIVERY_BACKOFF_S="4")
    yield worker
    worker.stop()


def _alerting(session: Session, receiver: Receiver) -> Channel:
    """A rule every `_breach` breaks, and a webhook channel to `receiver`."""
    project = session.scalar(select(Project).where(Project.slug == "default"))
    assert project is not None
    alert_service.create_rule(session, project, SlaRuleCreate(
        name="p99 over 0.1 ms", suite="http-order", metric="p99", op=">", threshold=0.1,
        unit="ms"))
    channel = webhook(session, receiver.url, datetime.now(UTC))
    session.commit()
    return channel


def _breach(client: str) -> dict:
    """A run of its own series whose p99 (0.35 ms) breaks `_alerting`'s rule."""
    return result(series=[{"labels": {"client": client}, "trials": [
        {"latency": {"samples_ns": [350_000 + i for i in range(200)]}}]}])


def _beat_now(clock: FrozenClock) -> bool:
    """What beat does every few seconds, at once (the test's clock is frozen): the outbox's
    relay, and the sweep for alert messages whose task was lost."""
    clock.moment = datetime.now(UTC) + delivery.LOST_AFTER + timedelta(seconds=1)
    tasks.relay()
    with get_sessionmaker()() as session, session.begin():
        delivery.redeliver_due(session)
    return True


def test_a_frozen_redis_holds_no_database_connection(committed_db, broker, alerts_on_broker,  # noqa: F811
                                                     receiver, clock) -> None:
    """More submissions at once than the api's pool holds connections, each raising an alert,
    while Redis is frozen: all are stored (201) since none waits on Redis holding a
    connection; once Redis thaws, every alert reaches the receiver."""
    _alerting(committed_db, receiver)
    token = Actors(committed_db).token(Scope.runs_write, Scope.read)
    committed_db.commit()
    url, api = start_api(LATLAB_REDIS_URL=broker.url)
    submissions = 30  # the pool: 10 connections and 10 more on overflow
    try:
        with httpx.Client(base_url=url, timeout=60, headers={**JSON, **token}) as client:
            assert client.post("/api/v1/runs", json=_breach("warm-up")).status_code == 201
            wait_for(lambda: len(receiver.messages) == 1, timeout=60)
            broker.signal(signal.SIGSTOP)
            try:
                with ThreadPoolExecutor(submissions) as pool:
                    answers = list(pool.map(
                        lambda i: client.post("/api/v1/runs", json=_breach(f"frozen-{i}")),
                        range(submissions)))
            finally:
                broker.signal(signal.SIGCONT)
        assert [a.status_code for a in answers] == [201] * submissions, {
            a.status_code: a.text for a in answers if a.status_code != 201}
    finally:
        api.terminate()
        api.wait(20)
    # What could not leave during the freeze waits in the outbox; beat's relay sends it.
    wait_for(lambda: _beat_now(clock) and len(receiver.messages) == submissions + 1,
             timeout=120, interval=1)
    assert sorted(m["series"]["client"] for m in receiver.messages) == sorted(
        ["warm-up", *(f"frozen-{i}" for i in range(submissions))])


def _open_alerts(session: Session, channel: Channel, n: int) -> list[int]:
    """`n` alerts opened, one message each to `channel`, committed (their tasks leave)."""
    ids = notified(session, channel, datetime.now(UTC), n)
    session.commit()
    return ids


def _statuses(session: Session, ids: list[int]) -> list[str]:
    session.expire_all()
    return [session.get_one(Notification, i).status for i in ids]


@pytest.mark.parametrize("loss", ["killed", "stopped"])
def test_the_alerts_worker_rides_through_a_broker_loss_mid_delivery(
        committed_db, broker, alerts_on_broker, receiver, clock, loss) -> None:  # noqa: F811
    """Redis killed (or stopped) while the worker's two processes are posting to a slow
    receiver: the posts end, their acknowledgements meet no broker, and the worker (the same
    process) carries on once Redis is back."""
    pid = alerts_on_broker.process.pid
    channel = _alerting(committed_db, receiver)
    receiver.stall_s = 3
    ids = _open_alerts(committed_db, channel, 4)
    receiver.script = [500, 500]  # two fail: their next attempts wait in the worker
    wait_for(lambda: receiver.requests == 4, timeout=60)  # two in flight
    if loss == "killed":
        broker.signal(signal.SIGKILL)
        broker.service.process.wait(10)
    else:
        broker.stop()
    wait_for(lambda: receiver.requests == 4 and len(receiver.messages) == 2, timeout=60)
    broker.start()
    # The same process consumes again: every message is delivered.
    receiver.stall_s = 0
    later = _open_alerts(committed_db, channel, 1)
    wait_for(lambda: _beat_now(clock) and set(_statuses(committed_db, ids + later)) == {
        "sent"}, timeout=120, interval=1)
    assert alerts_on_broker.process.poll() is None and alerts_on_broker.process.pid == pid
    assert "Unrecoverable" not in alerts_on_broker.output(), alerts_on_broker.output()[-3000:]
    assert len(receiver.messages) == 5


def _waiting_on_a_lock() -> bool:
    """Whether some connection to the database waits for a lock (read in a transaction of
    its own: a transaction sees one snapshot of pg_stat_activity)."""
    with get_sessionmaker()() as session:
        return bool(session.scalar(text(
            "select count(*) from pg_stat_activity where wait_event_type = 'Lock'")))


def test_a_result_held_by_a_killed_ingest_worker_is_stored_when_it_starts_again(
        committed_db, broker, tmp_path) -> None:  # noqa: F811
    """A runner's outcome taken by the ingest worker, which is SIGKILLed (with its pool)
    while it stores it: started again under its name, the worker takes the message back
    from what its predecessor held, and the run is stored once, the job succeeded at its
    first attempt (nothing measured again). Before, the message waited out Redis's hour of
    visibility timeout, and the watchdog re-ran the job."""
    project = committed_db.scalar(select(Project).where(Project.slug == "default"))
    assert project is not None
    key = enroll_host("runner-a", "local")
    host = committed_db.scalar(select(Host).where(Host.name == "runner-a"))
    assert host is not None
    job = Job(project_id=project.id, host_id=host.id, suite="http-order", scenario="medium",
              params={}, host_tags=[], repetitions=1, status=JobStatus.dispatched,
              progress=0.0, attempts=1, created_at=datetime.now(UTC), programs=[],
              timeout_s=900)
    committed_db.add(job)
    committed_db.commit()
    ingest = Worker(INGEST_QUEUE, broker.url, tmp_path / "ingest.log")
    try:
        with get_sessionmaker()() as holder, holder.begin():
            # The job's row locked: the worker's task waits in the middle of storing it.
            holder.scalar(select(Job).where(Job.id == job.id).with_for_update())
            outcome = JobOutcome(job_id=job.id, attempt=1,
                                 result=result(source={"kind": "job"}, host="runner-a"))
            tasks.get_sender().send_task(JOB_OUTCOME, queue=INGEST_QUEUE, kwargs={
                "message": seal(key, JOB_OUTCOME, "runner-a", outcome.model_dump(mode="json"))})
            wait_for(_waiting_on_a_lock, timeout=60)
            ingest.kill()
        assert broker.queued_in(INGEST_QUEUE) == 0  # the message is the dead worker's
        ingest.start()

        def finished() -> Job | None:
            committed_db.expire_all()
            found = committed_db.get_one(Job, job.id)
            return found if found.status is JobStatus.succeeded else None

        done = wait_for(finished, timeout=60)
        assert done.attempts == 1 and done.run_id is not None
        assert committed_db.scalar(select(func.count()).select_from(Run)) == 1
    finally:
        ingest.stop()


def test_a_send_cut_by_a_killed_alerts_worker_shows_as_two_attempts(
        committed_db, broker, receiver, tmp_path) -> None:  # noqa: F811
    """The alerts worker SIGKILLed (with its pool) while its POST waits for a slow receiver:
    the attempt was recorded before it was made, so the message sent again when the worker
    starts (under its name) is the second attempt, the first one shows as cut off, and the
    second message says it may repeat the first. Before, the record said 1 attempt."""
    alerts = Worker(ALERTS_QUEUE, broker.url, tmp_path / "alerts.log",
                    LATLAB_DELIVERY_TIMEOUT_S="30")
    try:
        channel = _alerting(committed_db, receiver)
        receiver.stall_s = 8
        (message,) = _open_alerts(committed_db, channel, 1)
        wait_for(lambda: receiver.requests == 1, timeout=60)
        alerts.kill()
        receiver.stall_s = 0
        alerts.start()
        wait_for(lambda: _statuses(committed_db, [message]) == ["sent"], timeout=60)
    finally:
        alerts.stop()
    attempts = committed_db.scalars(select(DeliveryAttempt).where(
        DeliveryAttempt.notification_id == message).order_by(DeliveryAttempt.id)).all()
    assert [(a.ok, a.error) for a in attempts] == [(False, delivery.CUT_OFF), (True, None)]
    assert committed_db.get_one(Notification, message).attempts == 2
    # The receiver got both: the first answered once its stall ended, to no one.
    wait_for(lambda: len(receiver.messages) == 2, timeout=30)
    first, again = sorted(receiver.messages, key=lambda m: m["attempt"])
    assert receiver.requests == 2 and first["attempt"] == 1 and first["may_repeat"] is None
    assert again["alert_id"] == first["alert_id"] and again["attempt"] == 2
    assert "may repeat the one first sent at" in again["may_repeat"]
    assert "may repeat" in delivery.fallback_text(again)


def test_an_acknowledgement_cut_by_a_frozen_redis_does_not_stop_the_consumer(broker) -> None:  # noqa: F811
    """A consumer taking one message at a time acknowledges one while Redis is frozen: the
    acknowledgement fails ("Couldn't ack"), Redis thaws, and the next message is still taken
    (kombu alone kept the first in its book of held messages and never took another: a
    chaos soak's ingest worker stayed idle with results waiting), and the failed removal from
    the broker's unacked set is made up once the broker answers again."""
    queue = Queue("ack-fault", routing_key="ack-fault")
    # A short socket timeout: the frozen acknowledgement fails within seconds.
    options = {**TRANSPORT_OPTIONS, "socket_timeout": 1.0, "health_check_interval": 0}
    taken: list[int] = []
    failed_acks: list[bool] = []

    def on_message(body: dict, message: Message) -> None:
        taken.append(body["n"])
        if body["n"] == 1:
            broker.signal(signal.SIGSTOP)
            try:
                message.ack()
            except BROKER_ERRORS:
                failed_acks.append(True)
            finally:
                broker.signal(signal.SIGCONT)
        else:
            message.ack()

    def drain_until(count: int) -> bool:
        with contextlib.suppress(TimeoutError):
            connection.drain_events(timeout=0.5)
        return len(taken) >= count

    with Connection(broker.url, transport_options=options) as connection:
        producer = connection.Producer()
        producer.publish({"n": 1}, routing_key="ack-fault", declare=[queue])
        with connection.Consumer(queues=[queue], callbacks=[on_message], accept=["json"]) as c:
            c.qos(prefetch_count=1)
            wait_for(lambda: drain_until(1), timeout=30, interval=0)
            assert failed_acks == [True]
            producer.publish({"n": 2}, routing_key="ack-fault", declare=[queue])
            wait_for(lambda: drain_until(2), timeout=30, interval=0)
    assert taken == [1, 2]
    assert redis.Redis.from_url(broker.url).hlen("unacked") == 0
