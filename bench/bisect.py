"""Bisections with real lab jobs: in histories of the example order server where commits were
planted that make every order spin on the CPU, does the lab name the commit that did it, say
"not reproduced" where nothing did, and name both of two commits that each did part of it;
how much lab time does a bisection take?

Each case is a repository of `--commits` commits of the example's history
(examples/order-repo, its own slow change left out; stack/latlab_stack/planted.py), registered in a
throwaway lab (bench/lab.py, with beat, which advances bisections) and bisected from its first
commit to its last through the API (`POST /bisections`, http-order `server=repo` in
`--scenario`, the p99 of any series, the lab's try defaults for each step):

- `--planted` cases per size in `--work-ns` (ns of CPU per order), each at a random commit:
  the culprit must be named exactly (`found`, and it is the planted commit);
- `--none` cases with nothing planted: "not reproduced" is right, a named culprit wrong;
- `--pairs` cases with two commits planting `--work-ns`'s first size each: both named.

The p99 change each planted size made is what the ends step measured side by side (the
bisection's first step), printed per case and as a median per size; it is measured, not
assumed. Rates carry 95 % Clopper-Pearson intervals; lab minutes are the steps' own.

    .venv/bin/python -m bench.bisect [--planted 20] [--none 10] [--pairs 5] [--commits 32]
        [--work-ns 650,1300,2600] [--scenario steady] [--repetitions N] [--seed 1]
        [--code-user USER] [--record bench/records/bisect.jsonl] [--minutes M]
        [--ci-cases 2] [--ci-history 10]

The default sizes aim at +5, +10 and +20 % p99: on a quiet host of this kind 2,500 ns moved
the p99 x1.196 (bench.try). A bisection of 32 commits is six or more comparisons of up to 40 +
40 trials, 10-30 minutes, so the targets' 75 cases take more than a day of lab time: each
case's outcome is kept in `--record` as it ends (bench/records.py), the cases are taken by
turns (a size of each, then nothing planted, then a pair) so every sample grows in a sitting
cut short by `--minutes`, and the same command run again adds the cases still missing.

Runs as root (code under test runs as the code user, in its own network namespace).

Targets (issue 46): the culprit named exactly in >= 18 of 20 for +10 % and +20 % p99, >= 14
of 20 for +5 %; "not reproduced" in >= 9 of 10 ranges without a regression, never a culprit
named; both of two +5 % commits named in >= 3 of 5; lab minutes per bisection of 32 commits
(median, max); beside them, what CI alone would name.

CI alone (bench/ci.py), for the first `--ci-cases` cases of each kind and size: `--ci-history`
runs at the range's first commit (main's history before it), then one run per commit of the
range, oldest first, each judged against the window of the runs before it as the gate judges
a CI submission; the first commit whose run fails is the one CI names (none: nothing named).
It names a planted commit exactly, the first of a pair at best, and is right on a range with
nothing planted when no run fails.
"""

import argparse
import os
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bench import ci
from bench.lab import Lab, running_lab
from bench.records import FOLDER, Records
from latlab_contract.vocabulary import Vocabulary
from latlab_stack import planted

SUITE = "http-order"
PARAMS = {"server": "repo"}
BISECTION_TIMEOUT_S = 4 * 3600


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--planted", type=int, default=20, help="cases per planted size")
    options.add_argument("--none", type=int, default=10, help="cases with nothing planted")
    options.add_argument("--pairs", type=int, default=5, help="cases with two planted")
    options.add_argument("--commits", type=int, default=32, help="commits in a case's range")
    options.add_argument("--work-ns", default="650,1300,2600",
                         help="planted sizes: ns of CPU per order, comma-separated")
    options.add_argument("--scenario", default="steady", help="http-order's scenario")
    options.add_argument("--repetitions", type=int, help="a step's first stage's trials a "
                         "side (default: the lab's, 10)")
    options.add_argument("--seed", type=int, default=1, help="where commits are planted")
    options.add_argument("--code-user", help="the user code under test runs as (see bench.try)")
    options.add_argument("--record", type=Path, default=FOLDER / "bisect.jsonl",
                         help="where each case's outcome is kept as it ends; the cases it "
                         "already holds (with these settings) are not run again")
    options.add_argument("--minutes", type=float, default=float("inf"),
                         help="start no bisection after this many minutes of lab time")
    options.add_argument("--ci-cases", type=int, default=2, help="cases of each kind and "
                         "size also searched by CI alone (one run per commit, the gate)")
    options.add_argument("--ci-history", type=int, default=10,
                         help="CI runs at the range's first commit before its others")
    args = options.parse_args()
    sizes = [int(size) for size in args.work_ns.split(",")]
    if os.geteuid() != 0:
        options.error("run as root: the runner confines code under test")
    if args.commits < 3:
        options.error("need --commits >= 3")
    if args.code_user:
        os.environ["LATLAB_CODE_USER"] = args.code_user
    cases = _cases(random.Random(args.seed), args, sizes)
    records = Records(args.record)
    settings = {"seed": args.seed, "commits": args.commits, "sizes": sizes,
                "scenario": args.scenario, "repetitions": args.repetitions,
                "ci_cases": args.ci_cases, "ci_history": args.ci_history}
    outcomes = [o for o in records.of("bisection", **settings) if o["case"] < len(cases)]
    done = {o["case"] for o in outcomes}
    deadline = time.monotonic() + 60 * args.minutes
    with tempfile.TemporaryDirectory(prefix="latlab-bisect-") as made, running_lab() as lab:
        lab.processes.start("beat", [
            sys.executable, "-m", "celery", "-A", "latlab.worker", "beat", "--schedule",
            str(lab.work / "beat-schedule"), "--loglevel", "WARNING"], env={**os.environ})
        info = next(s for s in lab.api.get("/suites").raise_for_status().json()
                    if s["id"] == SUITE)
        seen: Counter[tuple[str, int]] = Counter()
        for number, (kind, size, plants) in enumerate(cases):
            seen[kind, size] += 1
            if number in done:
                continue
            if time.monotonic() > deadline:
                break
            name, label = f"r{number + 1}", f"{number + 1}/{len(cases)}"
            shas = planted.history_with(Path(made) / name, args.commits, plants)
            outcome = {"case": number, **_bisect(lab, name, Path(made) / name, shas, plants,
                                                 kind, size, args, label)}
            if seen[kind, size] <= args.ci_cases:
                outcome.update(_ci_alone(lab, name, shas, plants, info, args, label))
            outcomes.append(records.add("bisection", settings, outcome))
    print(f"\n{args.record} holds {len(outcomes)} of {len(cases)} cases with these settings "
          f"({records.sittings()} day(s))")
    _report(outcomes, sizes)


def _cases(rng: random.Random, args: argparse.Namespace, sizes: list[int]
           ) -> list[tuple[str, int, dict[int, int]]]:
    """Every case, by turns: one of each planted size, one with nothing planted, one pair;
    the same list for the same seed (a later sitting finds the cases it has not run)."""
    cases: list[tuple[str, int, dict[int, int]]] = []
    for turn in range(max(args.planted, args.none, args.pairs)):
        if turn < args.planted:
            cases += [("planted", size, dict.fromkeys(planted.positions(rng, args.commits, 1),
                                                      size)) for size in sizes]
        if turn < args.none:
            cases.append(("none", 0, {}))
        if turn < args.pairs:
            cases.append(("pair", sizes[0], dict.fromkeys(
                planted.positions(rng, args.commits, 2), sizes[0])))
    return cases


def _bisect(lab: Lab, name: str, path: Path, shas: list[str], plants: dict[int, int],
            kind: str, size: int, args: argparse.Namespace, label: str) -> dict[str, Any]:
    lab.member.post("/repositories", json={"name": name, "url": f"file://{path}"}
                    ).raise_for_status()
    body: dict[str, Any] = {"repo": name, "good": shas[0], "bad": shas[-1], "suite": SUITE,
                            "scenario": args.scenario, "params": PARAMS,
                            "host_tags": [lab.host_tag]}
    if args.repetitions is not None:
        body["repetitions"] = args.repetitions
    started = lab.api.post("/bisections", json=body).raise_for_status().json()
    deadline = time.monotonic() + BISECTION_TIMEOUT_S
    while (found := lab.api.get(f"/bisections/{started['id']}").raise_for_status().json()
           )["status"] == "running":
        if time.monotonic() > deadline:
            raise RuntimeError(f"bisection {started['id']} did not end in "
                               f"{BISECTION_TIMEOUT_S / 3600:.0f} h")
        time.sleep(2)
    named = sorted(c["sha"] for c in (found["result"] or {}).get("culprits", []))
    planted_shas = sorted(shas[k - 1] for k in plants)
    ends = found["steps"][0]
    outcome = {"kind": kind, "size": size, "status": found["status"],
               "exact": named == planted_shas and found["status"] == "found",
               "named": bool(named), "ends_change": ends.get("change"),
               "minutes": sum(step.get("minutes") or 0 for step in found["steps"]),
               "steps": len(found["steps"])}
    print(f"case {label} ({kind}, {size} ns at {sorted(plants)}): {found['status']}, "
          f"{'exact' if outcome['exact'] else 'not exact'}; ends {_pct(outcome['ends_change'])}"
          f"; {outcome['steps']} steps, {outcome['minutes']:.1f} min: {found['message']}",
          flush=True)
    return outcome


def _ci_alone(lab: Lab, repo: str, shas: list[str], plants: dict[int, int],
              info: dict[str, Any], args: argparse.Namespace, label: str) -> dict[str, Any]:
    """The commit CI alone names in a case: the first whose one run fails the gate against
    the runs before it (after `--ci-history` runs at the range's first commit)."""
    metrics, vocabulary = info["gate"], Vocabulary().extended(info["metrics"])
    started = time.monotonic()

    def run(commit: str, name: str) -> dict[str, Any]:
        return ci.ci_run(lab, SUITE, args.scenario, PARAMS, metrics, repo, commit,
                         f"case {label} CI {name}")

    history = [run(shas[0], f"main {i + 1}/{args.ci_history}") for i in range(args.ci_history)]
    named = None
    for number, sha in enumerate(shas[1:], 2):
        candidate = run(sha, f"commit {number}/{len(shas)}")
        if ci.judge(candidate, ci.windows(history, metrics), vocabulary,
                    metrics).verdict == "fail":
            named = number
            break
        history.append(candidate)
    first = min(plants, default=None)
    print(f"case {label} CI alone: named {named or 'nothing'} (planted {sorted(plants)})",
          flush=True)
    return {"ci_named": named, "ci_right": named == first,
            "ci_minutes": (time.monotonic() - started) / 60}


def _report(outcomes: list[dict[str, Any]], sizes: list[int]) -> None:
    if not outcomes:
        return
    for size in sizes:
        cases = [o for o in outcomes if o["kind"] == "planted" and o["size"] == size]
        if cases:
            changes = [o["ends_change"] for o in cases if o["ends_change"] is not None]
            print(f"planted {size} ns (p99 {_pct(statistics.median(changes) if changes else None)}"
                  f" by the ends, median): culprit named exactly "
                  f"{planted.rate(sum(o['exact'] for o in cases), len(cases))}")
    none = [o for o in outcomes if o["kind"] == "none"]
    if none:
        print(f"nothing planted: not reproduced "
              f"{planted.rate(sum(o['status'] == 'not-reproduced' for o in none), len(none))}"
              f"; a culprit named {sum(o['named'] for o in none)}")
    pairs = [o for o in outcomes if o["kind"] == "pair"]
    if pairs:
        print(f"two planted: both named {planted.rate(sum(o['exact'] for o in pairs), len(pairs))}")
    minutes = [o["minutes"] for o in outcomes]
    print(f"lab minutes per bisection: median {statistics.median(minutes):.1f}, max "
          f"{max(minutes):.1f}; steps median {statistics.median(o['steps'] for o in outcomes)}")
    alone = [o for o in outcomes if "ci_named" in o]
    for kind, size in sorted({(o["kind"], o["size"]) for o in alone}):
        cases = [o for o in alone if (o["kind"], o["size"]) == (kind, size)]
        right = planted.rate(sum(o["ci_right"] for o in cases), len(cases))
        print(f"CI alone (one run per commit, the gate), {kind}"
              + (f" {size} ns" if size else "") + f": right {right} (the bisection: "
              f"{sum(_right(o) for o in cases)}/{len(cases)} of the same); lab minutes "
              f"median {statistics.median(o['ci_minutes'] for o in cases):.1f}")


def _right(outcome: dict[str, Any]) -> bool:
    """Whether a bisection was right: not reproduced where nothing was planted, else exact."""
    return bool(outcome["status"] == "not-reproduced" if outcome["kind"] == "none"
                else outcome["exact"])


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:+.1f} %"


if __name__ == "__main__":
    main()
