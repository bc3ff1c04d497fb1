"""What CI alone sees of a change, for the benches that set it beside the lab's own side-by-side
comparisons (bench.try, bench.bisect): one run per commit at the lab's default repetitions,
judged against the window of the runs before it as the gate judges a CI submission
(`analysis.window.window_stats`, `gate.judge_window`: the same code, fed the runs' trial
values)."""

import statistics
from datetime import datetime
from typing import Any

from bench.lab import Lab, run_job
from bench.precision import _value as trial_value
from latlab.analysis import gate, thresholds
from latlab.analysis.baselines import HistoryRun
from latlab.analysis.window import window_stats
from latlab_contract.vocabulary import Vocabulary


def ci_run(lab: Lab, suite: str, scenario: str, params: dict[str, Any], metrics: list[str],
           repo: str, commit: str, name: str) -> dict[str, Any]:
    """A job at `commit` with the lab's default repetitions, as one CI run: its id and each
    gate metric's trial values (of trials that count) in its one series."""
    _, run = run_job(lab, suite, scenario, params, fields={"repo": repo, "ref": commit})
    (series,) = [s for s in run["series"] if "view" not in s["labels"]]
    trials = [t for t in series["trials"] if not t["disturbed"]]
    values = {m: [v for t in trials if (v := trial_value(t, m)) is not None] for m in metrics}
    print(f"{name}: run {run['id']}, p99 {statistics.median(values['p99']):.4g}", flush=True)
    return {"id": run["id"], "commit": commit, "labels": series["labels"], "values": values,
            "started_at": run["started_at"]}


def windows(history: list[dict[str, Any]], metrics: list[str]) -> list[gate.Window]:
    """Each metric's window of `history` (CI runs, oldest first; at most the gate's default
    number of runs, the newest)."""
    found = []
    for metric in metrics:
        runs = [HistoryRun(r["id"], r["commit"], datetime.fromisoformat(r["started_at"]),
                           r["values"][metric])
                for r in history[-thresholds.DEFAULT.window:]]
        stats = window_stats([r.values for r in runs])
        if stats is None:
            raise RuntimeError(f"no window of {metric}: a run lacked it")
        found.append(gate.Window("main", runs, stats))
    return found


def judge(run: dict[str, Any], against: list[gate.Window], vocabulary: Vocabulary,
          metrics: list[str]) -> gate.GateResult:
    """A CI run judged against `against` (from `windows`), as the gate judges it."""
    return gate.judge_window([(run["labels"], vocabulary.info(m), tuple(run["values"][m]))
                              for m in metrics], against)
