"""Actor vs sync side by side: runs a scenario's series with the argv the runner renders,
modes interleaved for each device count and repetition (so drift of a shared host hits them
alike), and prints each mode's median msg/s and p99 with its ratio to sync's.

    .venv/bin/python workers/suites/actor-iot/bench.py multi \
        '{"mode": ["actor", "sync", "mailbox"], "messages": 10000, "warmup": 2000}' --rounds 3
"""

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from hdrh.histogram import HdrHistogram

from latlab_workers.builds import build, program_context
from latlab_workers.suites import load_suite
from latlab_workers.templates import render

SUITE = load_suite(Path(__file__).resolve().parent)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenario", choices=sorted(SUITE.scenarios))
    parser.add_argument("params", nargs="?", default="{}", help="job params, JSON")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cache", type=Path,
                        default=Path(tempfile.gettempdir()) / "latlab-bench-builds")
    args = parser.parse_args()
    build_dir = build(SUITE, args.cache, time.monotonic() + 900)
    plans = SUITE.plan(SUITE.resolved_params(args.scenario, json.loads(args.params)))
    plans.sort(key=lambda plan: int(plan.labels["devices"]))  # modes interleaved
    results: dict[tuple[str, str], list[tuple[float, float]]] = defaultdict(list)
    for _ in range(args.rounds):
        for plan in plans:
            argv = render(plan.load.command, {**plan.context, **program_context(SUITE, build_dir)})
            done = subprocess.run(argv, cwd=SUITE.directory, capture_output=True, text=True,
                                  check=False)
            if done.returncode != 0:
                print(f"{plan.labels}: exit {done.returncode}: {done.stderr[-500:]}",
                      file=sys.stderr)
                return 1
            document = json.loads(done.stdout)
            p99 = HdrHistogram.decode(document["latency_hdr"]).get_value_at_percentile(99)
            results[(plan.labels["devices"], plan.labels["mode"])].append(
                (document["metrics"]["messages_per_s"], p99 / 1e6))
    print(f"{'devices':>7} {'mode':>8} {'msg/s':>11} {'x sync':>7} {'p99 ms':>9}")
    for (devices, mode), runs in results.items():
        rate = statistics.median(r for r, _ in runs)
        p99 = statistics.median(p for _, p in runs)
        sync = results.get((devices, "sync"))
        ratio = rate / statistics.median(r for r, _ in sync) if sync else float("nan")
        print(f"{devices:>7} {mode:>8} {rate:>11,.0f} {ratio:>7.2f} {p99:>9.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
