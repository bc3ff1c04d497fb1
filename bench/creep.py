"""Creep alerts (`analysis.creep`, raised by `alerts.history` on each run of main) on simulated
histories, through the api: how often a flat history raises one (A/A), and how often and how
soon a slow rise is caught, beside the change-point alerts on the same runs.

A throwaway lab (bench/simulated.py). One-trial runs whose p99 spreads lognormally from run to
run ({3, 6 %}), at two levels of the creep test (the project's `false_alarm`, set by suite:
1 %, the default, and the lab's 5 %). Flat histories of `FLAT_RUNS` runs give the A/A rate:
the share of the runs the test could judge (from its `MIN_RUNS`-th) that opened a creep alert,
and of the histories with one. Ramps (+64 % over 7 runs, issue 47's 111 -> 182 µs, and +20 %
over 10; each alone, and after 20 flat runs) give the share caught (a creep alert holding at
a ramp run: open, and seen at that run), the ramp run it was first caught at, and for
comparison the share in which a change-point alert opened on a ramp run, and in which either
did. Rates with 95 % Clopper-Pearson intervals.

    .venv/bin/python -m bench.creep [--histories 25] [--clients 3] [--seed 1]

The default, 25 histories a cell (3,400 submissions), takes about 4 minutes on 2 cores.
"""

import argparse
import functools
import itertools
import math
import statistics
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta

import httpx
import numpy as np
import numpy.typing as npt
from sqlalchemy import Engine, select

from bench.simulated import LEVEL_NS, START, Progress, run_clients, simulated_lab, submit, template
from latlab.analysis import thresholds
from latlab.analysis.creep import MIN_RUNS
from latlab.models import Alert
from latlab_stack.planted import rate as exact_rate

LEVELS = (0.01, 0.05)  # the creep test's level (`false_alarm`): the default, the lab's ALPHA
SPREADS = (0.03, 0.06)
FLAT_RUNS = 40
# (rise, over this many runs, after this many flat runs); (0, 0, FLAT_RUNS) is flat.
Shape = tuple[float, int, int]
SHAPES: tuple[Shape, ...] = ((0.0, 0, FLAT_RUNS), (0.64, 7, 0), (0.64, 7, 20), (0.20, 10, 0),
                             (0.20, 10, 20))
Cell = tuple[float, float, Shape]  # level, spread, shape
CELLS: list[Cell] = list(itertools.product(LEVELS, SPREADS, SHAPES))


@dataclass
class Tally:
    """One cell's histories: where creep (and change-point) alerts opened."""

    histories: int = 0
    tested: int = 0  # flat runs the creep test could judge (from its MIN_RUNS-th run on)
    opened: int = 0  # creep alerts opened on those runs
    flat_histories: int = 0  # histories with a creep alert opened on a flat run
    caught: int = 0  # ramps with a creep alert holding at a ramp run
    caught_at: list[int] = field(default_factory=list)  # the ramp run (from 1) first caught
    change_points: int = 0  # ramps with a change-point alert opened on a ramp run
    either: int = 0  # ramps caught by a creep or a change-point alert

    def add(self, flat: int, opened: list[int], held: list[int],
            change_points: list[int]) -> None:
        """One history of `flat` flat runs (then its ramp, if any), with the runs (from 0)
        that opened a creep alert, those a creep alert held at, and those that opened a
        change-point alert."""
        before = [i for i in opened if i < flat]
        ramp = [i - flat + 1 for i in held if i >= flat]
        self.histories += 1
        self.tested += max(0, flat - MIN_RUNS + 1)
        self.opened += len(before)
        self.flat_histories += bool(before)
        self.caught += bool(ramp)
        self.caught_at.extend(ramp[:1])
        changed = any(i >= flat for i in change_points)
        self.change_points += changed
        self.either += bool(ramp) or changed


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--histories", type=int, default=25,
                         help="histories per level, spread and shape")
    options.add_argument("--clients", type=int, default=3)
    options.add_argument("--samples", type=int, default=2000, help="samples per trial")
    options.add_argument("--seed", type=int, default=1)
    args = options.parse_args()
    expected = args.histories * len(LEVELS) * len(SPREADS) * sum(
        flat + steps for _, steps, flat in SHAPES)
    began = time.monotonic()
    tallies: dict[Cell, Tally] = {}
    progress = Progress(expected)
    shape = template(args.samples, args.seed)
    with simulated_lab({_suite(level): {"false_alarm": level} for level in LEVELS},
                       args.clients) as lab:
        run_clients(lab, (functools.partial(_history, engine=lab.engine, cell=cell,
                                            index=index, shape=shape, seed=args.seed,
                                            progress=progress, tallies=tallies)
                          for index, cell in itertools.product(range(args.histories), CELLS)),
                    args.clients)
    _report(tallies, args, progress.submitted, time.monotonic() - began)
    return 0


def _suite(level: float) -> str:
    return f"creep-a{round(100 * level):02d}"


def _history(client: httpx.Client, engine: Engine, cell: Cell, index: int,
             shape: npt.NDArray[np.float64], seed: int, progress: Progress,
             tallies: dict[Cell, Tally]) -> None:
    """One history on main: its flat runs, then its ramp (the first ramp run at the flat
    level, the last `rise` above it), each run one trial at its level times the run-to-run
    noise; after each run, whether it opened a creep or a change-point alert, and whether a
    creep alert holds at it (open, last seen at it)."""
    level, spread, (rise, steps, flat) = cell
    rng = np.random.default_rng([seed, 1000 + CELLS.index(cell), index])
    suite = _suite(level)
    scenario = f"s{round(100 * spread):02d}-r{round(100 * rise)}x{steps}-f{flat}-h{index:04d}"
    levels = [1.0] * flat + [(1 + rise) ** (k / (steps - 1)) for k in range(steps)]
    opened: dict[str, list[int]] = {"creep": [], "change-point": []}
    held: list[int] = []
    seen: Counter[str] = Counter()
    for i, run_level in enumerate(levels):
        p99 = LEVEL_NS * run_level * math.exp(rng.normal(0.0, spread))
        run = submit(client, shape, progress, suite, scenario, "main",
                     START + timedelta(minutes=i), f"{index:04x}{i:04x}", np.asarray([p99]))
        now, current = _alerts(engine, suite, scenario, run["id"])
        for kind, runs in opened.items():
            if now[kind] > seen[kind]:
                runs.append(i)
        if "creep" in current:
            held.append(i)
        seen = now
    with progress.lock:
        tallies.setdefault(cell, Tally()).add(flat, opened["creep"], held,
                                              opened["change-point"])


def _alerts(engine: Engine, suite: str, scenario: str, run_id: int
            ) -> tuple[Counter[str], set[str]]:
    """How many alerts of each kind a history has opened so far, and the kinds of its open
    ones last seen at `run_id` (the lab's own rows)."""
    with engine.connect() as connection:
        rows = connection.execute(select(Alert.kind, Alert.state, Alert.run_id).where(
            Alert.suite == suite, Alert.scenario == scenario)).all()
    return (Counter(kind for kind, _, _ in rows),
            {kind for kind, state, seen_at in rows if state != "resolved" and seen_at == run_id})


def _report(tallies: dict[Cell, Tally], args: argparse.Namespace, submitted: int,
            wall: float) -> None:
    print(f"Creep alerts: {args.histories} histories a cell of one-trial runs on main "
          f"(p99 lognormal from run to run; the test judges a run from the {MIN_RUNS}th of its "
          f"history on, over the newest {thresholds.DEFAULT.window}); 95 % Clopper-Pearson "
          f"intervals; {submitted} submissions in all, {wall / 60:.1f} min")
    for level, spread in itertools.product(LEVELS, SPREADS):
        print(f"level {100 * level:g} %, spread {100 * spread:g} %:")
        for shape in SHAPES:
            tally = tallies.get((level, spread, shape), Tally())
            rise, steps, flat = shape
            if not steps:
                print(f"  flat, {flat} runs: runs opening a creep alert "
                      f"{exact_rate(tally.opened, tally.tested)}; histories with one "
                      f"{exact_rate(tally.flat_histories, tally.histories)}")
                continue
            at = (f", first at ramp run {statistics.median(tally.caught_at):g} (median)"
                  if tally.caught_at else "")
            print(f"  +{100 * rise:g} % over {steps} runs after {flat} flat: caught "
                  f"{exact_rate(tally.caught, tally.histories)}{at}; a change-point alert "
                  f"on a ramp run {tally.change_points}/{tally.histories}, either "
                  f"{tally.either}/{tally.histories}"
                  + (f"; creep alerts before the ramp {tally.opened}" if tally.opened else ""))


if __name__ == "__main__":
    sys.exit(main())
