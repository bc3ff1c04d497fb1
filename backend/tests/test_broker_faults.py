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
from sqlalchemy import select
from sqlalchemy.orm import Session

from latlab.alerts import service as alert_service
from latlab.alerts.schemas import SlaRuleCreate
from latlab.core import tasks
from latlab.models import Channel, Project, Scope
from latlab_contract import ALERTS_QUEUE
from tests.conftest import JSON, Actors, FrozenClock, allow_private_webhooks, start_api, wait_for
from tests.factories import result
from tests.test_alerts_e2e import Receiver
from tests.test_outbox import Broker, broker  # noqa: F401  (a fixture)


class Worker:
    """A backend Celery worker on the test's broker, in a process group of its own; its
    output goes to `log`."""

    def __init__(self, queue: str, broker_url: str, log: Path, name: str | None = None,
                 concurrency: int = 1) -> None:
        self.queue, self.broker_url, self.log = queue, broker_url, log
        self.name = name or f"{queue}-fault-{os.getpid()}@{socket.gethostname()}"
        self.concurrency = concurrency
        self.start()

    def start(self) -> None:
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "latlab.worker", "worker", "-Q",
                 self.queue, "-c", str(self.concurrency), "-n", self.name,
                 "--loglevel", "WARNING"],
                env={**os.environ, "LATLAB_REDIS_URL": self.broker_url},
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        wait_for(self.answers, timeout=90, interval=0.5)

    def answers(self) -> bool:
        if self.process.poll() is not None:
            raise AssertionError(f"the {self.queue} worker exited:\n{self.output()[-3000:]}")
        return bool(tasks.get_sender().control.ping(destination=[self.name], timeout=0.5))

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    def kill(self) -> None:
        """SIGKILL to the worker and its pool, as a machine losing them would."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(20)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.kill()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver()
    yield server
    server.stop()


@pytest.fixture
def alerts_on_broker(broker, tmp_path) -> Iterator[Worker]:  # noqa: F811
    worker = Worker(ALERTS_QUEUE, broker.url, tmp_path / "alerts.log", concurrency=2)
    yield worker
    worker.stop()


def _alerting(session: Session, receiver: Receiver) -> Channel:
    """A rule every `_breach` breaks, and a webhook channel to `receiver`."""
    allow_private_webhooks(session)
    project = session.scalar(select(Project).where(Project.slug == "default"))
    assert project is not None
    alert_service.create_rule(session, project, SlaRuleCreate(
        name="p99 over 0.1 ms", suite="http-order", metric="p99", op=">", threshold=0.1,
        unit="ms"))
    channel = Channel(project_id=project.id, name="hook", kind="webhook", url=receiver.url,
                      created_at=datetime.now(UTC))
    session.add(channel)
    session.commit()
    return channel


def _breach(client: str) -> dict:
    """A run of its own series whose p99 (0.35 ms) breaks `_alerting`'s rule."""
    return result(series=[{"labels": {"client": client}, "trials": [
        {"latency": {"samples_ns": [350_000 + i for i in range(200)]}}]}])


def _relay_now(clock: FrozenClock) -> int:
    """What beat's relay does every few seconds, at once (the test's clock is frozen)."""
    clock.moment = datetime.now(UTC) + tasks.RELAY_AFTER + timedelta(seconds=1)
    return tasks.relay()


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
    wait_for(lambda: _relay_now(clock) >= 0 and len(receiver.messages) == submissions + 1,
             timeout=120, interval=1)
    assert sorted(m["series"]["client"] for m in receiver.messages) == sorted(
        ["warm-up", *(f"frozen-{i}" for i in range(submissions))])
