"""The CI gate against history: how often it fails an unchanged candidate (A/A), how often it
catches a slower one (power), beside Bencher's t-test threshold on the same numbers.

A throwaway lab (bench/simulated.py): every run goes through `POST /runs` (a
`latlab.result/v1` document of latency samples only, so p99 is the one gated metric) and is
judged by the real gate. Cells: run-to-run spread {2, 5, 10 %} x window {10,
30} runs x candidate trials {1, 3, 5} x shift {0 (A/A), 5, 8, 10, 20, 30, 40 %} (a shift of 4x
the spread is in the grid for every spread).

- A history (its own suite per spread and window, its own scenario, so no two mix) is
  `window` one-trial runs on `main`. A run's p99 is its level, lognormal around 1 ms, times
  its trials' noise, lognormal too: `--within` of the spread's variance is trial noise, the
  rest run level (default half each), so a one-trial run's p99 spreads by the spread from run
  to run; 2 % of history runs are outliers (x1.5). Each trial's 2,000 samples are one shape
  scaled so that their nearest-rank p99 is exactly the value drawn.
- Candidates, each on a fresh branch (judged against main's window, never part of it): per
  history and trial count, `--aa` unchanged and `--shifted` per shift; a candidate's level is
  drawn like a history run's (no outliers), times 1 + shift, and its trials around it.
- The window's size is a gate setting, `PUT /gate-settings` by suite, as an admin signed in
  (the bench creates the admin in its database, then signs in through the api).
- Bencher, on the same data (its documented t-test model): the last 64 values of the
  branch's history (here the whole history: `window` runs), an alert when the candidate's
  value is above mean + t.ppf(0.99, n - 1) x sd of those values. The history's values are the
  p99 the lab stored (`GET /runs/{id}`, the median of a run's trials); the candidate's is the
  value the gate judged (the median of its trials' p99: `bencher run --iter k --fold median`).

Targets: A/A <= 1 % in every cell (not above it beyond its 95 % interval, which resamples
histories: a test at level 1 % fails 1 % of unchanged runs, and a history's candidates share
its window); power >= 80 % at one trial for a shift of 4x the spread, or the ceiling where no
test at the gate's 1 % can reach it (the spread 10 runs give is too uncertain: the t
prediction test, the most powerful there, has 65-78 %), not significantly below; at the same
A/A rate, power >= Bencher's in every cell: each model's threshold set so that it fails 1 % of
the cell's unchanged candidates, then missed where the gate catches significantly fewer of
the shifted ones (McNemar's exact test on the candidates only one of the two caught, Holm over
every cell and shift compared; both judge the same candidates); every cell where it is lower
at all is listed.

Creep alerts, judged by the same lab on histories of their own, are `bench.creep`.

    .venv/bin/python -m bench.gate [--histories 30] [--aa 10] [--shifted 3] [--clients 3]

The default cells, 18,720 submissions, take about 15 minutes on 2 cores (~22 a second).
"""

import argparse
import functools
import itertools
import math
import statistics
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import httpx
import numpy as np
import numpy.typing as npt
from scipy.stats import binomtest
from scipy.stats import nct as noncentral_t
from scipy.stats import t as student

from bench.aa import _wilson as wilson
from bench.simulated import LEVEL_NS, START, Progress, run_clients, simulated_lab, submit, template

SPREADS = (0.02, 0.05, 0.10)
WINDOWS = (10, 30)
TRIALS = (1, 3, 5)
SHIFTS = (0.05, 0.08, 0.10, 0.20, 0.30, 0.40)
OUTLIER_SHARE, OUTLIER_FACTOR = 0.02, 1.5
BENCHER_MAX_SAMPLE, BENCHER_BOUNDARY = 64, 0.99
TARGET_AA, TARGET_POWER, POWER_SHIFT = 0.01, 0.8, 4  # power at a shift of 4 x the spread
MIN_EFFECT = 0.05  # the gate's default: smaller changes never fail

Cell = tuple[float, int, int, float]  # spread, window, candidate trials, shift

@dataclass
class Tally:
    """One cell's candidates: what the gate and Bencher said of each."""

    candidates: int = 0
    gate: int = 0  # the gate failed it
    bencher: int = 0  # Bencher's threshold alerted
    unjudged: int = 0  # no window evidence (the gate fell back to one baseline run)
    window_runs: int = 0  # runs of the windows the gate judged against, outliers included
    # Per candidate, for comparing the two at one A/A rate: the gate's p (1 below the minimum
    # effect, which never fails) and Bencher's score (its value's distance from the mean in
    # standard deviations), in candidate order.
    gate_p: list[float] = field(default_factory=list)
    bencher_score: list[float] = field(default_factory=list)
    by_history: dict[int, list[int]] = field(default_factory=dict)  # history: [failed, n]

    def add(self, failed: bool, alerted: bool, window_runs: int | None, history: int,
            gate_p: float, bencher_score: float) -> None:
        counts = self.by_history.setdefault(history, [0, 0])
        counts[0] += failed
        counts[1] += 1
        self.gate_p.append(gate_p)
        self.bencher_score.append(bencher_score)
        self.candidates += 1
        self.gate += failed
        self.bencher += alerted
        self.unjudged += window_runs is None
        self.window_runs += window_runs or 0


class Results:
    def __init__(self) -> None:
        self.cells: dict[Cell, Tally] = {}
        self.mismatched = 0  # candidates whose judged p99 is not the one drawn
        self.lock = threading.Lock()

    def add(self, cell: Cell, failed: bool, alerted: bool, window_runs: int | None,
            history: int, gate_p: float, bencher_score: float) -> None:
        with self.lock:
            self.cells.setdefault(cell, Tally()).add(failed, alerted, window_runs, history,
                                                     gate_p, bencher_score)


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--histories", type=int, default=30,
                         help="histories per spread and window")
    options.add_argument("--aa", type=int, default=10,
                         help="unchanged candidates per history and trial count")
    options.add_argument("--shifted", type=int, default=3,
                         help="candidates per history, trial count and shift")
    options.add_argument("--clients", type=int, default=3)
    options.add_argument("--samples", type=int, default=2000, help="samples per trial")
    options.add_argument("--within", type=float, default=0.5,
                         help="the share of the spread's variance that is trial noise")
    options.add_argument("--seed", type=int, default=1)
    options.add_argument("--test", choices=["t", "z", "percentage"], default="t",
                         help="the gate's test (a gate setting; the power targets are t's)")
    options.add_argument("--detail", action="store_true",
                         help="also every cell and shift with both intervals")
    args = options.parse_args()
    per_history = len(TRIALS) * (args.aa + args.shifted * len(SHIFTS))
    progress = Progress(args.histories * len(SPREADS) * sum(w + per_history for w in WINDOWS))
    began = time.monotonic()
    results = Results()
    shape = template(args.samples, args.seed)
    settings = {_suite(spread, window): {"window": window, "test": args.test}
                for spread in SPREADS for window in WINDOWS}
    with simulated_lab(settings, args.clients) as lab:
        # Index outermost, so an interrupted run has covered every cell alike.
        run_clients(lab, (functools.partial(_history, spread=spread, window=window,
                                            index=index, shape=shape, args=args,
                                            progress=progress, results=results)
                          for index, spread, window in itertools.product(
                              range(args.histories), SPREADS, WINDOWS)), args.clients)
        wall = (time.monotonic() - progress.started, time.monotonic() - began)
    return _report(results, progress, args, wall)


def _suite(spread: float, window: int) -> str:
    return f"gate-s{round(100 * spread):02d}-w{window}"


def _history(client: httpx.Client, spread: float, window: int, index: int,
             shape: npt.NDArray[np.float64], args: argparse.Namespace, progress: Progress,
             results: Results) -> None:
    """One history on main, then every candidate against it, each on a branch of its own."""
    rng = np.random.default_rng([args.seed, SPREADS.index(spread), window, index])
    run_sd, trial_sd = spread * math.sqrt(1 - args.within), spread * math.sqrt(args.within)
    suite, scenario = _suite(spread, window), f"h{index:04d}"

    def send(branch: str, at: datetime, commit: str, level: float, trials: int
             ) -> dict[str, Any]:
        p99s = level * np.exp(rng.normal(0.0, trial_sd, trials))
        created = submit(client, shape, progress, suite, scenario, branch, at, commit, p99s)
        created["p99"] = float(statistics.median(np.rint(p99s)))
        return created

    history = []
    for i in range(window):
        outlier = OUTLIER_FACTOR if rng.random() < OUTLIER_SHARE else 1.0
        level = LEVEL_NS * outlier * math.exp(rng.normal(0.0, run_sd))
        history.append(send("main", START + timedelta(minutes=i), f"{index:04x}{i:04x}",
                              level, 1)["id"])
    stored = [_stored_p99(client, run_id) for run_id in history][-BENCHER_MAX_SAMPLE:]
    # Bencher's t-test upper boundary limit over the branch's last values.
    mean, sd = statistics.fmean(stored), statistics.stdev(stored)
    bencher = mean + float(student.ppf(BENCHER_BOUNDARY, len(stored) - 1)) * sd
    later = START + timedelta(minutes=window + 60)
    for number, (trials, shift, _) in enumerate(_candidates(args)):
        level = LEVEL_NS * (1 + shift) * math.exp(rng.normal(0.0, run_sd))
        answer = send(f"{suite}-{scenario}-{number}", later, f"c{index:03x}{number:04x}",
                        level, trials)
        evidence = answer["gate_evidence"]
        value = evidence[0]["value"] if evidence else answer["p99"]
        if abs(value - answer["p99"]) > 0.5:
            with results.lock:
                results.mismatched += 1
        window_runs = (evidence[0]["window"]["runs"] + evidence[0]["window"]["outliers"]
                       if evidence else None)
        gate_p = (evidence[0]["p_value"] if evidence and value / evidence[0]["centre"] - 1
                  >= MIN_EFFECT else 1.0)
        results.add((spread, window, trials, shift), answer["verdict"] == "fail",
                    value > bencher, window_runs, index, gate_p, (value - mean) / sd)


def _candidates(args: argparse.Namespace) -> Iterator[tuple[int, float, int]]:
    """(trials, shift, replicate) of every candidate a history gets."""
    for trials in TRIALS:
        for shift in (0.0, *SHIFTS):
            for replicate in range(args.aa if shift == 0 else args.shifted):
                yield trials, shift, replicate


def _stored_p99(client: httpx.Client, run_id: int) -> float:
    """A run's p99 as the lab stored it: the median of its trials' (the gate's run value)."""
    run = client.get(f"/runs/{run_id}").raise_for_status().json()
    return float(statistics.median(t["summary"]["p99"] for t in run["series"][0]["trials"]))


def _rate(k: int, n: int) -> str:
    low, high = wilson(k, n)
    return f"{k}/{n} = {100 * k / max(n, 1):.1f} % ({100 * low:.1f}-{100 * high:.1f})"


def _by_history(tally: Tally, rounds: int = 2000) -> tuple[float, float]:
    """A 95 % interval of a cell's failure rate, resampling its histories (a percentile
    bootstrap: a history's candidates share its window, so they fail or pass together)."""
    counts = np.asarray(list(tally.by_history.values()), dtype=float)
    if len(counts) == 0:
        return 0.0, 1.0
    picks = np.random.default_rng(0).integers(0, len(counts), (rounds, len(counts)))
    rates = counts[picks, 0].sum(axis=1) / counts[picks, 1].sum(axis=1)
    return float(np.quantile(rates, 0.025)), float(np.quantile(rates, 0.975))


def _edges(aa: Tally) -> tuple[float, float]:
    """Each model's threshold at which it fails `TARGET_AA` of the unchanged candidates: a
    gate p below the first, a Bencher score above the second."""
    allowed = math.floor(TARGET_AA * aa.candidates)
    gate = sorted(aa.gate_p)
    bencher = sorted(aa.bencher_score, reverse=True)
    if allowed >= len(gate):
        return 1.0, -math.inf
    return gate[allowed], bencher[allowed]


def _report(results: Results, progress: Progress, args: argparse.Namespace,
            wall: tuple[float, float]) -> int:
    cells = results.cells
    groups = list(itertools.product(SPREADS, WINDOWS, TRIALS))
    print(f"The gate's test: {args.test}")
    print(f"CI gate against history vs Bencher's t-test (last {BENCHER_MAX_SAMPLE}, upper "
          f"boundary {BENCHER_BOUNDARY}) on the same histories and candidates")
    print(f"{args.histories} histories per spread x window; {args.aa} A/A and {args.shifted} "
          f"per shift candidates per history and trial count; {100 * args.within:g} % of the "
          f"spread's variance within runs; {100 * OUTLIER_SHARE:g} % of history runs "
          f"x{OUTLIER_FACTOR}; seed {args.seed}")
    print(f"wall time {wall[1] / 60:.1f} min ({wall[0] / 60:.1f} min submitting: "
          f"{progress.submitted} submissions, {args.clients} clients, "
          f"{progress.submitted / wall[0]:.1f}/s)")
    print()
    print("A/A false-fail rate (95 % Wilson interval)")
    print(f"{'spread':>6} {'window':>6} {'trials':>6}  {'gate':<26} {'Bencher':<26} "
          f"{'gate window':>11}")
    for spread, window, trials in groups:
        aa = cells.get((spread, window, trials, 0.0), Tally())
        print(f"{100 * spread:5g} % {window:6} {trials:6}  {_rate(aa.gate, aa.candidates):<26} "
              f"{_rate(aa.bencher, aa.candidates):<26} "
              f"{aa.window_runs / max(aa.candidates - aa.unjudged, 1):11.1f}"
              + (f"  ({aa.unjudged} unjudged)" if aa.unjudged else ""))
    print()
    n_shifted = args.histories * args.shifted
    spans = [wilson(round(p * n_shifted), n_shifted) for p in (0.5, 0.8, 0.95)]
    print(f"Power, gate / Bencher (%), {n_shifted} candidates a cell; 95 % intervals at that "
          "count: " + ", ".join(f"{100 * p:g} %: {100 * low:.0f}-{100 * high:.0f}"
                                for p, (low, high) in zip((0.5, 0.8, 0.95), spans, strict=True)))
    print(f"{'spread':>6} {'window':>6} {'trials':>6} "
          + " ".join(f"{f'{100 * s:g} %':>9}" for s in SHIFTS))
    for spread, window, trials in groups:
        row = []
        for shift in SHIFTS:
            tally = cells.get((spread, window, trials, shift), Tally())
            n = max(tally.candidates, 1)
            row.append(f"{f'{100 * tally.gate / n:.0f}/{100 * tally.bencher / n:.0f}':>9}")
        print(f"{100 * spread:5g} % {window:6} {trials:6} " + " ".join(row))
    if args.detail:
        print()
        print(f"{'spread':>6} {'window':>6} {'trials':>6} {'shift':>6}  {'gate':<28} Bencher")
        for (spread, window, trials), shift in itertools.product(groups, (0.0, *SHIFTS)):
            tally = cells.get((spread, window, trials, shift), Tally())
            print(f"{100 * spread:5g} % {window:6} {trials:6} {100 * shift:4g} %  "
                  f"{_rate(tally.gate, tally.candidates):<28} "
                  f"{_rate(tally.bencher, tally.candidates)}")
    unjudged = sum(t.unjudged for t in cells.values())
    if unjudged:
        print(f"\n{unjudged} candidates had no window evidence (judged against one run)")
    if results.mismatched:
        print(f"\n{results.mismatched} candidates were judged on a p99 other than the one drawn")
    return _targets(cells, groups)


def _targets(cells: dict[Cell, Tally], groups: list[tuple[float, int, int]]) -> int:
    print()
    aa = {group: cells.get((*group, 0.0), Tally()) for group in groups}
    # A test at level 1 % fails 1 % of unchanged runs: a cell is off target when its rate is
    # above 1 % beyond its interval. A history's candidates share its window (one whose
    # spread came out small fails several), so the interval resamples histories, not
    # candidates (a bootstrap; Wilson's, which treats them as independent, is too narrow).
    above = [(g, t) for g, t in aa.items() if t.gate > TARGET_AA * t.candidates]
    clear = [(g, t) for g, t in above if _by_history(t)[0] > TARGET_AA]
    pooled = [sum(getattr(t, key) for t in aa.values()) for key in ("gate", "bencher",
                                                                     "candidates")]
    print(f"[{'ok' if not clear else 'missed'}] A/A <= {100 * TARGET_AA:g} % in every cell: "
          f"{len(clear)} of {len(groups)} cells above it beyond their interval, {len(above)} "
          f"above it at all (all cells pooled: gate {_rate(pooled[0], pooled[2])}, Bencher "
          f"{_rate(pooled[1], pooled[2])})")
    for group, tally in above:
        low, high = _by_history(tally)
        print(f"    {_name(group)}: {tally.gate}/{tally.candidates} = "
              f"{100 * tally.gate / tally.candidates:.1f} % ({100 * low:.1f}-{100 * high:.1f}"
              f" resampling histories)"
              + (" (above the target beyond its interval)" if (group, tally) in clear else ""))
    powered = True
    print(f"power >= {100 * TARGET_POWER:g} % at one trial for a shift of {POWER_SHIFT}x "
          "the spread, or the most any test at the gate's level can have there (`ceiling`: "
          "the t prediction test's power, from the noncentral t; with the spread estimated "
          "from the window's runs no test at that level does better):")
    for spread, window in itertools.product(SPREADS, WINDOWS):
        shift = round(POWER_SHIFT * spread, 4)
        tally = cells.get((spread, window, 1, shift), Tally())
        ceiling = _ceiling(spread, window, shift)
        target = min(TARGET_POWER, ceiling)
        ok = tally.candidates > 0 and wilson(tally.gate, tally.candidates)[1] >= target
        powered &= ok
        print(f"  [{'ok' if ok else 'missed'}] {_name((spread, window, 1))}, shift "
              f"{100 * shift:g} %: {_rate(tally.gate, tally.candidates)}, ceiling "
              f"{100 * ceiling:.0f} % (Bencher {_rate(tally.bencher, tally.candidates)})")
    # At one A/A rate: each model's threshold set so that it fails 1 % of the cell's unchanged
    # candidates (Bencher's t threshold omits the prediction's sqrt(1 + 1/n) and includes
    # outlier runs, so its A/A rate is not the gate's), then the shifted candidates.
    lower, p_values = [], []
    for group in groups:
        gate_edge, bencher_edge = _edges(aa[group])
        for shift in SHIFTS:
            shifted = cells.get((*group, shift), Tally())
            gate = [p < gate_edge for p in shifted.gate_p]
            bencher = [score > bencher_edge for score in shifted.bencher_score]
            if sum(gate) < sum(bencher):
                # The same candidates: only those one model caught tell the two apart.
                gate_only = sum(g and not b for g, b in zip(gate, bencher, strict=True))
                bencher_only = sum(b and not g for g, b in zip(gate, bencher, strict=True))
                p = binomtest(gate_only, gate_only + bencher_only).pvalue
                p_values.append(p)
                n = len(gate)
                lower.append(f"{_name(group)}, shift {100 * shift:g} %: "
                             f"{100 * sum(gate) / n:.1f} vs {100 * sum(bencher) / n:.1f} %, "
                             f"caught by Bencher only {bencher_only}, by the gate only "
                             f"{gate_only} (McNemar p = {p:.2g})")
    # Holm over every cell and shift compared: with 108 comparisons, a few p < 0.05 come by
    # chance alone.
    compared = len(groups) * len(SHIFTS)
    significant = 0
    for rank, p in enumerate(sorted(p_values)):
        if p >= 0.05 / (compared - rank):
            break
        significant += 1
    print(f"[{'ok' if not significant else 'missed'}] at the same A/A rate ({100 * TARGET_AA:g}"
          f" % of each cell's unchanged candidates), power >= Bencher's: in {compared} cells "
          f"and shifts the gate's power is lower in {len(lower)}, with McNemar p < 0.05 in "
          f"{sum(p < 0.05 for p in p_values)}, significantly (Holm over the {compared}) in "
          f"{significant}")
    for line in lower:
        print(f"    lower: {line}")
    return 0 if not clear and powered and not significant else 1


def _ceiling(spread: float, window: int, shift: float) -> float:
    """The power of the one-trial t prediction test at the gate's level against a window of
    `window` one-trial runs whose log values spread by `spread`, for a shift of `shift`."""
    ncp = math.log(1 + shift) / spread / math.sqrt(1 + 1 / window)
    return float(noncentral_t.sf(student.ppf(1 - TARGET_AA, window - 1), window - 1, ncp))


def _name(group: tuple[float, int, int]) -> str:
    spread, window, trials = group
    return f"spread {100 * spread:g} %, window {window}, {trials} trial{'s' * (trials > 1)}"


if __name__ == "__main__":
    sys.exit(main())
