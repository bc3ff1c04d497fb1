"""A throwaway lab judging simulated histories, for the benches of the lab's statistics
(bench.gate, bench.creep): Postgres and Redis of its own, the api as a real process, an admin
who sets the suites' gate settings through the api, and clients that send runs through `POST
/runs` (`latlab.result/v1` documents of latency samples only, so p99 is the one gated metric)
whose trials have exactly the p99 drawn."""

import math
import os
import queue
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx
import numpy as np
import numpy.typing as npt
from sqlalchemy import Engine, create_engine
from sqlalchemy.orm import Session

import latlab_stack as localstack
from bench.lab import Processes, bench_token, start_services, wait_for_api, work_dir

LEVEL_NS = 1_000_000  # a history's p99 level: 1 ms
START = datetime(2026, 1, 5, 8, tzinfo=UTC)
ADMIN = (f"simulated-admin-{os.getpid()}@lab.test", "simulated-admin-password")

Job = Callable[[httpx.Client], None]


@dataclass
class SimulatedLab:
    url: str
    engine: Engine  # the lab's database, to read what it did (its alerts)
    token: str  # runs:write and read


class Progress:
    """Submissions so far, printed every 300 with the time left."""

    def __init__(self, expected: int) -> None:
        self.expected = expected
        self.submitted = 0
        self.started = time.monotonic()
        self.lock = threading.Lock()

    def count(self) -> None:
        with self.lock:
            self.submitted += 1
            if self.submitted % 300 == 0:
                elapsed = time.monotonic() - self.started
                rate = self.submitted / elapsed
                print(f"{self.submitted}/{self.expected} submissions in {elapsed:.0f} s "
                      f"({rate:.1f}/s, ~{(self.expected - self.submitted) / rate:.0f} s left)",
                      file=sys.stderr, flush=True)


@contextmanager
def simulated_lab(gate_settings: dict[str, dict[str, Any]],
                  clients: int) -> Iterator[SimulatedLab]:
    """The lab with `gate_settings` (by suite) set by an admin through the api."""
    work = work_dir()
    services = start_services(work)
    processes = Processes(work)
    try:
        database_url = os.environ["LATLAB_DATABASE_URL"]
        token = bench_token(database_url, "runs:write", "read")
        _create_admin(database_url)
        port = localstack.free_port()
        url = f"http://127.0.0.1:{port}"
        processes.start("api", [
            sys.executable, "-m", "uvicorn", "latlab.main:app", "--host", "127.0.0.1",
            "--port", str(port), "--log-level", "warning"],
            env={**os.environ, "LATLAB_PUBLIC_URL": url})
        wait_for_api(url)
        with httpx.Client(base_url=f"{url}/api/v1", timeout=60) as admin:
            admin.post("/auth/login", json={"email": ADMIN[0], "password": ADMIN[1]}
                       ).raise_for_status()
            admin.put("/gate-settings", json={"suites": gate_settings}).raise_for_status()
        engine = create_engine(database_url, pool_size=clients)
        try:
            yield SimulatedLab(url, engine, token)
        finally:
            engine.dispose()
    finally:
        processes.stop_all()
        for service in reversed(services):
            service.stop()


def run_clients(lab: SimulatedLab, jobs: Iterable[Job], clients: int) -> None:
    """`jobs` (each a history sent by one client), taken in order by `clients` clients."""
    waiting: queue.SimpleQueue[Job] = queue.SimpleQueue()
    for job in jobs:
        waiting.put(job)

    def client() -> None:
        with httpx.Client(base_url=f"{lab.url}/api/v1", timeout=120,
                          headers={"Authorization": f"Bearer {lab.token}"}) as api:
            while True:
                try:
                    job = waiting.get_nowait()
                except queue.Empty:
                    return
                job(api)

    with ThreadPoolExecutor(clients) as pool:
        for running in [pool.submit(client) for _ in range(clients)]:
            running.result()


def template(samples: int, seed: int) -> npt.NDArray[np.float64]:
    """One trial's latency shape, sorted, scaled so that its nearest-rank p99 is 1."""
    shape = np.sort(np.random.default_rng(seed).lognormal(0.0, 0.3, samples))
    scaled: npt.NDArray[np.float64] = shape / shape[math.ceil(99 * samples / 100) - 1]
    return scaled


def submit(client: httpx.Client, shape: npt.NDArray[np.float64], progress: Progress,
           suite: str, scenario: str, branch: str, at: datetime, commit: str,
           p99s: npt.NDArray[np.float64]) -> dict[str, Any]:
    """`POST /runs` of a run of one series whose trials' p99 are `p99s`."""
    document = {
        "schema": "latlab.result/v1", "suite": suite, "scenario": scenario,
        "started_at": at.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "source": {"kind": "ci", "branch": branch, "commit": commit},
        "host": {"name": "simulated", "tags": ["bench"]},
        "series": [{"labels": {"client": "bench"}, "trials": [
            {"latency": {"samples_ns": np.rint(shape * p99).astype(np.int64).tolist()}}
            for p99 in p99s]}]}
    answer = client.post("/runs", json=document)
    if answer.status_code != 201:
        raise RuntimeError(f"POST /runs: {answer.status_code} {answer.text[:500]}")
    progress.count()
    created: dict[str, Any] = answer.json()
    return created


def _create_admin(database_url: str) -> None:
    from latlab.auth import service as auth_service
    from latlab.auth.schemas import UserCreate
    from latlab.models import Role

    engine = create_engine(database_url)
    with Session(engine) as session, session.begin():
        auth_service.create_user(session, UserCreate(email=ADMIN[0], password=ADMIN[1],
                                                     role=Role.admin))
    engine.dispose()
