"""Analysis at scale: with 10,000 runs stored, the compare and trends APIs beside the bare
database time of the same reads, and how long a breaching CI submission takes to reach a
local HTTP receiver standing in for Slack.

Everything runs side by side in this run on a throwaway Postgres and Redis, a real api
(uvicorn) and a real ingest worker (Celery). Targets: compare p95 < 50 ms, trends p95 <
100 ms, submission -> receiver < 2 s.

    .venv/bin/python -m bench.analysis [--runs 10000] [--requests 200] [--alerts 5]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import numpy as np
from sqlalchemy import create_engine, insert, select, update
from sqlalchemy.orm import Session

from bench.lab import bench_token
from latlab import localstack

SCENARIOS = ("small", "medium", "large", "stress")
CLIENTS = ("rust", "go")
TRIALS = 5
TEMPLATES = 24  # distinct trial histograms the synthetic runs are made of


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--requests", type=int, default=200, help="per API measured")
    parser.add_argument("--alerts", type=int, default=5, help="breaching submissions timed")
    args = parser.parse_args()

    work = Path(tempfile.mkdtemp(prefix="latlab-bench-"))
    work.chmod(0o755)
    services = [
        localstack.start_postgres(work / "pg", localstack.free_port(), database="bench",
                                  durable=False),
        localstack.start_redis(work / "redis", localstack.free_port(), durable=False),
    ]
    os.environ["LATLAB_DATABASE_URL"] = services[0].url
    os.environ["LATLAB_REDIS_URL"] = services[1].url
    processes: list[subprocess.Popen[bytes]] = []
    try:
        _run(args, services[0].url, processes, work)
    finally:
        for process in processes:
            process.terminate()
            process.wait(30)
        for service in services:
            service.stop()


def _run(args: argparse.Namespace, database_url: str, processes: list[subprocess.Popen[bytes]],
         work: Path) -> None:
    token = bench_token(database_url, "runs:write", "read")
    headers = {"Authorization": f"Bearer {token}"}
    from latlab.models import Project

    engine = create_engine(database_url)
    with engine.begin() as connection:  # the alert receiver listens on 127.0.0.1
        connection.execute(update(Project).values(allow_private_webhooks=True))
    started = time.perf_counter()
    run_ids = _populate(engine, args.runs)
    print(f"stored {len(run_ids):,} runs ({len(run_ids) * len(CLIENTS) * TRIALS:,} trials) "
          f"in {time.perf_counter() - started:.1f} s")

    port = localstack.free_port()
    public_url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "LATLAB_PUBLIC_URL": public_url}
    processes.append(subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "latlab.main:app", "--port", str(port),
         "--log-level", "warning"], env=env))
    processes.append(subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "latlab.worker", "worker", "-Q", "ingest",
         "-c", "1", "-n", f"bench-ingest-{os.getpid()}@%h", "--loglevel", "WARNING"],
        env=env, stdout=open(work / "ingest.log", "wb"), stderr=subprocess.STDOUT))  # noqa: SIM115
    with httpx.Client(base_url=public_url, headers=headers, timeout=60) as api:
        _wait_for(lambda: _answers(api), "the api")
        rng = np.random.default_rng(7)
        by_scenario = _runs_by_scenario(engine)

        pairs = []
        for _ in range(args.requests):
            ids = by_scenario[SCENARIOS[int(rng.integers(len(SCENARIOS)))]]
            pairs.append((int(rng.choice(ids)), int(rng.choice(ids))))
        compare_api = _timed(pairs, lambda p: api.get(
            "/api/v1/compare", params={"baseline": p[0], "candidate": p[1]}))
        compare_db = _timed(pairs, lambda p: _load_two(engine, p))

        histories = [(s, c, m) for s in SCENARIOS for c in CLIENTS for m in ("p99", "p50")]
        queries = [histories[i % len(histories)] for i in range(args.requests)]
        trends_cold = _timed(histories, lambda q: _trend(api, q))
        trends_api = _timed(queries, lambda q: _trend(api, q))
        trends_db = _timed(queries, lambda q: _trend_rows(engine, q))

        delays = _alert_delays(api, public_url, args.alerts)

    engine.dispose()
    print()
    print(f"{'':38}{'p50':>10}{'p95':>10}   target")
    _row("compare API", compare_api, 50)
    _row("  its database reads (2 runs)", compare_db)
    _row("trends API (200 points, memoised)", trends_api, 100)
    _row(f"trends API, first call ({len(histories)} series)", trends_cold)
    _row("  its database read", trends_db)
    print(f"{'compare API / database':38}{_p(compare_api, 50) / _p(compare_db, 50):>9.1f}x"
          f"{_p(compare_api, 95) / _p(compare_db, 95):>9.1f}x")
    print(f"{'trends API / database':38}{_p(trends_api, 50) / _p(trends_db, 50):>9.1f}x"
          f"{_p(trends_api, 95) / _p(trends_db, 95):>9.1f}x")
    print()
    worst = max(delays)
    print(f"breaching CI submission -> receiver, {len(delays)} alerts: median "
          f"{statistics.median(delays):.3f} s, worst {worst:.3f} s   target < 2 s "
          f"[{'ok' if worst < 2 else 'MISSED'}]")


def _populate(engine: Any, runs: int) -> list[int]:
    """Synthetic runs made of real histograms: a few trial templates built by latlab's own
    histogram code, reused with bulk inserts (the API would take an hour for 10,000)."""
    from latlab.models import Project, Run, Series, Trial
    from latlab.runs.histogram import Histogram
    from latlab.runs.service import label_key

    rng = np.random.default_rng(1)
    templates = []
    for index in range(TEMPLATES):
        scale = 350_000 * (1 + 0.02 * (index % 6))
        histogram = Histogram.from_samples(
            rng.lognormal(np.log(scale), 0.3, 20_000).astype(np.int64))
        summary = histogram.summary().as_dict()
        templates.append({"histogram": Histogram(histogram.counts).to_blob(), "exact": False,
                          **summary})
    with Session(engine) as session, session.begin():
        project_id = session.scalar(select(Project.id).where(Project.slug == "default"))
        start = datetime(2026, 1, 1, tzinfo=UTC)
        run_rows = [{
            "project_id": project_id, "suite": "http-order", "scenario": SCENARIOS[i % 4],
            "params": {}, "started_at": start + timedelta(minutes=10 * i),
            "created_at": start + timedelta(minutes=10 * i), "source_kind": "ci",
            "commit": f"{i:08x}", "branch": "main" if i % 5 else f"feature-{i % 7}",
            "host_name": f"lab-{i % 2:02d}", "host_tags": ["bench"],
            "host_fingerprint": {"cpu_model": "bench"}, "verdict": "pass",
            "verdict_reasons": [],
        } for i in range(runs)]
        run_ids = list(session.scalars(insert(Run).returning(Run.id), run_rows))
        series_rows = [{"run_id": run_id, "labels": {"client": client},
                        "label_key": label_key({"client": client}),
                        "summary": {k: v for k, v in templates[0].items()
                                    if k not in ("histogram", "exact")},
                        "metrics": {"throughput": 100_000.0}}
                       for run_id in run_ids for client in CLIENTS]
        series_ids = list(session.scalars(insert(Series).returning(Series.id), series_rows))
        trial_rows = []
        for series_id in series_ids:
            for index in range(TRIALS):
                template = templates[int(rng.integers(TEMPLATES))]
                trial_rows.append({**template, "series_id": series_id, "index": index,
                                   "metrics": {"throughput": float(rng.normal(1e5, 1e3))}})
        for offset in range(0, len(trial_rows), 5_000):
            session.execute(insert(Trial), trial_rows[offset:offset + 5_000])
    return run_ids


def _runs_by_scenario(engine: Any) -> dict[str, list[int]]:
    from latlab.models import Run

    with Session(engine) as session:
        return {s: list(session.scalars(select(Run.id).where(Run.scenario == s)))
                for s in SCENARIOS}


def _load_two(engine: Any, pair: tuple[int, int]) -> None:
    from latlab.analysis.service import load_run

    with Session(engine) as session:
        load_run(session, pair[0])
        load_run(session, pair[1])


def _trend(api: httpx.Client, query: tuple[str, str, str]) -> httpx.Response:
    scenario, client, metric = query
    return api.get("/api/v1/trends", params={
        "suite": "http-order", "scenario": scenario, "metric": metric, "branch": "main",
        "labels": json.dumps({"client": client})})


def _trend_rows(engine: Any, query: tuple[str, str, str]) -> None:
    from latlab.models import Run, Series
    from latlab.runs.service import label_key

    scenario, client, _ = query
    with Session(engine) as session:
        session.execute(
            select(Run, Series).join(Series, Series.run_id == Run.id)
            .where(Run.suite == "http-order", Run.scenario == scenario, Run.branch == "main",
                   Series.label_key == label_key({"client": client}))
            .order_by(Run.started_at.desc(), Run.id.desc()).limit(200)).all()


def _alert_delays(api: httpx.Client, public_url: str, count: int) -> list[float]:
    """Each submission breaches a p99 rule on a new series, so each opens a new alert."""
    received: list[float] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers["Content-Length"]))
            received.append(time.perf_counter())
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with httpx.Client(base_url=public_url, timeout=60) as member:  # settings need a user
        _ok(member.post("/api/v1/auth/login", json={
            "email": f"bench-{os.getpid()}@lab.test", "password": "bench-password"}))
        _ok(member.post("/api/v1/channels", json={
            "name": "receiver", "kind": "slack",
            "url": f"http://127.0.0.1:{server.server_port}/hook"}))
        _ok(member.post("/api/v1/sla-rules", json={
            "name": "p99 under 1 ms", "suite": "ci-gate", "metric": "p99", "op": ">",
            "threshold": 1, "unit": "ms", "severity": "critical"}))
    samples = np.random.default_rng(3).lognormal(np.log(2_000_000), 0.2, 5_000).astype(int)
    delays = []
    try:
        for index in range(count):
            document = {
                "schema": "latlab.result/v1", "suite": "ci-gate", "scenario": "default",
                "started_at": datetime.now(UTC).isoformat(),
                "source": {"kind": "ci", "branch": f"pr-{index}"},
                "series": [{"labels": {"client": f"c{index}"},
                            "trials": [{"latency": {"samples_ns": samples.tolist()}}]}],
            }
            before = len(received)
            sent = time.perf_counter()
            response = api.post("/api/v1/runs", json=document)
            _ok(response)
            assert response.json()["verdict"] == "fail", response.text
            _wait_for(lambda: len(received) > before, "the receiver", 30)  # noqa: B023
            delays.append(received[before] - sent)
    finally:
        server.shutdown()
    return delays


def _timed(items: list[Any], call: Callable[[Any], Any]) -> list[float]:
    times = []
    for item in items:
        started = time.perf_counter()
        result = call(item)
        times.append(time.perf_counter() - started)
        if isinstance(result, httpx.Response):
            _ok(result)
    return times


def _p(times: list[float], q: float) -> float:
    return float(np.percentile(times, q))


def _row(name: str, times: list[float], target_ms: float | None = None) -> None:
    p95 = _p(times, 95) * 1000
    verdict = "" if target_ms is None else (
        f"   < {target_ms:g} ms [{'ok' if p95 < target_ms else 'MISSED'}]")
    print(f"{name:38}{_p(times, 50) * 1000:>8.1f}ms{p95:>8.1f}ms{verdict}")


def _ok(response: httpx.Response) -> None:
    if response.status_code >= 400:
        raise RuntimeError(f"{response.request.method} {response.request.url}: "
                           f"{response.status_code} {response.text[:500]}")


def _answers(api: httpx.Client) -> bool:
    try:
        return api.get("/api/v1/openapi.json").status_code == 200
    except httpx.HTTPError:
        return False


def _wait_for(predicate: Callable[[], bool], what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.01)
    raise RuntimeError(f"{what} did not answer within {timeout:g} s")


if __name__ == "__main__":
    main()
