"""The four seed reports' experiments, run through the lab as a user would launch them, with
the figures `docs/seeds.md` sets beside the reports' own.

Starts a throwaway lab (bench/lab.py) and runs each experiment below as one job (the job spec
is printed, so each row can be launched again from the dashboard or the API). Per series it
prints the trials' medians of the figures the reports quote; where an experiment compares two
values of an axis inside its run (before against after), it prints the lab's verdict on each
metric the report discusses, from `GET /compare` with the two series selectors.

    .venv/bin/python -m bench.seeds [--only zmq-seed,actor-iot-log] [--repetitions 3]

`--repetitions` overrides each experiment's (at 1, verdicts are low-confidence: a tested
verdict needs several trials a side). The host's fingerprint and the date are printed first.
"""

import argparse
import json
import statistics
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from bench.lab import Lab, run_job, running_lab


@dataclass(frozen=True)
class Experiment:
    name: str
    report: str  # the seed it repeats
    suite: str
    scenario: str
    params: dict[str, Any]
    repetitions: int
    figures: tuple[str, ...]  # the report's columns, as the lab's metrics
    compare: tuple[str, str, str] | None = None  # axis, baseline value, candidate value
    verdicts: tuple[str, ...] = field(default=())


LATENCY = ("p50", "p95", "p99", "mean")
EXPERIMENTS = [
    Experiment("http-order-test1", "001", "http-order", "seed-test1", {}, 3,
               ("min", "mean", "p50", "p90", "p95", "p99", "max", "throughput")),
    # The seed's HFT build of the C client against its plain build, in one run each test.
    Experiment("http-order-hft-test1", "001", "http-order", "seed-test1", {"loads": "c,c-hft"},
               5, ("min", "mean", "p50", "p90", "p95", "p99", "max", "throughput"),
               ("client", "c", "c-hft"), ("min", "p50", "p99", "throughput")),
    Experiment("http-order-hft-large", "001", "http-order", "large", {"loads": "c,c-hft"},
               5, ("min", "mean", "p50", "p90", "p95", "p99", "max", "throughput"),
               ("client", "c", "c-hft"), ("min", "p50", "p99", "throughput")),
    Experiment("http-order-large", "001", "http-order", "large", {}, 3,
               ("min", "mean", "p50", "p90", "p95", "p99", "max", "throughput")),
    Experiment("zmq-seed", "000", "zmq", "seed", {}, 1,
               ("min", "mean", "p50", "p95", "p99", "max", "samples", "timeouts", "gaps"),
               ("profile", "baseline-128k", "tuned"), ("p50", "p95", "p99", "samples")),
    # The same with 15 s windows and 4 trials a side: the fewest a tested verdict needs.
    Experiment("zmq-seed-tested", "000", "zmq", "seed", {"window": 15}, 4,
               ("min", "mean", "p50", "p95", "p99", "max", "samples", "timeouts", "gaps"),
               ("profile", "baseline-128k", "tuned"), ("p50", "p95", "p99", "samples")),
    Experiment("zig-http-seed", "002", "zig-http", "seed", {}, 1,
               ("p50", "p99", "throughput", "errors"),
               ("server", "go", "zig"), ("p50", "p99", "throughput")),
    Experiment("actor-iot-modes", "003", "actor-iot", "multi", {}, 1,
               ("messages_per_s", "mean", "p95", "success_rate", "heap_used_mb", "rss_mb")),
    Experiment("actor-iot-peak", "003", "actor-iot", "peak", {}, 1,
               ("messages_per_s", "mean", "p95", "success_rate", "heap_used_mb", "rss_mb")),
    Experiment("actor-iot-log", "003", "actor-iot", "single",
               {"mode": "actor", "devices": 10, "messages": 10000, "log_level": ["warn", "info"]},
               3, ("messages_per_s", "mean", "p95", "heap_used_mb"),
               ("log_level", "info", "warn"), ("messages_per_s", "p95")),
    Experiment("actor-iot-threads", "003", "actor-iot", "single",
               {"mode": "actor", "devices": 100, "messages": 1000, "actor_threads": [5, 10]},
               3, ("messages_per_s", "mean", "p95", "heap_used_mb"),
               ("actor_threads", "5", "10"), ("messages_per_s", "p95")),
]


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--only", default="", help="comma-separated experiment names")
    options.add_argument("--repetitions", type=int, default=None)
    args = options.parse_args()
    chosen = [e for e in EXPERIMENTS if not args.only or e.name in args.only.split(",")]
    if not chosen:
        options.error(f"no experiment among {', '.join(e.name for e in EXPERIMENTS)}")
    with running_lab() as lab:
        host = next(h for h in lab.api.get("/hosts").raise_for_status().json()
                    if h["name"] == lab.host_name)
        print(f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, host fingerprint: "
              f"{json.dumps(host['fingerprint'], sort_keys=True)}", flush=True)
        for experiment in chosen:
            _run(lab, experiment, args.repetitions or experiment.repetitions)


def _run(lab: Lab, experiment: Experiment, repetitions: int) -> None:
    spec = {"suite": experiment.suite, "scenario": experiment.scenario,
            "params": experiment.params, "repetitions": repetitions}
    started = time.monotonic()
    _, run = run_job(lab, experiment.suite, experiment.scenario, experiment.params,
                       repetitions)
    print(f"\n## {experiment.name} (seed {experiment.report}): run {run['id']}, "
          f"{(time.monotonic() - started) / 60:.1f} min, job {json.dumps(spec)}")
    print("| series | " + " | ".join(experiment.figures) + " |")
    print("|---" * (len(experiment.figures) + 1) + "|")
    for series in run["series"]:
        name = ", ".join(f"{k}={v}" for k, v in series["labels"].items())
        cells = [_median(series, metric) for metric in experiment.figures]
        print(f"| {name} | " + " | ".join(cells) + " |")
    if experiment.compare is not None:
        _verdicts(lab, run["id"], experiment)


def _verdicts(lab: Lab, run_id: int, experiment: Experiment) -> None:
    assert experiment.compare is not None
    axis, baseline, candidate = experiment.compare
    compared = lab.api.get("/compare", params={
        "baseline": run_id, "candidate": run_id,
        "baseline_labels": json.dumps({axis: baseline}),
        "candidate_labels": json.dumps({axis: candidate})}).raise_for_status().json()
    print(f"\n{axis}: {candidate} against {baseline}")
    for pair in compared["series"]:
        name = ", ".join(f"{k}={v}" for k, v in pair["labels"].items()) or "(the series)"
        for delta in pair["metrics"]:
            if delta["metric"] in experiment.verdicts:
                change = ("" if delta["delta_pct"] is None
                          else f" ({delta['delta_pct']:+.1f} %)")
                print(f"- {name}: {delta['metric']} {delta['baseline']:.4g} -> "
                      f"{delta['candidate']:.4g}{change}: {delta['verdict']} "
                      f"({delta['confidence']}; {delta['evidence']})")


def _median(series: dict[str, Any], metric: str) -> str:
    values = [t["summary"].get(metric, t["metrics"].get(metric)) for t in series["trials"]]
    present = [float(v) for v in values if v is not None]
    if not present:
        return "-"
    value = statistics.median(present)
    if metric in ("p50", "p90", "p95", "p99", "p999", "mean", "min", "max"):
        return f"{value / 1e6:.3f} ms"
    return f"{value:.4g}"


if __name__ == "__main__":
    main()
