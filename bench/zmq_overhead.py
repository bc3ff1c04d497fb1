"""The zmq suite's instruments side by side: REQ-REP round trips on loopback, the Python
instrument (pyzmq, the seed's language) vs the C one (libzmq, the floor), against the same
quote server, in one run of the generic runner (the series alternate within each repetition).
Prints each instrument's p50 and p99 (median over repetitions) and the Python / C p50 ratio.
Target: Python within 3x of C.

    .venv/bin/python -m bench.zmq_overhead [--window 5] [--repetitions 5] [--profile tuned]
"""

import argparse
import statistics
import sys
from typing import Any

from hdrh.histogram import HdrHistogram

from latlab_contract import JobSpec, Phase, ProgramInfo
from latlab_workers.runner import HostIdentity, execute
from latlab_workers.settings import get_settings
from latlab_workers.suites import SUITES_DIR, load_suite

TARGET = 3.0


class _Quiet:
    def progress(self, phase: Phase, percent: float,
                 programs: list[ProgramInfo] | None = None) -> None:
        print(f"  {phase} {percent:.0f}%", file=sys.stderr)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--window", type=int, default=5, help="seconds per series and trial")
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--profile", choices=("baseline", "tuned"), default="tuned")
    args = parser.parse_args(argv)

    suite = load_suite(SUITES_DIR / "zmq")
    params: dict[str, Any] = {"patterns": "req-rep", "instruments": "python,c",
                              "profiles": args.profile, "symbols": "EURUSD.s",
                              "window": args.window, "network": "loopback"}
    spec = JobSpec(job_id=0, attempt=1, project="bench", suite="zmq", scenario="quick",
                   params=params, repetitions=args.repetitions,
                   timeout_s=600 + 2 * args.window * args.repetitions)
    result = execute(spec, suite, HostIdentity("bench", [], {}), _Quiet(),
                     get_settings().build_cache)

    p50: dict[str, float] = {}
    for series in result.series:
        instrument = series.labels["instrument"]
        histograms = [HdrHistogram.decode(t.latency.hdr) for t in series.trials]
        p50s = [h.get_value_at_percentile(50) / 1000 for h in histograms]
        p99s = [h.get_value_at_percentile(99) / 1000 for h in histograms]
        rates = [t.metrics["throughput"] for t in series.trials]
        p50[instrument] = statistics.median(p50s)
        print(f"{instrument:>6}: p50 {p50[instrument]:8.1f} us   p99 "
              f"{statistics.median(p99s):8.1f} us   {statistics.median(rates):8.0f} req/s   "
              f"(median of {len(series.trials)} trials of {args.window} s; p50s "
              f"{', '.join(f'{v:.0f}' for v in p50s)})")
    ratio = p50["python"] / p50["c"]
    verdict = "within" if ratio <= TARGET else "over"
    print(f"python / c p50: {ratio:.2f}x ({verdict} the {TARGET:.0f}x target)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
