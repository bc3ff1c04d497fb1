"""Ingest: a raw-sample submission through the API vs the same samples as ORM rows, and the
api's memory while it takes it.

Both are measured side by side in this run, on the same throwaway Postgres (or on
LATLAB_DATABASE_URL), and printed with their ratio. The api's resident memory is read from
/proc before, at its peak during (VmHWM, reset before each submission) and after each one.
Targets: at 10,000,000 samples (80 MB of JSON) the API under 2 s and >= 100x the ORM rows,
peak memory growth under 2x the body, and back near idle afterwards.

    .venv/bin/python -m bench.ingest [--samples 10000000] [--slice 50000] [--repeat 3]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx
import numpy as np
from sqlalchemy import BigInteger, create_engine
from sqlalchemy.orm import DeclarativeBase, Mapped, Session, mapped_column

import latlab_stack as localstack
from bench.lab import bench_token, start_services, wait_for_api, work_dir


class _Base(DeclarativeBase):
    pass


class SampleRow(_Base):
    """The design latlab avoids: one row per latency sample."""

    __tablename__ = "bench_sample_row"

    id: Mapped[int] = mapped_column(BigInteger, primary_key=True)
    trial_id: Mapped[int] = mapped_column(BigInteger)
    value_ns: Mapped[int] = mapped_column(BigInteger)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--samples", type=int, default=10_000_000)
    parser.add_argument("--slice", type=int, default=50_000,
                        help="ORM rows actually inserted; the time is scaled to --samples")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    # Commits pay for their fsync, as `make up`'s Postgres does.
    services = start_services(work_dir(), durable=True)
    os.environ["LATLAB_MAX_BODY_BYTES"] = str(512 * 1024 * 1024)
    try:
        _run(args, os.environ["LATLAB_DATABASE_URL"])
    finally:
        for service in services:
            service.stop()


def _run(args: argparse.Namespace, database_url: str) -> None:
    token = bench_token(database_url, "runs:write")
    engine = create_engine(database_url)

    rng = np.random.default_rng(1)
    samples = rng.lognormal(np.log(350_000), 0.4, args.samples).astype(np.int64)
    body = json.dumps({
        "schema": "latlab.result/v1", "suite": "bench", "scenario": "ingest",
        "started_at": "2026-11-22T10:00:00Z",
        "series": [{"labels": {"client": "bench"},
                    "trials": [{"latency": {"samples_ns": samples.tolist()}}]}],
    }).encode()

    port = localstack.free_port()
    api = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "latlab.main:app", "--port", str(port),
         "--log-level", "warning"], env=dict(os.environ))
    url = f"http://127.0.0.1:{port}"
    try:
        wait_for_api(url)
        idle = _memory(api.pid, "VmRSS")
        api_times, peaks, afters = [], [], []
        for _ in range(args.repeat):
            Path(f"/proc/{api.pid}/clear_refs").write_text("5")  # resets VmHWM
            started = time.perf_counter()
            response = httpx.post(f"{url}/api/v1/runs", content=body, timeout=120, headers={
                "Authorization": f"Bearer {token}", "Content-Type": "application/json"})
            api_times.append(time.perf_counter() - started)
            response.raise_for_status()
            peaks.append(_memory(api.pid, "VmHWM"))
            time.sleep(1)
            afters.append(_memory(api.pid, "VmRSS"))
    finally:
        api.terminate()
        api.wait()

    _Base.metadata.create_all(engine)
    values = samples[: args.slice].tolist()
    with Session(engine) as session:
        started = time.perf_counter()
        session.add_all(SampleRow(trial_id=1, value_ns=v) for v in values)
        session.commit()
        orm_slice = time.perf_counter() - started
    _Base.metadata.drop_all(engine)
    engine.dispose()

    api_median = statistics.median(api_times)
    orm_scaled = orm_slice * args.samples / args.slice
    print(f"samples per submission     {args.samples:,}  ({len(body) / 1e6:.1f} MB of JSON)")
    print(f"API submission (median/{args.repeat})  {api_median:8.3f} s")
    print(f"ORM rows, {args.slice:,} inserted     {orm_slice:8.3f} s")
    print(f"ORM rows, scaled to {args.samples:,}  {orm_scaled:8.3f} s")
    ratio = orm_scaled / api_median
    print(f"ratio ORM / API            {ratio:8.1f}x  target >= 100x "
          f"[{'ok' if ratio >= 100 else 'MISSED'}]")
    body_mb = len(body) / 1e6
    growth = max(peaks) - idle
    print(f"api memory: idle {idle:.0f} MB, peak {max(peaks):.0f} MB (growth {growth:.0f} MB = "
          f"{growth / body_mb:.2f}x the body; target < 2x "
          f"[{'ok' if growth < 2 * body_mb else 'MISSED'}]), after {afters[-1]:.0f} MB "
          f"({afters[-1] - idle:+.0f} MB from idle)")
    print(f"API submission target < 2 s at 10M samples "
          f"[{'ok' if api_median < 2 else 'MISSED'}]")


def _memory(pid: int, field: str) -> float:
    """A /proc/<pid>/status memory field, in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no {field} for {pid}")


if __name__ == "__main__":
    main()
