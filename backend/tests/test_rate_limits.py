"""Fair use: per-caller and per-address rate limits on submissions, job launches and heavy
reads, answered with 429 and Retry-After, in the tests' real Redis."""

import logging
import signal
import threading
import time
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

import latlab_stack as localstack
from latlab.core import kv, rate_limits
from latlab.core.errors import TooManyRequests
from latlab.core.settings import get_settings
from latlab.hosts import service as host_service
from latlab.models import Job, Run, Scope
from latlab_contract import Heartbeat
from latlab_workers.suites import SUITES_DIR, load_suite
from tests.factories import JSON, result


@pytest.fixture
def limits(monkeypatch) -> Iterator[pytest.MonkeyPatch]:
    """Settings of the limits for one test (a long window unless the test sets one)."""
    monkeypatch.setattr(get_settings(), "rate_window_s", 600.0)
    yield monkeypatch


def _submit(client: TestClient, headers: dict[str, str]) -> int:
    return client.post("/api/v1/runs", json=result(), headers=headers).status_code


def _runs(db) -> int:
    return db.scalar(select(func.count()).select_from(Run)) or 0


def _refused(response, who: str, what: str) -> int:
    """The 429's wait, after checking it names what and whom it limits."""
    assert response.status_code == 429, response.text
    assert response.json() == {"detail": f"too many {what} from this {who}; try again in "
                                         f"{response.headers['Retry-After']} s"}
    retry_after = int(response.headers["Retry-After"])
    assert retry_after >= 1
    return retry_after


def test_a_token_over_its_submission_limit_gets_429_and_stores_nothing(
        client, actors, db, limits) -> None:
    limits.setattr(get_settings(), "submissions_per_caller", 2)
    flooding, other = actors.token(Scope.runs_write), actors.token(Scope.runs_write)
    assert [_submit(client, flooding) for _ in range(2)] == [201, 201]
    refused = client.post("/api/v1/runs", json=result(), headers=flooding)
    assert _refused(refused, "token", "submissions") <= 600
    assert _runs(db) == 2
    # Another token at the same moment, from the same address, is not held back.
    assert [_submit(client, other) for _ in range(2)] == [201, 201]
    assert _submit(client, flooding) == 429 and _submit(client, other) == 429
    assert _runs(db) == 4


def test_a_signed_in_user_is_limited_on_heavy_reads(client, actors, limits) -> None:
    limits.setattr(get_settings(), "heavy_reads_per_caller", 2)
    run_id = client.post("/api/v1/runs", json=result(),
                         headers=actors.token(Scope.runs_write)).json()["id"]
    actors.login(client)
    export = f"/api/v1/runs/{run_id}/summary.csv"
    assert [client.get(export).status_code for _ in range(2)] == [200, 200]
    _refused(client.get(f"/api/v1/compare?baseline={run_id}&candidate={run_id}"), "user",
             "heavy reads")
    assert client.get(f"/api/v1/runs/{run_id}").status_code == 200  # a light read


def test_an_address_is_limited_whoever_calls_from_it(client, actors, limits) -> None:
    limits.setattr(get_settings(), "heavy_reads_per_address", 3)
    run_id = client.post("/api/v1/runs", json=result(),
                         headers=actors.token(Scope.runs_write)).json()["id"]
    trends = "/api/v1/trends?suite=http-order&scenario=medium"
    anonymous = TestClient(client.app, headers=JSON)
    assert [anonymous.get(trends).status_code for _ in range(2)] == [401, 401]
    reader = actors.token(Scope.read)
    assert client.get(trends, headers=reader).status_code == 200
    _refused(anonymous.get(trends), "address", "heavy reads")
    _refused(client.get(f"/api/v1/runs/{run_id}/summary.csv", headers=reader), "address",
             "heavy reads")
    elsewhere = TestClient(client.app, headers=JSON, client=("10.1.2.3", 50000))
    assert elsewhere.get(trends, headers=reader).status_code == 200


def test_job_launches_are_limited_per_token(client, actors, db, limits) -> None:
    limits.setattr(get_settings(), "job_launches_per_caller", 1)
    host_service.record_heartbeat(db, Heartbeat(
        name="lab-1", tags=["local"], fingerprint={}, suites=[load_suite(SUITES_DIR / "zmq")
                                                              .info()]))
    launcher = actors.token(Scope.jobs_write, Scope.read)
    job = {"suite": "zmq", "scenario": "quick"}
    assert client.post("/api/v1/jobs", json=job, headers=launcher).status_code == 202
    _refused(client.post("/api/v1/jobs", json=job, headers=launcher), "token", "job launches")
    assert db.scalar(select(func.count()).select_from(Job)) == 1


def test_a_limit_refills_over_its_window(limits) -> None:
    """Two per two seconds: a burst of two, then one more after Retry-After, and a burst of two
    again once a whole window has passed (waits bounded by the window, none timed). The
    buckets are spent directly: a submission's own work (judging it against its history) takes
    long enough on a loaded host to refill a bucket between two requests."""
    limits.setattr(get_settings(), "submissions_per_caller", 2)
    limits.setattr(get_settings(), "rate_window_s", 2.0)
    caller, address = "token:refills", "203.0.113.9"

    def spend() -> int | None:
        try:
            rate_limits.spend(rate_limits.Use.submissions, caller, address)
        except TooManyRequests as refused:
            return refused.retry_after
        return None

    assert [spend() for _ in range(2)] == [None, None]
    retry_after = spend()
    assert retry_after is not None and 1 <= retry_after <= 2
    time.sleep(retry_after)
    assert spend() is None
    time.sleep(get_settings().rate_window_s)
    assert [spend() for _ in range(2)] == [None, None]


@pytest.fixture
def limits_redis(tmp_path, monkeypatch) -> Iterator[localstack.Service]:
    """A Redis of the limits' own, to stop and freeze; the limits start unpaused."""
    tmp_path.chmod(0o755)
    server = localstack.start_redis(tmp_path / "redis", localstack.free_port(), durable=False)
    monkeypatch.setattr(get_settings(), "redis_url", server.url)
    monkeypatch.setattr(rate_limits, "_redis_down_until", 0.0)
    kv.redis_client.cache_clear()
    rate_limits._script.cache_clear()
    yield server
    server.process.send_signal(signal.SIGCONT)
    server.stop()
    monkeypatch.undo()
    kv.redis_client.cache_clear()
    rate_limits._script.cache_clear()


def test_a_frozen_redis_lets_requests_through_and_is_not_waited_on_again(
        client, actors, limits, limits_redis, caplog) -> None:
    limits.setattr(get_settings(), "submissions_per_caller", 1)
    token = actors.token(Scope.runs_write)
    assert _submit(client, token) == 201
    assert _submit(client, token) == 429  # the limits work on this Redis
    limits_redis.process.send_signal(signal.SIGSTOP)
    answers: list[int] = []

    def submit_twice() -> None:
        answers.extend(_submit(client, token) for _ in range(2))

    caplog.set_level(logging.WARNING, logger=rate_limits.__name__)
    worker = threading.Thread(target=submit_twice, daemon=True)
    worker.start()
    worker.join(60)
    assert answers == [201, 201], "a frozen Redis held the submissions"
    # The first request waited out the timeout; the second did not ask Redis at all.
    assert len([r for r in caplog.records if "rate limits off" in r.message]) == 1
