"""What the benchmarks share: throwaway Postgres and Redis, a migrated database with a token to
call the api with, waiting for an api to answer, and a whole lab of real processes (Postgres,
Redis, the api, an ingest worker, a runner)."""

import argparse
import atexit
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, Any

import httpx
from sqlalchemy import create_engine
from sqlalchemy.orm import Session

import latlab_stack as localstack
from latlab.core import rate_limits
from latlab_contract import INGEST_WORKER

# The benches measure the lab itself, as fast as one token can go: the api processes they start
# have no fair-use limits, unless the environment gives some (`bench.chaos` runs the defaults).
for _setting in rate_limits.ENVIRONMENT[1:]:
    os.environ.setdefault(_setting, "0")


def bench_token(database_url: str, *scopes: str) -> str:
    """Runs the migrations, creates a member and returns an API token with `scopes`."""
    from latlab.auth import service as auth_service
    from latlab.auth.schemas import TokenCreate, UserCreate
    from latlab.core.migrate import upgrade
    from latlab.models import Role, Scope
    from latlab.projects import service as projects

    upgrade(database_url)
    engine = create_engine(database_url)
    with Session(engine) as session, session.begin():
        projects.ensure(session, "default")
        user = auth_service.create_user(session, UserCreate(
            email=f"bench-{os.getpid()}@lab.test", password="bench-password", role=Role.member))
        token: str
        _, token = auth_service.create_token(session, user, TokenCreate(
            name="bench", scopes=[Scope(s) for s in scopes]))
    engine.dispose()
    return token


def bench_host_key(database_url: str, name: str, tag: str) -> str:
    """The bench runner's host, enrolled as `make up` enrolls its own: the key it signs with."""
    from latlab.hosts import enrollment

    engine = create_engine(database_url)
    with Session(engine) as session, session.begin():
        key: str = enrollment.reenroll(session, name, [tag]).grant.key
    engine.dispose()
    return key


def work_dir() -> Path:
    """A directory for the bench's own Postgres and Redis, removed when the bench ends (a
    bench of 1,200 runs of 400 series leaves 2.5 GB: thirty of them filled this disk)."""
    work = Path(tempfile.mkdtemp(prefix="latlab-bench-"))
    work.chmod(0o755)  # postgres runs as its own user and must reach its directory
    atexit.register(shutil.rmtree, work, ignore_errors=True)
    return work


def start_services(work: Path, durable: bool = False) -> list[localstack.Service]:
    """A throwaway Postgres (database `bench`) and Redis in `work`, unless LATLAB_DATABASE_URL
    / LATLAB_REDIS_URL name servers to use; sets both variables for this process and its
    children. The caller stops what is returned."""
    started = []
    if "LATLAB_DATABASE_URL" not in os.environ:
        postgres = localstack.start_postgres(work / "pg", localstack.free_port(),
                                             database="bench", durable=durable)
        started.append(postgres)
        os.environ["LATLAB_DATABASE_URL"] = postgres.url
    if "LATLAB_REDIS_URL" not in os.environ:
        redis = localstack.start_redis(work / "redis", localstack.free_port(), durable=False)
        started.append(redis)
        os.environ["LATLAB_REDIS_URL"] = redis.url
    return started


def wait_for_api(url: str, timeout: float = 60) -> None:
    """Until the api at `url` (its root, without /api/v1) answers."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(f"{url}/api/v1/openapi.json", timeout=1).status_code == 200:
                return
        time.sleep(0.1)
    raise RuntimeError(f"the api at {url} did not answer within {timeout:g} s")


class Processes:
    """Every process the bench starts, each in its own session (so a Ctrl-C reaches the bench
    only, and the bench stops them in order, whole process groups at once)."""

    def __init__(self, logs: Path) -> None:
        self.logs = logs
        self.started: list[subprocess.Popen[bytes]] = []

    def start(self, name: str, argv: list[str], env: dict[str, str] | None = None,
              cwd: Path | None = None, stdout: int | IO[bytes] | None = None
              ) -> subprocess.Popen[bytes]:
        log = open(self.logs / f"{name}.log", "ab")  # noqa: SIM115 - owned by the child
        try:
            process = subprocess.Popen(argv, env=env, cwd=cwd, stdout=stdout or log,
                                       stderr=log, start_new_session=True)
        finally:
            log.close()
        self.started.append(process)
        return process

    def stop(self, process: subprocess.Popen[bytes], timeout: float = 20.0) -> None:
        if process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGTERM)
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            except ProcessLookupError:
                pass
        # A group can outlive its leader (Celery's pool children): make sure it is gone.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGKILL)
        if process.stdout is not None:
            process.stdout.close()
        if process in self.started:
            self.started.remove(process)

    def stop_all(self) -> None:
        for process in reversed(list(self.started)):
            self.stop(process)


@dataclass(frozen=True)
class Lab:
    api: httpx.Client  # /api/v1, with a token of every scope
    member: httpx.Client  # /api/v1, signed in as the token's owner (what only people may do)
    database_url: str
    host_name: str
    host_tag: str
    build_cache: Path
    processes: Processes
    work: Path


@contextlib.contextmanager
def running_lab(runner_prefix: list[str] | None = None,
                runner_env: dict[str, str] | None = None) -> Iterator[Lab]:
    """Throwaway Postgres and Redis (unless LATLAB_DATABASE_URL / LATLAB_REDIS_URL are set),
    the api, an ingest worker and a runner (its argv after `runner_prefix`, e.g. taskset), all
    stopped afterwards. Builds go to the tests' cache, so a bench reuses their builds."""
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    work = work_dir()
    services: list[localstack.Service] = []
    processes = Processes(work)
    try:
        services = start_services(work)
        database_url = os.environ["LATLAB_DATABASE_URL"]
        token = bench_token(database_url, "read", "jobs:write", "runs:write")
        build_cache = Path(os.environ.get("LATLAB_TEST_BUILD_CACHE",
                                          Path.home() / ".cache" / "latlab" / "test-builds"))
        build_cache.mkdir(parents=True, exist_ok=True)
        host_name, tag = f"bench-{os.getpid()}", "bench"
        port = localstack.free_port()
        url = f"http://127.0.0.1:{port}"
        env = {**os.environ, "LATLAB_PUBLIC_URL": url}
        watched = [
            processes.start("api", [
                sys.executable, "-m", "uvicorn", "latlab.main:app", "--host", "127.0.0.1",
                "--port", str(port), "--log-level", "warning"], env=env),
            processes.start("ingest", [
                sys.executable, "-m", "celery", "-A", "latlab.worker", "worker", "-Q",
                INGEST_WORKER,
                "-c", "1", "-n", f"ingest-{host_name}@%h", "--loglevel", "WARNING"], env=env),
        ]
        runner = {**env, "LATLAB_HOST_NAME": host_name, "LATLAB_HOST_TAGS": tag,
                  "LATLAB_BUILD_CACHE": str(build_cache), "LATLAB_HEARTBEAT_S": "1",
                  "LATLAB_HOST_KEY": bench_host_key(database_url, host_name, tag),
                  **(runner_env or {})}
        runner.pop("LATLAB_DATABASE_URL")  # runners hold no database credentials
        watched.append(processes.start("runner", [
            *(runner_prefix or []), sys.executable, "-m", "celery", "-A", "latlab_workers.app",
            "worker", "-Q", f"host.{host_name}", "-c", "1", "-n", f"{host_name}@%h",
            "--loglevel", "WARNING"], env=runner))
        with httpx.Client(base_url=f"{url}/api/v1", timeout=60,
                          headers={"Authorization": f"Bearer {token}"}) as api, httpx.Client(
                base_url=f"{url}/api/v1", timeout=60) as member:
            _wait_for_host(api, host_name, watched, work)
            member.post("/auth/login", json={"email": f"bench-{os.getpid()}@lab.test",
                                             "password": "bench-password"}).raise_for_status()
            yield Lab(api, member, database_url, host_name, tag, build_cache, processes, work)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        raise SystemExit(130) from None
    finally:
        processes.stop_all()
        for service in reversed(services):
            service.stop()


def _wait_for_host(client: httpx.Client, name: str,
                   watched: list[subprocess.Popen[bytes]], work: Path) -> None:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        for process in watched:
            if process.poll() is not None:
                raise RuntimeError(f"a bench process exited early ({process.args!r}); "
                                   f"logs in {work}")
        try:
            response = client.get("/hosts", timeout=2)
            if response.status_code == 200 and any(
                    h["name"] == name and h["online"] for h in response.json()):
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.3)
    raise RuntimeError(f"the runner {name} did not come online; logs in {work}")


def run_job(lab: Lab, suite: str, scenario: str, params: dict[str, Any],
            repetitions: int | None = None, fields: dict[str, Any] | None = None
            ) -> tuple[dict[str, Any], dict[str, Any]]:
    """Launch a job on the bench's host and wait for it: (the job, its run). `fields`: more
    of the request (a repository's `repo` and `ref`, a try job's `compare`)."""
    body: dict[str, Any] = {"suite": suite, "scenario": scenario, "params": params,
                            "host_tags": [lab.host_tag], **(fields or {})}
    if repetitions is not None:
        body["repetitions"] = repetitions
    response = lab.api.post("/jobs", json=body)
    response.raise_for_status()
    job = wait_job(lab, response.json()["id"])
    if job["status"] != "succeeded":
        raise RuntimeError(f"job {job['id']} {job['status']}: {job['error']}")
    return job, dict(lab.api.get(f"/runs/{job['run_id']}").raise_for_status().json())


def wait_job(lab: Lab, job_id: int, timeout_s: float = 1800) -> dict[str, Any]:
    """The job once it has ended, however it ended."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        job: dict[str, Any] = lab.api.get(f"/jobs/{job_id}").raise_for_status().json()
        if job["status"] in ("succeeded", "failed", "cancelled", "timed_out"):
            return job
        time.sleep(0.2)
    raise RuntimeError(f"job {job_id} did not finish in {timeout_s / 60:.0f} minutes")


def job_minutes(job: dict[str, Any]) -> float:
    """The lab time a job took, from its start to its end (nan if it never started); a try
    job's, its stages' (each stage starts the job again)."""
    if job.get("stages"):
        return float(sum(stage["seconds"] for stage in job["stages"]["measured"])) / 60
    if not job["started_at"] or not job["finished_at"]:
        return float("nan")
    return (_at(job["finished_at"]) - _at(job["started_at"])).total_seconds() / 60


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def scenarios(text: str, defaults: dict[str, str]) -> dict[str, str]:
    """`--scenarios echo=steady,http-order=steady` over a bench's default scenario per suite;
    a suite it does not know is a usage error."""
    chosen = dict(defaults)
    for item in filter(None, (part.strip() for part in text.split(","))):
        suite, _, scenario = item.partition("=")
        if suite not in defaults or not scenario:
            raise argparse.ArgumentTypeError(f"{item!r}: give suite=scenario, the suite one of "
                             f"{', '.join(defaults)}")
        chosen[suite] = scenario
    return chosen
