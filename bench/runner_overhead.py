"""Runner overhead: the echo client bare vs through a job, same parameters, side by side.

Starts a throwaway Postgres and Redis (or uses LATLAB_DATABASE_URL / LATLAB_REDIS_URL), the
api, an ingest worker and a runner worker, launches one warm-up job (it builds the programs),
then alternates rounds of: the suite's own echo-server + echo-client started directly (bare),
and the same scenario as a job through the api and the runner. Prints the median p50 and
throughput of each and their ratios. Target: the job within 5 % of bare on both.

    .venv/bin/python -m bench.runner_overhead [--rounds 5] [--count 20000] [--warmup 2000]
                                              [--cpus 0]   # taskset both paths the same way
"""

import argparse
import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import httpx

from bench.lab import bench_token
from latlab import localstack
from latlab_workers.runner import render
from latlab_workers.suites import SUITES_DIR, Suite, load_suite

SUITE = "echo"
SCENARIO = "default"
HOST_TAG = "bench"
TARGET = 0.05


@dataclass(frozen=True)
class Sample:
    p50_ns: float
    throughput: float
    wall_s: float


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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--count", type=int, default=20_000)
    parser.add_argument("--warmup", type=int, default=2_000)
    parser.add_argument("--cpus", default=None,
                        help="a taskset CPU list for the runner worker (so the job's programs) "
                             "and the bare programs alike, e.g. 0 or 0,1")
    args = parser.parse_args()
    # SIGTERM unwinds like Ctrl-C, so the finally blocks below stop everything.
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))

    work = Path(tempfile.mkdtemp(prefix="latlab-bench-"))
    work.chmod(0o755)  # postgres runs as its own user and must reach its directory
    services: list[localstack.Service] = []
    processes = Processes(work)
    try:
        database_url = os.environ.get("LATLAB_DATABASE_URL")
        if database_url is None:
            postgres = localstack.start_postgres(work / "pg", localstack.free_port(),
                                                 database="bench", durable=False)
            services.append(postgres)
            database_url = postgres.url
        redis_url = os.environ.get("LATLAB_REDIS_URL")
        if redis_url is None:
            redis = localstack.start_redis(work / "redis", localstack.free_port(),
                                           durable=False)
            services.append(redis)
            redis_url = redis.url
        os.environ["LATLAB_DATABASE_URL"] = database_url
        os.environ["LATLAB_REDIS_URL"] = redis_url
        _run(args, database_url, processes, work)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        raise SystemExit(130) from None
    finally:
        processes.stop_all()
        for service in reversed(services):
            service.stop()


def _run(args: argparse.Namespace, database_url: str, processes: Processes,
         work: Path) -> None:
    token = bench_token(database_url, "read", "jobs:write")

    suite = load_suite(SUITES_DIR / SUITE)
    build_cache = Path(os.environ.get("LATLAB_TEST_BUILD_CACHE",
                                      Path.home() / ".cache" / "latlab" / "test-builds"))
    build_cache.mkdir(parents=True, exist_ok=True)
    pin = ["taskset", "-c", args.cpus] if args.cpus else []
    host_name = f"bench-{os.getpid()}"

    port = localstack.free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "LATLAB_PUBLIC_URL": url}
    api = processes.start("api", [
        sys.executable, "-m", "uvicorn", "latlab.main:app", "--host", "127.0.0.1",
        "--port", str(port), "--log-level", "warning"], env=env)
    ingest = processes.start("ingest", [
        sys.executable, "-m", "celery", "-A", "latlab.worker", "worker", "-Q", "ingest",
        "-c", "1", "-n", f"ingest-{host_name}@%h", "--loglevel", "WARNING"], env=env)
    runner_env = {**env, "LATLAB_HOST_NAME": host_name, "LATLAB_HOST_TAGS": HOST_TAG,
                  "LATLAB_BUILD_CACHE": str(build_cache), "LATLAB_HEARTBEAT_S": "1"}
    runner_env.pop("LATLAB_DATABASE_URL")  # runners hold no database credentials
    runner = processes.start("runner", [
        *pin, sys.executable, "-m", "celery", "-A", "latlab_workers.app", "worker",
        "-Q", f"host.{host_name}", "-c", "1", "-n", f"{host_name}@%h",
        "--loglevel", "WARNING"], env=runner_env)

    with httpx.Client(base_url=f"{url}/api/v1", timeout=30,
                      headers={"Authorization": f"Bearer {token}"}) as api_client:
        _wait_for_host(api_client, host_name, [api, ingest, runner], work)
        params = {"count": args.count, "warmup": args.warmup}
        print(f"warm-up job on {host_name} (builds {SUITE} {suite.version} if needed) ...",
              flush=True)
        _job(api_client, params)
        build_dir = build_cache / suite.id / suite.version
        if not (build_dir / ".built").exists():
            raise RuntimeError(f"the warm-up job left no build in {build_dir}")
        _bare(suite, build_dir, params, processes, pin)  # the bare path's own warm-up

        bare: list[Sample] = []
        job: list[Sample] = []
        for round_no in range(1, args.rounds + 1):
            bare.append(_bare(suite, build_dir, params, processes, pin))
            job.append(_job(api_client, params))
            print(f"round {round_no}/{args.rounds}: "
                  f"bare p50 {bare[-1].p50_ns / 1000:8.2f} us {bare[-1].throughput:10,.0f} rt/s"
                  f"   job p50 {job[-1].p50_ns / 1000:8.2f} us {job[-1].throughput:10,.0f} rt/s",
                  flush=True)
    _report(args, suite, bare, job)


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


def _job(client: httpx.Client, params: dict[str, int]) -> Sample:
    """The scenario as a job through the api, the broker and the runner."""
    started = time.perf_counter()
    response = client.post("/jobs", json={"suite": SUITE, "scenario": SCENARIO,
                                          "host_tags": [HOST_TAG], "params": params})
    response.raise_for_status()
    job_id = response.json()["id"]
    deadline = time.monotonic() + 600
    while True:
        job: dict[str, Any] = client.get(f"/jobs/{job_id}").raise_for_status().json()
        if job["status"] == "succeeded" and job["run_id"] is not None:
            break
        if job["status"] in ("failed", "cancelled", "timed_out"):
            raise RuntimeError(f"job {job_id} {job['status']}: {job['error']}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"job {job_id} still {job['status']} after 600 s")
        time.sleep(0.1)
    wall_s = time.perf_counter() - started
    run = client.get(f"/runs/{job['run_id']}").raise_for_status().json()
    series = run["series"][0]
    return Sample(float(series["summary"]["p50"]), float(series["metrics"]["throughput"]),
                  wall_s)


def _bare(suite: Suite, build_dir: Path, params: dict[str, int], processes: Processes,
          pin: list[str]) -> Sample:
    """The same programs with the same argv as the runner renders them, started directly."""
    context = {name: str(value) for name, value in
               suite.resolved_params(SCENARIO, params).items()}
    context["build_dir"] = str(build_dir)
    (server_program,) = suite.servers()
    (client_program,) = suite.loads(SCENARIO, {})
    started = time.perf_counter()
    server = processes.start("echo-server", [*pin, *render(server_program.command, context)],
                             cwd=suite.directory, stdout=subprocess.PIPE)
    try:
        assert server.stdout is not None
        line = server.stdout.readline().decode()
        if not line:
            raise RuntimeError(f"echo-server did not announce itself (log in {processes.logs})")
        context.update({f"{server_program.name}.{key}": str(value)
                        for key, value in json.loads(line).items()})
        client = processes.start("echo-client", [*pin, *render(client_program.command, context)],
                                 cwd=suite.directory, stdout=subprocess.PIPE)
        try:
            stdout, _ = client.communicate(timeout=600)
        finally:
            processes.stop(client)
        if client.returncode != 0:
            raise RuntimeError(f"echo-client exited with {client.returncode} "
                               f"(log in {processes.logs})")
    finally:
        processes.stop(server)
    wall_s = time.perf_counter() - started
    report = json.loads(stdout)
    return Sample(float(report["p50_ns"]), float(report["throughput"]), wall_s)


def _report(args: argparse.Namespace, suite: Suite, bare: list[Sample],
            job: list[Sample]) -> None:
    def median(samples: list[Sample], field: str) -> float:
        return float(statistics.median(float(getattr(s, field)) for s in samples))

    def spread(samples: list[Sample], field: str) -> str:
        values = [getattr(s, field) for s in samples]
        return f"{(max(values) - min(values)) / statistics.median(values) * 100:5.0f} %"

    bare_p50, job_p50 = median(bare, "p50_ns"), median(job, "p50_ns")
    bare_tput, job_tput = median(bare, "throughput"), median(job, "throughput")
    p50_ratio, tput_ratio = job_p50 / bare_p50, job_tput / bare_tput
    pinned = f"taskset -c {args.cpus}" if args.cpus else "not pinned"
    print()
    print(f"{SUITE}/{SCENARIO} {suite.version}: count {args.count:,}, warmup {args.warmup:,}, "
          f"{args.rounds} rounds of (bare, job), medians; {pinned}")
    print(f"{'':16}{'bare':>14}{'job':>14}{'job / bare':>12}{'spread bare':>13}"
          f"{'spread job':>12}")
    print(f"{'p50 (us)':16}{bare_p50 / 1000:14.2f}{job_p50 / 1000:14.2f}{p50_ratio:12.3f}"
          f"{spread(bare, 'p50_ns'):>13}{spread(job, 'p50_ns'):>12}")
    print(f"{'throughput (/s)':16}{bare_tput:14,.0f}{job_tput:14,.0f}{tput_ratio:12.3f}"
          f"{spread(bare, 'throughput'):>13}{spread(job, 'throughput'):>12}")
    print(f"{'wall time (s)':16}{median(bare, 'wall_s'):14.2f}{median(job, 'wall_s'):14.2f}"
          f"{median(job, 'wall_s') / median(bare, 'wall_s'):12.2f}"
          "   (job: submit to succeeded)")
    within = abs(p50_ratio - 1) <= TARGET and abs(tput_ratio - 1) <= TARGET
    print(f"job within {TARGET:.0%} of bare on p50 and throughput: "
          f"{'ok' if within else 'MISSED'}")


if __name__ == "__main__":
    main()
