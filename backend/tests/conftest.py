"""Test harness: real Postgres and Redis (throwaway ones unless given), schema from migrations.

Give LATLAB_TEST_DATABASE_URL / LATLAB_TEST_REDIS_URL to use existing servers (one pytest
process only). `make test` runs the tests in parallel (pytest-xdist, a file per worker at a
time): each worker has a lab of its own, its own throwaway Postgres and Redis, Celery workers
and api, its own code user (a job's end kills every process of its code user; gw0 keeps
latlab-code, gwN is latlab-code-N, made by scripts/bootstrap.sh --test) and its own folder of
code under test (job folders are named by job id, which each lab numbers from 1).
Each test runs inside an outer transaction that is rolled back; tests that need real commits
(concurrency, Celery workers, a live server) use `committed_db`, which empties the tables.
"""

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import create_engine, text
from sqlalchemy.orm import Session

import latlab_stack as localstack

_workdir = Path(tempfile.mkdtemp(prefix="latlab-test-"))
_workdir.chmod(0o755)  # postgres runs as its own user and must reach its directory
_services: list[localstack.Service] = []


_WORKER = os.environ.get("PYTEST_XDIST_WORKER")  # gw0, gw1...: set in xdist's workers only


def _start_services() -> tuple[str, str]:
    database_url = os.environ.get("LATLAB_TEST_DATABASE_URL")
    redis_url = os.environ.get("LATLAB_TEST_REDIS_URL")
    if _WORKER and (database_url or redis_url):
        raise RuntimeError("LATLAB_TEST_DATABASE_URL / LATLAB_TEST_REDIS_URL serve one pytest "
                           "process: run without -n (pytest-xdist's workers start their own)")
    if database_url is None:
        postgres = localstack.start_postgres(
            _workdir / "pg", localstack.free_port(), database="latlab_test", durable=False
        )
        _services.append(postgres)
        database_url = postgres.url
    if redis_url is None:
        redis = localstack.start_redis(_workdir / "redis", localstack.free_port(), durable=False)
        _services.append(redis)
        redis_url = redis.url
    return database_url, redis_url


# Settings are read from the environment, so it is set before any latlab module reads it.
DATABASE_URL, REDIS_URL = _start_services()
if _WORKER:
    if _WORKER != "gw0":
        os.environ["LATLAB_CODE_USER"] = f"latlab-code-{int(_WORKER.removeprefix('gw'))}"
    # Each lab numbers its jobs from 1: their folders (and builds) apart, kept across sessions.
    os.environ["LATLAB_CODE_CACHE"] = f"/var/cache/latlab/code-{_WORKER}"
os.environ["LATLAB_DATABASE_URL"] = DATABASE_URL
os.environ["LATLAB_REDIS_URL"] = REDIS_URL
os.environ["LATLAB_PUBLIC_URL"] = "http://lab.test"
os.environ["LATLAB_MAX_BODY_BYTES"] = str(64 * 1024 * 1024)
# Lost-job detection on a test's time scale (runners report every 0.5 s in tests).
os.environ["LATLAB_JOB_SILENCE_S"] = "5"
os.environ["LATLAB_JOB_PICKUP_S"] = "30"
# Alert delivery retries on a test's time scale.
os.environ["LATLAB_DELIVERY_BACKOFF_S"] = "0.5"
os.environ["LATLAB_DELIVERY_BACKOFF_MAX_S"] = "2"
# Tests make bursts the fair-use defaults refuse (a hundred runs from one token at once):
# generous limits here; test_rate_limits sets its own and the chaos soak a budget of its own.
os.environ.update({
    "LATLAB_RATE_WINDOW_S": "60",
    "LATLAB_SUBMISSIONS_PER_CALLER": "600", "LATLAB_SUBMISSIONS_PER_ADDRESS": "1800",
    "LATLAB_JOB_LAUNCHES_PER_CALLER": "120", "LATLAB_JOB_LAUNCHES_PER_ADDRESS": "360",
    "LATLAB_HEAVY_READS_PER_CALLER": "600", "LATLAB_HEAVY_READS_PER_ADDRESS": "1800"})

from latlab.core import clock as clock_module  # noqa: E402
from latlab.core.db import get_session  # noqa: E402
from latlab.core.migrate import upgrade  # noqa: E402
from latlab.main import create_app  # noqa: E402
from latlab.models import Role  # noqa: E402
from latlab.projects import service as projects  # noqa: E402
from tests.factories import JSON, Actors  # noqa: E402
from tests.github_server import GitHubServer  # noqa: E402
from tests.gitlab_server import GitLabServer  # noqa: E402
from tests.processes import RunnerProcess  # noqa: E402
from tests.receiver import Receiver  # noqa: E402

TABLES = ["audit_event", "delivery_attempt", "notification", "alert", "channel", "sla_rule",
          "baseline", "login_session", "api_token", "trial", "series", "job", "schedule", "run",
          "host", "host_invitation", "project_member", "user", "rollup", "project", "suite",
          "outbox_message"]


class FrozenClock:
    def __init__(self, moment: datetime) -> None:
        self.moment = moment

    def now(self) -> datetime:
        return self.moment

    def advance(self, **delta: float) -> None:
        self.moment += timedelta(**delta)


def pytest_sessionstart(session: pytest.Session) -> None:
    upgrade(DATABASE_URL)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    for service in reversed(_services):
        service.stop()


@pytest.fixture(scope="session")
def engine():
    engine = create_engine(DATABASE_URL)
    yield engine
    engine.dispose()


@pytest.fixture(autouse=True)
def clock() -> Iterator[FrozenClock]:
    frozen = FrozenClock(datetime(2026, 11, 22, 12, 0, tzinfo=UTC))
    clock_module.set_clock(frozen)
    yield frozen
    clock_module.set_clock(clock_module.SystemClock())


@pytest.fixture(autouse=True)
def forget_failed_logins() -> Iterator[None]:
    """Each test starts with no failed sign-ins and no spent rate limits on record (both live
    in Redis)."""
    yield
    import redis

    from latlab.auth import throttle
    from latlab.core import rate_limits

    client = redis.Redis.from_url(REDIS_URL)
    for prefix in (throttle.KEYS, rate_limits.PREFIX):
        for key in client.scan_iter(f"{prefix}*"):
            client.delete(key)
    client.close()


@pytest.fixture
def db(engine) -> Iterator[Session]:
    """A session inside an outer transaction that is rolled back after the test."""
    connection = engine.connect()
    outer = connection.begin()
    session = Session(bind=connection, join_transaction_mode="create_savepoint",
                      expire_on_commit=False)
    projects.ensure(session, "default")
    try:
        yield session
    finally:
        session.close()
        outer.rollback()
        connection.close()


@pytest.fixture
def committed_db(engine) -> Iterator[Session]:
    """A session whose commits are real; every table is emptied afterwards."""
    session = Session(bind=engine, expire_on_commit=False)
    projects.ensure(session, "default")
    session.commit()
    try:
        yield session
    finally:
        session.close()
        with engine.begin() as connection:
            connection.execute(text(
                "truncate " + ", ".join(f'"{t}"' for t in TABLES) + " restart identity cascade"
            ))


def _client_for(session: Session) -> Iterator[TestClient]:
    app = create_app()

    def session_override() -> Iterator[Session]:
        yield session
        session.commit()

    app.dependency_overrides[get_session] = session_override
    with TestClient(app, headers=JSON) as client:
        yield client


@pytest.fixture
def client(db: Session) -> Iterator[TestClient]:
    yield from _client_for(db)


@pytest.fixture
def actors(db: Session) -> Actors:
    return Actors(db)


def start_api(**settings: str) -> "tuple[str, subprocess.Popen[bytes]]":
    """The api as a real uvicorn process on the test database (with `settings`, e.g.
    LATLAB_ADAPTER_MEMORY_MB), answering; the caller ends it."""
    port = localstack.free_port()
    url = f"http://127.0.0.1:{port}"
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "latlab.main:app", "--host", "127.0.0.1",
         "--port", str(port), "--log-level", "warning", "--no-proxy-headers"],
        env={**os.environ, "LATLAB_PUBLIC_URL": url, **settings},
    )
    deadline = time.monotonic() + 60
    while True:
        try:
            if httpx.get(f"{url}/api/v1/openapi.json", timeout=1).status_code == 200:
                return url, process
        except httpx.HTTPError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError("the api did not start")
        time.sleep(0.2)


@pytest.fixture(scope="session")
def live_server() -> Iterator[str]:
    """The api as a real uvicorn process on the test database; tests using it commit data."""
    url, process = start_api()
    yield url
    process.terminate()
    process.wait(10)


def _celery_worker(queue: str, concurrency: int = 1) -> Iterator[None]:
    """A real Celery worker of the backend on the test broker and database."""
    from latlab.worker import app

    name = f"{queue.split(',')[0]}-test-{os.getpid()}@%h"
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "latlab.worker", "worker", "-Q", queue,
         "-c", str(concurrency), "-n", name, "--loglevel", "WARNING"],
        env=dict(os.environ),
    )
    destination = [name.replace("%h", __import__("socket").gethostname())]
    for _ in range(60):
        if app.control.ping(destination=destination, timeout=1.0):
            break
        if process.poll() is not None:
            raise RuntimeError(f"the {queue} worker exited")
    else:
        process.kill()
        raise RuntimeError(f"the {queue} worker did not answer")
    yield
    process.terminate()
    process.wait(20)


@pytest.fixture(scope="session")
def ingest_worker() -> Iterator[None]:
    """The ingest worker: runner heartbeats, job events and outcomes, the watchdog."""
    from latlab_contract import INGEST_WORKER

    yield from _celery_worker(INGEST_WORKER)


@pytest.fixture(scope="session")
def alerts_worker() -> Iterator[None]:
    """The alerts worker: alert delivery."""
    yield from _celery_worker("alerts", concurrency=2)


def wait_for(predicate, timeout: float = 60.0, interval: float = 0.2):
    """Polls until `predicate()` is truthy (tests of other processes); returns its value."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"gave up waiting after {timeout} s")


@pytest.fixture(scope="session")
def build_cache() -> Path:
    """Suite builds are cached across test sessions (a cold Rust build is ~30 s)."""
    from suite_support import build_cache_dir  # workers/tests: one cache for both trees

    return build_cache_dir()


@pytest.fixture
def start_runner(build_cache, ingest_worker):
    runners: list[RunnerProcess] = []

    def start(name: str, tags: str = "local", **kwargs) -> RunnerProcess:
        runner = RunnerProcess(name, tags, build_cache, **kwargs)
        runners.append(runner)
        return runner

    yield start
    for runner in runners:
        runner.stop()


EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="session")
def orders_repo(tmp_path_factory) -> dict:
    """The example order server's repository (examples/order-repo): six commits, the fifth
    slowing every order, tag v1.0 on the third. One for the session, at one path: a runner
    builds each of its commits once, whichever test asks first."""
    base = tmp_path_factory.mktemp("served")
    made = subprocess.run([sys.executable, str(EXAMPLES / "order-repo" / "make_repo.py"),
                           str(base / "orders"), "--commits", "6", "--slow-at", "5"],
                          capture_output=True, check=True, timeout=120)
    return {"base": base, **json.loads(made.stdout)}


@pytest.fixture
def member(committed_db, live_server):
    """An httpx client of the live api, signed in as a member (a committed user)."""
    client, _ = Actors(committed_db).signed_in(live_server, Role.member, timeout=30)
    return client


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    """A local stand-in for Slack (or a webhook's receiver) that records what it receives."""
    server = Receiver()
    yield server
    server.stop()


@pytest.fixture
def github() -> Iterator[GitHubServer]:
    """A local GitHub that checks each request against GitHub's API description."""
    server = GitHubServer()
    yield server
    server.stop()


@pytest.fixture
def gitlab() -> Iterator[GitLabServer]:
    """A local GitLab that checks each request against GitLab's API description."""
    server = GitLabServer()
    yield server
    server.stop()
