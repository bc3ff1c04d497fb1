"""Fuzzing the adapters and the result contract with mutations of the real tools' output.

Seeds are the golden files (workers/tests/golden/adapters, the runner's program outputs, the
latlab.result/v1 documents of backend/tests/golden); each case applies one to three
mutations: a number replaced by an extreme (0, -1, 2^48 + 1, 2^63, 1e308, NaN, Infinity, a
hundred digits), a line deleted, doubled, swapped or the text cut short, bytes flipped or
inserted (NUL, invalid UTF-8), and in JSON a value replaced by another kind (a deep list, a
long one, a string, null). Every case goes to a running api (`POST /runs?adapter=`, or the
document itself for the contract) as CI would send it, and is judged:

- crash: the answer says the reader died (a native abort or a signal); the api must live on;
- 5xx: any answer of 500 or more;
- invalid stored: a 201 whose run, read back, breaks what every summary holds (a count of at
  least one, values finite within 0 .. 1 h, min <= p50 <= ... <= max, the mean between);
- rule-breaking stored: beside each case, a golden file with one rule broken (`break_rule`:
  a negative time or rate, statistics out of order, zero iterations, an empty name) that the
  api stored instead of refusing.

    .venv/bin/python -m bench.fuzz [--minutes 10] [--seed 1]

It prints the cases tried per adapter and the four counts (all must be 0), and keeps each
failing case in the work directory. `backend/tests/test_fuzz.py` runs the same mutations in
process, bounded, in `make test`.
"""

import argparse
import os
import random
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import httpx

import latlab_stack as localstack
from bench.lab import bench_token, start_services, wait_for_api, work_dir
from latlab_stack.fuzz_inputs import (
    BREAKABLE,
    CONTRACT,
    SEED_FILES,
    break_rule,
    mutate,
    run_problems,
    seeds,
)


class Tally:
    def __init__(self) -> None:
        self.cases: Counter[str] = Counter()
        self.refused: Counter[str] = Counter()
        self.crashes: list[str] = []
        self.server_errors: list[str] = []
        self.invalid_stored: list[str] = []
        self.broken_tried: Counter[str] = Counter()
        self.broken_stored: list[str] = []  # rule-breaking inputs stored
        self.lock = threading.Lock()


def fuzz_api(url: str, token: str, deadline: float, rng: random.Random, tally: Tally,
             keep: Path) -> None:
    """Mutated seeds of every adapter, round robin, until the deadline."""
    pools = {adapter: seeds(adapter) for adapter in SEED_FILES}
    headers = {"Authorization": f"Bearer {token}"}
    with httpx.Client(base_url=f"{url}/api/v1", headers=headers, timeout=120) as client:
        while time.monotonic() < deadline:
            for adapter, pool in pools.items():
                body = mutate(rng.choice(pool), rng)
                name = f"{adapter}-{rng.getrandbits(48):012x}"
                try:
                    answer = _submit(client, adapter, body)
                except httpx.TransportError:  # a reused connection the server had closed
                    answer = _submit(client, adapter, body)
                verdict = _judge(client, answer)
                with tally.lock:
                    tally.cases[adapter] += 1
                    tally.refused[adapter] += answer.status_code in (413, 422)
                    if verdict is not None:
                        kind, detail = verdict
                        getattr(tally, kind).append(f"{name}: {detail}")
                        (keep / name).write_bytes(body)
                broken = None if adapter not in BREAKABLE else break_rule(
                    adapter, rng.choice(pool), rng)
                if broken is not None:
                    rule, body = broken
                    answer = _submit(client, adapter, body)
                    verdict = _judge(client, answer)
                    with tally.lock:
                        tally.broken_tried[adapter] += 1
                        if answer.status_code == 201:
                            tally.broken_stored.append(f"{name}-broken: {rule}")
                            (keep / f"{name}-broken").write_bytes(body)
                        elif verdict is not None:
                            getattr(tally, verdict[0]).append(f"{name}-broken: {verdict[1]}")


def _submit(client: httpx.Client, adapter: str, body: bytes) -> httpx.Response:
    if adapter == CONTRACT:
        return client.post("/runs", content=body, headers={"Content-Type": "application/json"})
    return client.post("/runs", content=body, params={
        "adapter": adapter, "suite": "fuzz", "scenario": adapter.replace("-", "")[:60]})


def _judge(client: httpx.Client, answer: httpx.Response) -> tuple[str, str] | None:
    if answer.status_code >= 500:
        return "server_errors", f"{answer.status_code} {answer.text[:300]}"
    if "crashed reading this output" in answer.text:
        return "crashes", answer.text[:300]
    if answer.status_code == 201:
        run = client.get(f"/runs/{answer.json()['id']}").json()
        problems = run_problems(run)
        if problems:
            return "invalid_stored", "; ".join(problems[:5])
    return None


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--minutes", type=float, default=10.0)
    options.add_argument("--seed", type=int, default=1)
    options.add_argument("--clients", type=int, default=2)
    args = options.parse_args()
    work = work_dir()
    services = start_services(work)
    token = bench_token(os.environ["LATLAB_DATABASE_URL"], "runs:write", "read")
    port = localstack.free_port()
    url = f"http://127.0.0.1:{port}"
    api = subprocess.Popen([sys.executable, "-m", "uvicorn", "latlab.main:app", "--host",
                            "127.0.0.1", "--port", str(port), "--log-level", "warning"],
                           env={**os.environ, "LATLAB_PUBLIC_URL": url})
    keep = work / "failures"
    keep.mkdir()
    tally = Tally()
    try:
        wait_for_api(url)
        started = time.monotonic()
        deadline = started + args.minutes * 60
        clients = [threading.Thread(target=fuzz_api, args=(
            url, token, deadline, random.Random(args.seed * 1000 + i), tally, keep))
            for i in range(args.clients)]
        for client in clients:
            client.start()
        for client in clients:
            client.join()
        elapsed = time.monotonic() - started
        alive = api.poll() is None
    finally:
        api.terminate()
        api.wait(10)
        for service in services:
            service.stop()
    print(f"fuzz: {sum(tally.cases.values())} cases in {elapsed / 60:.1f} min "
          f"({args.clients} clients, seed {args.seed})")
    for adapter, cases in sorted(tally.cases.items()):
        print(f"  {adapter:18} {cases:6} cases, {tally.refused[adapter]:6} refused (4xx), "
              f"{tally.broken_tried[adapter]:5} rule-breaking")
    print(f"crashes {len(tally.crashes)}, 5xx {len(tally.server_errors)}, invalid inputs stored "
          f"{len(tally.invalid_stored)}, rule-breaking inputs stored "
          f"{len(tally.broken_stored)} of {sum(tally.broken_tried.values())}, "
          f"api alive: {alive}")
    kinds = ("crashes", "server_errors", "invalid_stored", "broken_stored")
    for kind in kinds:
        for line in getattr(tally, kind)[:10]:
            print(f"  {kind}: {line}")
    failed = any(getattr(tally, kind) for kind in kinds) or not alive
    if failed:
        print(f"failing cases kept in {keep}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
