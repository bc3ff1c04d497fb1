"""How small a change each suite's default scenario can show, and what lab time it costs.

Starts a throwaway lab (bench/lab.py) and runs `--runs` A/A jobs (identical code, the lab's
default repetitions) of each suite's default scenario, one after the other. Then, per series
and gate metric, the runs are taken as a window, as the CI gate takes its history
(`analysis.window`, the same code): the trial-to-trial spread inside runs, the run-to-run
spread, and the smallest slowdown a run of 5 trials is caught at four times in five at the
gate's default false-alarm level (`smallest_change`, the figure the gate shows as its smallest
detectable change). Beside it, the lab minutes a run took (the job's start to its end, builds
cached), and the figure to move: the MDE per minute of lab time, here the MDE times the
square root of the run's minutes (the MDE a one-minute run would reach if its precision grew
with time as trials do, 1/sqrt(time)): lower is better, and it does not reward a scenario
for being short or long, only for being precise per minute spent.

    .venv/bin/python -m bench.precision [--runs 20] [--suites echo,http-order]
        [--scenarios echo=steady,http-order=steady]
        [--params '{"http-order": {"server_cpus": "0", "load_cpus": "1"}}'] [--save FILE]

`--params` tries a change before it becomes a default: the named suites' jobs get those
params on top of their scenario's.

`--save` writes every run's trial values (per scenario, series and gate metric, oldest run
first) as JSON, to judge the same data again another way.

A window needs 5 runs (`MIN_WINDOW_RUNS`), but at 5 the t quantile of 4 degrees of freedom makes
the MDE of a heavy-tailed p99 meaningless (echo's came out at 29,659 %): 20 by default.
"""

import argparse
import json
import math
import statistics
import time
from typing import Any

from bench.lab import Lab, job_minutes, run_job, running_lab, scenarios
from latlab.analysis.thresholds import DEFAULT
from latlab.analysis.window import MIN_WINDOW_RUNS, smallest_change, window_stats
from latlab_contract.vocabulary import Vocabulary

# Each suite's default scenario: the one a user starts with (the A/A bench's for http-order).
CASES: dict[str, str] = {
    "echo": "default",
    "http-order": "large",
    "zig-http": "quick",
    "zmq": "quick",
    "actor-iot": "quick",
}
TRIALS = 5


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--runs", type=int, default=20)
    options.add_argument("--suites", default=",".join(CASES),
                         help=f"comma-separated, of {', '.join(CASES)}")
    options.add_argument("--scenarios", type=lambda text: scenarios(text, CASES), default=CASES,
                         help="suite=scenario,... instead of the default scenarios")
    options.add_argument("--params", type=json.loads, default={},
                         help="JSON: params per suite, on top of the scenario's")
    options.add_argument("--save", type=argparse.FileType("w"),
                         help="write the runs' trial values here, as JSON")
    args = options.parse_args()
    suites = [s.strip() for s in args.suites.split(",") if s.strip()]
    unknown = sorted(set(suites) - set(CASES))
    if unknown or args.runs < MIN_WINDOW_RUNS:
        options.error(f"unknown suites {unknown}" if unknown
                      else f"--runs must be at least {MIN_WINDOW_RUNS}")
    started = time.monotonic()
    rows: list[str] = []
    saved: dict[str, dict[str, list[list[float]]]] = {}
    with running_lab() as lab:
        known = {s["id"]: s for s in lab.api.get("/suites").raise_for_status().json()}
        for suite in suites:
            scenario = args.scenarios[suite]
            values, minutes = _measure(lab, suite, scenario, args.runs,
                                       args.params.get(suite, {}), known[suite]["gate"])
            saved[f"{suite}/{scenario}"] = {f"{series} {metric}": window
                                            for (series, metric), window in values.items()}
            rows += _rows(suite, scenario, known[suite], args.runs, values,
                          statistics.median(minutes))
    if args.save:
        json.dump(saved, args.save, indent=1)
    if args.params:
        print(f"\nparams on top of the scenarios': {json.dumps(args.params)}")
    print(f"\nA/A precision: {args.runs} runs of each scenario at the lab's default "
          f"repetitions; the smallest slowdown a {TRIALS}-trial run shows 4 times in 5 at a "
          f"false-alarm level of {DEFAULT.false_alarm:g} (the gate's calculation); "
          f"{(time.monotonic() - started) / 60:.1f} min in all")
    print(f"{'suite/scenario':<20} {'series':<34} {'metric':<11} {'trial':>6} {'run':>6} "
          f"{'MDE':>6} {'min/run':>7} {'MDE*sqrt(min)':>13}")
    for row in rows:
        print(row)


Window = list[list[float]]  # each run's trial values, oldest run first


def _measure(lab: Lab, suite: str, scenario: str, runs: int, params: dict[str, Any],
             gate: list[str]) -> tuple[dict[tuple[str, str], Window], list[float]]:
    """`runs` A/A jobs: per series and gate metric, the trial values that count; and the lab
    minutes of each job."""
    values: dict[tuple[str, str], Window] = {}
    minutes = []
    for index in range(runs):
        job, run = run_job(lab, suite, scenario, params)
        minutes.append(job_minutes(job))
        for series in run["series"]:
            name = ",".join(f"{k}={v}" for k, v in sorted(series["labels"].items()))
            for metric in gate:  # the trials that count (a disturbed one does not)
                trials = [_value(t, metric) for t in series["trials"] if not t["disturbed"]]
                present = [v for v in trials if v is not None]
                if present and len(present) == len(trials):
                    values.setdefault((name, metric), []).append(present)
        print(f"{suite}/{scenario} A/A {index + 1}/{runs}: run {run['id']}, "
              f"{minutes[-1]:.2f} min", flush=True)
    return values, minutes


def _rows(suite: str, scenario: str, info: dict[str, Any], runs: int,
          values: dict[tuple[str, str], Window], per_run: float) -> list[str]:
    """Per series and gate metric: its precision row (`per_run`: a job's lab minutes)."""
    vocabulary = Vocabulary().extended(info["metrics"])
    rows = []
    for (series, metric), window in sorted(values.items()):
        stats = window_stats(window) if len(window) == runs else None
        if stats is None:
            rows.append(f"{suite + '/' + scenario:<20} {series[:34]:<34} {metric:<11} "
                        "  (no window: a run lacked it, or a value was not positive)")
            continue
        mde = smallest_change(stats, TRIALS, DEFAULT.false_alarm,
                              direction=vocabulary.info(metric).direction)
        rows.append(f"{suite + '/' + scenario:<20} {series[:34]:<34} {metric:<11} "
                    f"{_pct(stats.within)} {_pct(stats.spread)} {_pct(mde)} {per_run:7.2f} "
                    f"{100 * mde * math.sqrt(per_run):12.1f}%")
    return rows


def _value(trial: dict[str, Any], metric: str) -> float | None:
    found = trial["summary"].get(metric, trial["metrics"].get(metric))
    return None if found is None else float(found)


def _pct(value: float) -> str:
    return f"{100 * value:5.1f}%"


if __name__ == "__main__":
    main()
