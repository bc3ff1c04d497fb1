"""The api's memory after large submissions: its RSS idle, then a few seconds after rounds of
1M-sample submissions (two at a time), for the api as `make up` runs it and, as the
reference, the same api without giving memory back after large requests
(LATLAB_RELEASE_MEMORY_AFTER_BYTES=0), side by side on one throwaway Postgres. Printed as
ratios to each one's idle RSS.

    .venv/bin/python -m bench.api_memory [--samples 1000000] [--rounds 3]
"""

import argparse
import json
import os
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import numpy as np

import latlab_stack as localstack
from bench.lab import Processes, bench_token, start_services, wait_for_api, work_dir


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=3, help="rounds of two submissions")
    args = parser.parse_args()

    work = work_dir()
    services = start_services(work)  # the api's database, and its cache and broker
    processes = Processes(work)
    try:
        token = bench_token(os.environ["LATLAB_DATABASE_URL"], "runs:write")
        rng = np.random.default_rng(1)
        bodies = [json.dumps({
            "schema": "latlab.result/v1", "suite": "bench", "scenario": "memory",
            "started_at": "2026-11-22T10:00:00Z",
            "series": [{"labels": {"client": f"c{i}"}, "trials": [{"latency": {"samples_ns":
                rng.lognormal(np.log(350_000), 0.4, args.samples).astype(np.int64).tolist()}}]}],
        }).encode() for i in range(2)]
        print(f"{args.rounds} rounds of 2 concurrent submissions of {args.samples:,} samples "
              f"({len(bodies[0]) / 1e6:.1f} MB of JSON each)")
        print(f"{'api':<28}{'idle MiB':>10}{'after MiB':>11}{'after / idle':>14}")
        for name, argv, env in _configurations():
            idle, after = _measure(processes, argv, env, bodies, token, args.rounds)
            print(f"{name:<28}{idle:>10.0f}{after:>11.0f}{after / idle:>13.2f}x", flush=True)
    finally:
        processes.stop_all()
        for service in services:
            service.stop()


def _configurations() -> list[tuple[str, list[str], dict[str, str]]]:
    (api,) = [p for p in localstack.programs({
        "LATLAB_DATA_DIR": "", "LATLAB_HOST": "127.0.0.1", "LATLAB_PORT": "{port}",
        "LATLAB_HOST_NAME": "bench"}, []) if p.name == "api"]
    return [("as `make up` runs it", api.argv, {}),
            ("memory kept (reference)", api.argv, {"LATLAB_RELEASE_MEMORY_AFTER_BYTES": "0"})]


def _measure(processes: Processes, argv: list[str], env: dict[str, str], bodies: list[bytes],
             token: str, rounds: int) -> tuple[float, float]:
    port = str(localstack.free_port())
    process = processes.start("api", [a.replace("{port}", port) for a in argv],
                              env={**os.environ, **env})
    root = f"http://127.0.0.1:{port}"
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    try:
        wait_for_api(root)
        with httpx.Client(base_url=f"{root}/api/v1", headers=headers, timeout=300) as api:
            small = json.dumps({
                "schema": "latlab.result/v1", "suite": "bench", "scenario": "warmup",
                "started_at": "2026-11-22T10:00:00Z", "series": [{"labels": {}, "trials": [
                    {"latency": {"samples_ns": list(range(1, 1000))}}]}]}).encode()
            for _ in range(3):  # every code path loaded before "idle" is read
                api.post("/runs", content=small).raise_for_status()
            time.sleep(2)
            idle = _rss_mib(process.pid)
            with ThreadPoolExecutor(2) as pool:
                for _ in range(rounds):
                    for response in pool.map(lambda b: api.post("/runs", content=b), bodies):
                        response.raise_for_status()
            time.sleep(5)
            return idle, _rss_mib(process.pid)
    finally:
        processes.stop(process)


def _rss_mib(pid: int) -> float:
    """The RSS of the api's process and its children (a worker manager's workers)."""
    total = 0.0
    for candidate in localstack.program_processes(pid):
        status = Path(f"/proc/{candidate}/status").read_text()
        kb = next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS"))
        total += int(kb) / 1024
    return total


if __name__ == "__main__":
    main()
