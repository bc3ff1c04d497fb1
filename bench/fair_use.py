"""Fair use, side by side: the chaos workload's CI clients' submission latency without and with
one client flooding submissions on a token of its own, in one lab in one run.

The lab, its preparation and the workload are the chaos soak's (`prepared_lab`, `workload`: 3
CI clients, each on its own token, 2 readers, the job launcher, and the flood client's
threads, which flood only while told to), with the lab's default fair-use limits; no
nemesis. After a warm-up, windows alternate, no
flood then flood (A B A B ...), each `--window` seconds. Per window: the other clients'
submission latency p95 (each attempt answered 2xx that started in the window, nearest rank),
their 429s, and the flood's 201s and 429s; then the p95 of all flood windows over that of all
no-flood windows. The flood's budget refills while it is off, so each flood window starts
with a burst. The chaos checker then runs on the whole history (exactly once, 429'd
submissions not stored, ...).

    .venv/bin/python -m bench.fair_use --window 45 --rounds 2
"""

import argparse
import math
import random
import sys
import threading
import time
from dataclasses import dataclass

from latlab.runs.histogram import nearest_rank
from latlab_stack.chaos.check import check, pss_mib, settle
from latlab_stack.chaos.lab import prepared_lab
from latlab_stack.chaos.workload import SUBMIT_DEADLINE_S, History, workload

TARGET_RATIO = 2.0


@dataclass
class Window:
    flood: bool
    start: float  # seconds since the workload started
    end: float


def p95(values: list[float]) -> float:
    """The lab's nearest rank; NaN without values."""
    ordered = sorted(values)
    return ordered[nearest_rank(95.0, len(ordered)) - 1] if ordered else math.nan


def latencies(history: History, start: float, end: float) -> list[float]:
    """The other clients' attempts answered 2xx that started within [start, end)."""
    return [seconds for s in history.submissions if not s.flood
            for status, (at, seconds) in zip(s.statuses, s.attempts, strict=True)
            if status is not None and 200 <= status < 300 and start <= at < end]


def answers(history: History, route: str, status: int, start: float, end: float) -> int:
    return sum(1 for a in list(history.answers)
               if a.route == route and a.status == status and start <= a.at < end)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--window", type=float, default=45.0, help="seconds a window")
    parser.add_argument("--rounds", type=int, default=2, help="pairs of windows (A B)")
    parser.add_argument("--warmup", type=float, default=20.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    rng = random.Random(args.seed)
    with prepared_lab() as (lab, receiver):
        pss_start = pss_mib(lab)
        history = History()
        total = args.warmup + 2 * args.rounds * args.window
        until = time.monotonic() + total
        flooding = threading.Event()
        threads = workload(lab, history, rng, until, flooding=flooding)
        for thread in threads:
            thread.start()
        time.sleep(args.warmup)
        windows = []
        for _ in range(args.rounds):
            for flood in (False, True):
                if flood:
                    flooding.set()
                else:
                    flooding.clear()
                start = history.now()
                time.sleep(args.window)
                windows.append(Window(flood, start, history.now()))
        flooding.clear()
        for thread in threads:
            thread.join(SUBMIT_DEADLINE_S + 60)
        quiet = settle(lab, history, receiver, 300)
        verdict = check(lab, history, receiver, quiet, pss_start, flood=True)

    print(f"{'window':<10} {'flood':<6} {'others: n':>9} {'p95 ms':>8} {'429':>4}   "
          f"{'flood: 201':>10} {'429':>6}")
    for number, window in enumerate(windows, 1):
        values = latencies(history, window.start, window.end)
        print(f"{number:<2} {window.start:5.0f} s  {'yes' if window.flood else 'no':<6} "
              f"{len(values):>9} {p95(values) * 1000:8.1f} "
              f"{answers(history, 'submit', 429, window.start, window.end):>4}   "
              f"{answers(history, 'flood submit', 201, window.start, window.end):>10} "
              f"{answers(history, 'flood submit', 429, window.start, window.end):>6}")
    pooled = {flood: [v for w in windows if w.flood is flood
                      for v in latencies(history, w.start, w.end)] for flood in (False, True)}
    ratio = p95(pooled[True]) / p95(pooled[False])
    holds = ratio <= TARGET_RATIO
    print(f"others' p95: no flood {p95(pooled[False]) * 1000:.1f} ms, "
          f"flood {p95(pooled[True]) * 1000:.1f} ms: {ratio:.2f}x "
          f"[{'ok' if holds else 'missed'}: within {TARGET_RATIO:g}x]")
    print(f"flood's 429s: {answers(history, 'flood submit', 429, 0, math.inf)}")
    print(verdict.table())
    for violation in verdict.violations:
        print(f"VIOLATED: {violation}", file=sys.stderr)
    return 1 if verdict.violations or not holds else 0


if __name__ == "__main__":
    sys.exit(main())
