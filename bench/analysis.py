"""Analysis at scale: with a history of `--runs` runs stored through the ingest's own bulk path
(COPY, `latlab_stack.history`), the compare, trends and runs-list APIs beside the bare database
time of the same reads; a retention pass over a day of that history while submissions keep
coming (their latency before and during it); and how long a breaching CI submission takes to
reach a local HTTP receiver standing in for Slack.

Everything runs side by side in this run on a throwaway Postgres and Redis, a real api
(uvicorn) and a real ingest worker (Celery). Targets at 1,000,000 runs: compare p95 < 30 ms,
trends p95 < 100 ms first call and < 30 ms memoised, runs list p95 < 50 ms, the retention
pass over a day < 60 s with ingest p95 during it within 1.5x, submission -> receiver < 2 s.
(The 10,000,000-sample submission is `bench.ingest`.)

    .venv/bin/python -m bench.analysis [--runs 1000000] [--requests 200] [--alerts 5]
"""

import argparse
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import numpy as np
from sqlalchemy import create_engine, select, update
from sqlalchemy.orm import Session, sessionmaker

import latlab_stack as localstack
from bench.lab import bench_token, wait_for_api, work_dir
from latlab.models import Project
from latlab.runs import keys, maintenance
from latlab_contract import INGEST_WORKER
from latlab_stack import history


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--trials", type=int, default=2, help="per series")
    parser.add_argument("--requests", type=int, default=200, help="per API measured")
    parser.add_argument("--alerts", type=int, default=5, help="breaching submissions timed")
    args = parser.parse_args()

    work = work_dir()
    services = [  # its own, always: it stores a year of history
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
    engine = create_engine(database_url)
    with engine.begin() as connection:  # the alert receiver listens on 127.0.0.1
        connection.execute(update(Project).values(allow_private_webhooks=True))
    every = timedelta(days=365) / max(args.runs, 1)  # a year of history, however many runs
    started = time.perf_counter()
    with Session(engine) as session, session.begin():
        for month in range(14):
            maintenance.ensure_partitions(session, history.START + timedelta(days=30 * month))
        first = history.load(session, args.runs, trials=args.trials, every=every)
    print(f"stored {args.runs:,} runs ({args.runs * len(history.CLIENTS) * args.trials:,} "
          f"trials) in {time.perf_counter() - started:.1f} s through COPY", flush=True)
    run_ids = range(first, first + args.runs)

    port = localstack.free_port()
    public_url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "LATLAB_PUBLIC_URL": public_url}
    processes.append(subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "latlab.main:app", "--port", str(port),
         "--log-level", "warning"], env=env))
    for name, queues in (("ingest", INGEST_WORKER), ("alerts", "alerts")):  # alerts apart
        processes.append(subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "latlab.worker", "worker", "-Q", queues,
             "-c", "1", "-n", f"bench-{name}-{os.getpid()}@%h", "--loglevel", "WARNING"],
            env=env, stdout=open(work / f"{name}.log", "wb"),  # noqa: SIM115
            stderr=subprocess.STDOUT))
    wait_for_api(public_url)
    with httpx.Client(base_url=public_url, headers=headers, timeout=60) as api:
        rng = np.random.default_rng(7)
        # Two runs of the same scenario (every 4th run), anywhere in the year.
        pairs = []
        for _ in range(args.requests):
            a, b = (int(rng.integers(args.runs // 4)) * 4 for _ in range(2))
            pairs.append((run_ids[a], run_ids[b]))
        compare_api = _timed(pairs, lambda p: api.get(
            "/api/v1/compare", params={"baseline": p[0], "candidate": p[1]}))
        compare_db = _timed(pairs, lambda p: _load_two(engine, p))

        histories = [(s, c, m) for s in history.SCENARIOS for c in history.CLIENTS
                     for m in ("p99", "p50")]
        queries = [histories[i % len(histories)] for i in range(args.requests)]
        # The api process's first trend pays its own start (statements compiled, buffers
        # read): timed apart, on a history measured nowhere else, so each first call below
        # is a history's first, not the process's.
        warm_up = _timed([(history.SCENARIOS[0], history.CLIENTS[0], "p90")],
                         lambda q: _trend(api, q))
        trends_cold = _timed(histories, lambda q: _trend(api, q))
        trends_api = _timed(queries, lambda q: _trend(api, q))
        trends_db = _timed(queries, lambda q: _trend_rows(engine, q))

        pages = [{"suite": "http-order"}, {}, {"suite": "http-order", "scenario": "large"},
                 {"suite": "http-order", "branch": "main"}]
        listing = [pages[i % len(pages)] for i in range(args.requests)]
        runs_api = _timed(listing, lambda q: api.get("/api/v1/runs", params=q))

        passes = [(pace, *_retention_pass(api, engine, day, pace))
                  for day, pace in enumerate((0.0, maintenance.PACE))]
        delays = _alert_delays(api, public_url, args.alerts)

    engine.dispose()
    print()
    print(f"{'':42}{'p50':>10}{'p95':>10}   target")
    _row("compare API", compare_api, 30)
    _row("  its database reads (2 runs)", compare_db)
    print(f"{'the api process first trend (its p90)':42}{1000 * warm_up[0]:>8.1f}ms")
    _row(f"trends API, first call ({len(histories)} series)", trends_cold, 100)
    print(f"{'  each first call, in order (ms)':42}"
          + " ".join(f"{1000 * t:.0f}" for t in trends_cold))
    _row("trends API (200 points, memoised)", trends_api, 30)
    _row("  its database read", trends_db)
    _row("runs list API (filters, newest page)", runs_api, 50)
    print(f"{'compare API / database':42}{_p(compare_api, 50) / _p(compare_db, 50):>9.1f}x"
          f"{_p(compare_api, 95) / _p(compare_db, 95):>9.1f}x")
    print(f"{'trends API / database':42}{_p(trends_api, 50) / _p(trends_db, 50):>9.1f}x"
          f"{_p(trends_api, 95) / _p(trends_db, 95):>9.1f}x")
    print()
    for pace, retention_s, ingest_before, ingest_during in passes:
        slower = _p(ingest_during, 95) / _p(ingest_before, 95)
        target = pace == maintenance.PACE  # the lab's; unpaced is the reference beside it
        verdict = (f"[{'ok' if retention_s < 60 and slower <= 1.5 else 'MISSED'}]"
                   if target else "(reference)")
        print(f"retention pass over a day at pace {pace:g} ({retention_s:.1f} s; target < 60 s): "
              f"ingest p95 {_p(ingest_before, 95) * 1000:.0f} ms before, "
              f"{_p(ingest_during, 95) * 1000:.0f} ms during = {slower:.2f}x; "
              f"target within 1.5x {verdict}")
    worst = max(delays)
    print(f"breaching CI submission -> receiver, {len(delays)} alerts: median "
          f"{statistics.median(delays):.3f} s, worst {worst:.3f} s   target < 2 s "
          f"[{'ok' if worst < 2 else 'MISSED'}]")


def _retention_pass(api: httpx.Client, engine: Any, day: int,
                    pace: float) -> tuple[float, list[float], list[float]]:
    """Day `day` of the history rolled up and retired, paced as `pace` says, while a client
    keeps submitting runs; returns the pass's time and the submissions' latencies before and
    during it. The pass runs in a process of its own, as in the lab (the maintenance worker):
    in this one it would hold the submitting client's interpreter lock."""
    def submit() -> float:
        document = {"schema": "latlab.result/v1", "suite": "http-order", "scenario": "ingest",
                    "started_at": datetime.now(UTC).isoformat(),
                    "series": [{"labels": {"client": "bench"}, "trials": [
                        {"latency": {"samples_ns": samples.tolist()}}]}]}
        started = time.perf_counter()
        _ok(api.post("/api/v1/runs", json=document))
        return time.perf_counter() - started

    samples = np.random.default_rng(5).lognormal(np.log(350_000), 0.3, 2_000).astype(int)
    before = [submit() for _ in range(30)]
    with Session(engine) as session, session.begin():
        session.execute(update(Project).values(intervals_retention_days=1,
                                               histograms_retention_days=1))
    during: list[float] = []
    done = threading.Event()

    def keep_submitting() -> None:
        while not done.is_set():
            during.append(submit())

    thread = threading.Thread(target=keep_submitting, daemon=True)
    thread.start()
    # A minute before the end of the day after `day`: that day is not finished (it is not
    # rolled up) and runs of its first minute are not yet a day old (they stay).
    now = history.START + timedelta(days=day + 2, minutes=-1)
    with multiprocessing.get_context("spawn").Pool(1) as pool:
        elapsed = pool.apply(_retain, (engine.url.render_as_string(hide_password=False),
                                       now, pace))
    done.set()
    thread.join()
    return elapsed, before, during or [float("nan")]


def _retain(database_url: str, now: datetime, pace: float) -> float:
    """One maintenance pass at `now`, as the maintenance task runs it."""
    engine = create_engine(database_url)
    started = time.perf_counter()
    done = maintenance.apply(sessionmaker(engine), budget_s=600, now=now, pace=pace)
    elapsed = time.perf_counter() - started
    assert done["rolled_up_days"] == 1 and done["histograms"], done
    engine.dispose()
    return elapsed


def _default_project(session: Session) -> int:
    project_id = session.scalar(select(Project.id).where(Project.slug == "default"))
    assert project_id is not None
    return int(project_id)


def _load_two(engine: Any, pair: tuple[int, int]) -> None:
    from latlab.runs.service import load_run

    with Session(engine) as session:
        load_run(session, pair[0])
        load_run(session, pair[1])


def _trend(api: httpx.Client, query: tuple[str, str, str]) -> httpx.Response:
    scenario, client, metric = query
    return api.get("/api/v1/trends", params={
        "suite": "http-order", "scenario": scenario, "metric": metric, "branch": "main",
        "labels": json.dumps({"client": client})})


def _trend_rows(engine: Any, query: tuple[str, str, str]) -> None:
    from latlab.analysis.trends import TrendQuery, trend

    scenario, client, metric = query
    with Session(engine) as session:
        project_id = _default_project(session)
        trend(session, TrendQuery(suite="http-order", scenario=scenario, metric=metric,
                                  label_key=keys.label_key({"client": client}),
                                  project_id=project_id, params=history.PARAMS,
                                  branch="main"))


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
    return float(np.percentile(times, q, method="inverted_cdf"))  # nearest rank


def _row(name: str, times: list[float], target_ms: float | None = None) -> None:
    p95 = _p(times, 95) * 1000
    verdict = "" if target_ms is None else (
        f"   < {target_ms:g} ms [{'ok' if p95 < target_ms else 'MISSED'}]")
    print(f"{name:38}{_p(times, 50) * 1000:>8.1f}ms{p95:>8.1f}ms{verdict}")


def _ok(response: httpx.Response) -> None:
    if response.status_code >= 400:
        raise RuntimeError(f"{response.request.method} {response.request.url}: "
                           f"{response.status_code} {response.text[:500]}")


def _wait_for(predicate: Callable[[], bool], what: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.01)
    raise RuntimeError(f"{what} did not answer within {timeout:g} s")


if __name__ == "__main__":
    main()
