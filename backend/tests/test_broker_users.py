"""Hosts' own broker users on a Redis with users, as `make up` starts it: what a host's
credentials can and cannot do, a real runner working with nothing more, and a revoked host
cut off at once. (The lab end to end on such a Redis: `test_faults.py`, `test_chaos.py`.)"""

import json
import secrets
from pathlib import Path

import pytest
import redis
from celery import Celery
from kombu.exceptions import OperationalError

import latlab_stack as localstack
from latlab.hosts import broker_users
from latlab_contract import EXECUTE_JOB, JobSpec, attempt_key
from tests.conftest import wait_for
from tests.processes import RunnerProcess


@pytest.fixture
def broker(tmp_path):
    service = localstack.start_redis(tmp_path / "redis", localstack.free_port(), durable=False,
                                     users=True)
    yield service
    service.stop()


def _as(url: str) -> redis.Redis:
    return redis.Redis.from_url(url, socket_timeout=5)


def test_a_hosts_user_may_consume_its_queue_and_push_results_nothing_else(broker) -> None:
    lab = _as(broker.url)
    with pytest.raises(redis.AuthenticationError):  # the default user is off
        redis.Redis.from_url(broker.url.replace(broker.url.split("@")[0] + "@", "redis://")
                             ).ping()
    host_a = _as(broker_users.grant(lab, broker.url, "lab-a"))
    broker_users.grant(lab, broker.url, "lab-b")
    lab.set(attempt_key(7), "job-7-attempt-1")

    host_a.lpush("ingest", "a result")
    host_a.lpush("host.lab-a", "x")
    assert host_a.rpop("host.lab-a") == b"x"
    assert host_a.get(attempt_key(7)) == b"job-7-attempt-1"
    refused = [
        lambda: host_a.rpop("ingest"),  # others' results
        lambda: host_a.lpush("lab", "a retention task"),  # the lab's own tasks
        lambda: host_a.lpush("alerts", "a delivery"),
        lambda: host_a.rpop("host.lab-b"),  # another host's jobs
        lambda: host_a.lpush("host.lab-b", "x"),
        lambda: host_a.set(attempt_key(7), "mine"),  # the lab's word on attempts
        lambda: host_a.hgetall("unacked:host.lab-b"),
    ]
    for attempt in refused:
        with pytest.raises(redis.exceptions.NoPermissionError):
            attempt()
    for command in (("KEYS", "*"), ("FLUSHALL",), ("ACL", "LIST"), ("CONFIG", "GET", "*"),
                    ("PUBLISH", "/0.celery.pidbox", "x")):
        with pytest.raises(redis.exceptions.NoPermissionError):
            host_a.execute_command(*command)
    assert lab.lrange("ingest", 0, -1) == [b"a result"]

    # A task sent as Celery sends it, to the lab's queue, is refused by Redis.
    sender = Celery(broker=broker_users.grant(lab, broker.url, "lab-a"))
    sender.conf.broker_connection_retry = False
    with pytest.raises(OperationalError):
        sender.send_task("maintenance.prune_audit", queue="lab", retry=False)
    assert lab.llen("lab") == 0


def test_a_runner_works_with_its_hosts_user_and_is_cut_off_when_revoked(
        broker, build_cache) -> None:
    """A real runner on lab-a's user takes an echo job from its queue and sends its
    heartbeats, events and outcome; its user deleted, its connections close at once and it
    cannot connect again. The users outlive a broker restart (the ACL file)."""
    lab = _as(broker.url)
    url = broker_users.grant(lab, broker.url, "lab-a")
    runner = RunnerProcess("lab-a", "local", build_cache, broker_url=url,
                           env={"LATLAB_HOST_KEY": secrets.token_hex(32)})
    try:
        spec = JobSpec(job_id=1, attempt=1, project="default", suite="echo",
                       scenario="default", params={"count": 2000, "warmup": 100},
                       repetitions=1, timeout_s=300)
        lab.set(attempt_key(1), "job-1")
        Celery(broker=broker.url).send_task(EXECUTE_JOB, kwargs={"spec": spec.model_dump(
            mode="json")}, queue="host.lab-a", task_id="job-1")

        def sent() -> set[str]:
            return {json.loads(m)["headers"]["task"] for m in lab.lrange("ingest", 0, -1)}

        wait_for(lambda: "ingest.job_outcome" in sent(), timeout=180)
        assert sent() == {"ingest.host_heartbeat", "ingest.job_event", "ingest.job_outcome"}

        def connected() -> int:
            return sum(c["user"] == "host-lab-a" for c in lab.client_list())

        assert connected() > 0
        broker_users.withdraw(lab, "lab-a")
        wait_for(lambda: connected() == 0, timeout=10)
        with pytest.raises(redis.AuthenticationError):
            _as(url).ping()
        assert runner.process.poll() is None  # it waits for the broker, as it would anyway

        other = broker_users.grant(lab, broker.url, "lab-b")
        broker.stop()
        restarted = localstack.start_redis(_dir(broker), _port(broker), durable=False,
                                           users=True)
        try:
            assert _as(other).lpush("ingest", "after a restart") > 0
        finally:
            restarted.stop()
    finally:
        runner.stop()


def _dir(service: localstack.Service) -> Path:
    argv = service.process.args
    return Path(argv[argv.index("--dir") + 1])


def _port(service: localstack.Service) -> int:
    argv = service.process.args
    return int(argv[argv.index("--port") + 1])
