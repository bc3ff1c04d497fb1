"""The example order server's repository (examples/order-repo/make_repo.py) with a planted
slowdown: a commit making every order spin `work_ns` on the CPU before the server reads it (a
real change of the code; the p99 it adds is measured, not assumed). For bench.try (planted on
top of `main`) and bench.bisect (planted anywhere in a history)."""

import importlib
import random
import shutil
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from scipy.stats import binomtest

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "order-repo"
CALL = ("\tstart := time.Now()\n\torder, err := readOrder(w, r)\n",
        "\tstart := time.Now()\n\tspinPlanted()\n\torder, err := readOrder(w, r)\n")
SPIN_GO = """package main

import "time"

// plantedWork is a bench's planted slowdown: the CPU every order spins before it is read
// (a later planted commit adds to it).
var plantedWork = {work_ns} * time.Nanosecond

func spinPlanted() {{
\tfor start := time.Now(); time.Since(start) < plantedWork; {{
\t}}
}}
"""


def example() -> tuple[ModuleType, ModuleType]:
    """The example's make_repo and history modules, from its folder (not a package)."""
    sys.path.insert(0, str(EXAMPLE))
    try:
        return importlib.import_module("make_repo"), importlib.import_module("history")
    finally:
        sys.path.remove(str(EXAMPLE))


def planted(work_ns: int) -> Any:
    """The change that plants `work_ns` of CPU per order."""
    _, history = example()
    return history.Change(f"bench: {work_ns} ns of CPU per order, planted", (
        history.Append("planted.go", SPIN_GO.format(work_ns=work_ns)),
        history.Replace("server.go", *CALL)))


def on_top(dest: Path, work_ns: int) -> tuple[str, str]:
    """The example repository with two commits and the planted one on top of its `main`:
    (main's sha, the planted commit's)."""
    make_repo, _ = example()
    made = make_repo.make_repo(dest, 2, 2)
    change = planted(work_ns)
    make_repo.apply(dest, change)
    return str(made["commits"][-1]), str(make_repo.commit(dest, change.message, 3))


def history_with(dest: Path, commits: int, plants: dict[int, int]) -> list[str]:
    """A repository of `commits` commits of the example's history (its own slow change left
    out), commit k (1 = the first) planting `plants[k]` ns per order; the shas, oldest first.
    Plants add up: each adds its own spin."""
    make_repo, history = example()
    dest.mkdir(parents=True, exist_ok=True)
    make_repo.git(dest, "init", "--quiet", "--initial-branch", "main")
    shutil.copytree(make_repo.SERVER, dest, dirs_exist_ok=True)
    shas = [make_repo.commit(dest, "order server", 1)]
    plain = [c for c in make_repo.changes(commits + 1, 2) if c is not history.SLOW]
    for number in range(2, commits + 1):
        if number in plants:
            change = _spin(history, number, plants[number], first=len(
                [k for k in plants if k < number]) == 0)
        else:
            change = plain.pop(0)
        make_repo.apply(dest, change)
        shas.append(str(make_repo.commit(dest, change.message, number)))
    return shas


def _spin(history: ModuleType, number: int, work_ns: int, first: bool) -> Any:
    """A commit spinning `work_ns` more per order: the first plant adds the spin and its
    call, a later one adds to its duration."""
    if first:
        change = planted(work_ns)
        return history.Change(f"commit {number}: {work_ns} ns of CPU per order, planted",
                              change.edits)
    return history.Change(f"commit {number}: {work_ns} ns more CPU per order, planted", (
        history.Append("planted.go",
                       f"\nfunc init() {{ plantedWork += {work_ns} * time.Nanosecond }}\n"),))


def positions(rng: random.Random, commits: int, count: int) -> list[int]:
    """`count` distinct commit numbers in 2..commits, at random."""
    return sorted(rng.sample(range(2, commits + 1), count))


def rate(k: int, n: int) -> str:
    """k of n with its 95 % Clopper-Pearson interval."""
    if not n:
        return f"{k}/{n}"
    interval = binomtest(k, n).proportion_ci(method="exact")
    return (f"{k}/{n} = {100 * k / n:.1f} % (95 % CI {100 * interval.low:.1f}-"
            f"{100 * interval.high:.1f} %)")
