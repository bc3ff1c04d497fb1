"""What reading harness output in reader processes costs, against the api before it did.

Two apis run side by side on one database: this checkout's, and a reference commit's (by
default the last one that read harness output inside the api; checked out with `git
worktree` and run from it). Submissions alternate between them, so both see the same host:

- the 10,000,000-sample `latlab.result/v1` submission (`bench.ingest`'s), whose path the
  readers do not touch: target within 10 %;
- harness outputs through `POST /runs?adapter=` (small and large golden files), the
  reference reading them in the api, this checkout in a reader;
- 50 MB of whitespace, as harness output and as a document: how long each api takes to
  refuse it.

    .venv/bin/python -m bench.isolation [--reference 1347241] [--rounds 3]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np

import latlab_stack as localstack
from bench.lab import bench_token, start_services, wait_for_api, work_dir

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "workers" / "tests" / "golden" / "adapters"
HARNESS = {  # name -> (adapter, file)
    "go-bench (1 KB)": ("go-bench", GOLDEN / "go-bench" / "fast.txt"),
    "jmh (130 KB)": ("jmh", GOLDEN / "jmh" / "1.37" / "result.json"),
    "pytest-benchmark (210 KB)": ("pytest-benchmark",
                                  GOLDEN / "pytest-benchmark" / "5.3.1" / "out.json"),
    "hlog (Java, 6 KB)": ("hlog", GOLDEN / "hlog" / "java-fast-1.hlog"),
}


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--reference", default="1347241")
    options.add_argument("--rounds", type=int, default=3)
    options.add_argument("--samples", type=int, default=10_000_000)
    args = options.parse_args()
    work = work_dir()
    reference = Path(tempfile.mkdtemp(prefix="latlab-reference-"))
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(reference),
                    args.reference], check=True, capture_output=True)
    services = start_services(work, durable=True)
    os.environ["LATLAB_MAX_BODY_BYTES"] = str(512 * 1024 * 1024)
    token = bench_token(os.environ["LATLAB_DATABASE_URL"], "runs:write")
    apis: dict[str, tuple[str, subprocess.Popen[bytes]]] = {}
    try:
        for name, code in (("reference", reference), ("this", ROOT)):
            apis[name] = _start_api(code)
        for url, _ in apis.values():
            wait_for_api(url)
        _report(args, token, {name: url for name, (url, _) in apis.items()})
    finally:
        for _, process in apis.values():
            process.terminate()
            process.wait(10)
        for service in services:
            service.stop()
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                        str(reference)], check=False, capture_output=True)
    return 0


def _start_api(code: Path) -> tuple[str, "subprocess.Popen[bytes]"]:
    port = localstack.free_port()
    url = f"http://127.0.0.1:{port}"
    path = os.pathsep.join([str(code / "backend"), str(code / "workers")])
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "latlab.main:app", "--port", str(port),
         "--log-level", "warning"], cwd=code,
        env={**os.environ, "PYTHONPATH": path, "LATLAB_PUBLIC_URL": url})
    return url, process


def _report(args: argparse.Namespace, token: str, urls: dict[str, str]) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    rng = np.random.default_rng(1)
    samples = rng.lognormal(np.log(350_000), 0.4, args.samples).astype(np.int64)
    document = json.dumps({
        "schema": "latlab.result/v1", "suite": "bench", "scenario": "ingest",
        "started_at": "2026-11-22T10:00:00Z",
        "series": [{"labels": {"client": "bench"},
                    "trials": [{"latency": {"samples_ns": samples.tolist()}}]}],
    }).encode()
    cases: dict[str, tuple[dict[str, str], bytes, int]] = {
        f"{args.samples:,} samples (result/v1)": ({}, document, 201)}
    for name, (adapter, path) in HARNESS.items():
        cases[name] = ({"adapter": adapter, "suite": "bench", "scenario": "isolation"},
                       path.read_bytes(), 201)
    whitespace = b" \n" * 25_000_000
    cases["50 MB whitespace, as go-bench output"] = (
        {"adapter": "go-bench", "suite": "bench", "scenario": "blank"}, whitespace, 422)
    cases["50 MB whitespace with a word, as go-bench"] = (
        {"adapter": "go-bench", "suite": "bench", "scenario": "blank"}, whitespace + b"x", 422)
    cases["50 MB whitespace, as a document"] = ({}, whitespace, 422)
    print(f"{'case':44} {'reference':>10} {'this':>10} {'ratio':>7}   (median of "
          f"{args.rounds}, alternating)")
    with httpx.Client(headers=headers, timeout=300) as client:
        for name, (params, body, expected) in cases.items():
            times: dict[str, list[float]] = {which: [] for which in urls}
            for _ in range(args.rounds):
                for which, url in urls.items():
                    started = time.perf_counter()
                    answer = client.post(f"{url}/api/v1/runs", content=body, params=params,
                                         headers={"Content-Type": "application/json"})
                    times[which].append(time.perf_counter() - started)
                    if answer.status_code != expected:
                        print(f"  {which}: {answer.status_code} {answer.text[:200]}")
            old, new = (statistics.median(times[w]) for w in ("reference", "this"))
            print(f"{name:44} {old:9.3f}s {new:9.3f}s {new / old:6.2f}x")


if __name__ == "__main__":
    sys.exit(main())
