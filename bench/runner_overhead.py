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
import json
import statistics
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.lab import Lab, Processes, running_lab
from latlab_workers.builds import program_context
from latlab_workers.suites import SUITES_DIR, Suite, load_suite
from latlab_workers.templates import render

SUITE = "echo"
SCENARIO = "default"
TARGET = 0.05


@dataclass(frozen=True)
class Sample:
    p50_ns: float
    throughput: float
    wall_s: float


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--count", type=int, default=20_000)
    parser.add_argument("--warmup", type=int, default=2_000)
    parser.add_argument("--cpus", default=None,
                        help="a taskset CPU list for the runner worker (so the job's programs) "
                             "and the bare programs alike, e.g. 0 or 0,1")
    args = parser.parse_args()
    pin = ["taskset", "-c", args.cpus] if args.cpus else []
    with running_lab(runner_prefix=pin) as lab:
        _run(args, lab, pin)


def _run(args: argparse.Namespace, lab: Lab, pin: list[str]) -> None:
    suite = load_suite(SUITES_DIR / SUITE)
    params = {"count": args.count, "warmup": args.warmup}
    print(f"warm-up job on {lab.host_name} (builds {SUITE} {suite.version} if needed) ...",
          flush=True)
    _job(lab, params)
    build_dir = lab.build_cache / suite.id / suite.version
    if not (build_dir / ".built").exists():
        raise RuntimeError(f"the warm-up job left no build in {build_dir}")
    _bare(suite, build_dir, params, lab.processes, pin)  # the bare path's own warm-up

    bare: list[Sample] = []
    job: list[Sample] = []
    for round_no in range(1, args.rounds + 1):
        bare.append(_bare(suite, build_dir, params, lab.processes, pin))
        job.append(_job(lab, params))
        print(f"round {round_no}/{args.rounds}: "
              f"bare p50 {bare[-1].p50_ns / 1000:8.2f} us {bare[-1].throughput:10,.0f} rt/s"
              f"   job p50 {job[-1].p50_ns / 1000:8.2f} us {job[-1].throughput:10,.0f} rt/s",
              flush=True)
    _report(args, suite, bare, job)


def _job(lab: Lab, params: dict[str, int]) -> Sample:
    """The scenario as a job through the api, the broker and the runner (one repetition, as
    the bare path runs once)."""
    client = lab.api
    started = time.perf_counter()
    response = client.post("/jobs", json={"suite": SUITE, "scenario": SCENARIO,
                                          "host_tags": [lab.host_tag], "params": params,
                                          "repetitions": 1})
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
    (plan,) = suite.plan(suite.resolved_params(SCENARIO, params))
    context = {**plan.context, **program_context(suite, build_dir)}
    (server_program,) = plan.servers
    client_program = plan.load
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
