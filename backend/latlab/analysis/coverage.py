"""What the CI gate could not judge, and what it must say besides its tests.

A verdict is only as good as what it compared. A gate that compared nothing says so: a run
whose series share none of their gated metrics with the baseline (new series, series that
vanished, statistics the harness never printed) is `no-baseline`, never `pass`, and every
series or metric left out is named with the reason (`not-compared`). A run's failed
operations, as its harness counted them, are a reason of their own: past the project's
`max_error_rate` they fail the run as `errors` (unless the submission expects errors), below
it they are a warning (`failures`).
"""

from collections.abc import Collection
from typing import Any

from latlab.analysis.compare import TAIL_PERCENTILES, reliable, trial_values
from latlab.analysis.thresholds import Thresholds
from latlab.models import Run, Series


def interpolated(series: Series) -> set[str]:
    """The series' summary statistics computed from a histogram rebuilt from the percentiles
    its harness printed (none of them the tool's own)."""
    return set((series.summary_origin or {}).get("interpolated", []))


def left_out(run: Run, baseline: Run | None, gate: Collection[str],
             asked: Collection[str]) -> set[tuple[str, str]]:
    """(label key, metric) pairs the gate must not judge: a gated statistic that either
    side's harness did not print (interpolated), unless the submission named it (`asked`)."""
    theirs = {} if baseline is None else {s.label_key: s for s in baseline.series}
    pairs = set()
    for series in run.series:
        other = theirs.get(series.label_key)
        guessed = interpolated(series) | (set() if other is None else interpolated(other))
        pairs |= {(series.label_key, metric) for metric in gate
                  if metric in guessed and metric not in asked}
    return pairs


def why_not(series: Series, metric: str, skipped: Collection[tuple[str, str]],
            other: Series | None = None) -> str | None:
    """Why the gate cannot judge the series' metric on the run's side, or None. A metric the
    series does not have is a reason only when its baseline series (`other`) has it (a
    harness without throughput, a JMH time-mode benchmark without ops/s, is not told so on
    every run)."""
    if (series.label_key, metric) in skipped:
        return (f"{metric} was not printed by the harness (the lab's value, marked ~, is "
                f"interpolated from a rebuilt histogram); name it with --gate-metric to judge "
                f"it anyway")
    if not trial_values(series, metric):
        return (f"the run has no {metric}, which its baseline has"
                if other is not None and trial_values(other, metric) else None)
    if not reliable(series, metric):
        return (f"too few samples beyond p{TAIL_PERCENTILES[metric]:g} in a trial for its "
                f"{metric} to be judged")
    return None


def not_compared(run: Run, baseline: Run, judged: Collection[tuple[str, str]],
                 gate: Collection[str], skipped: Collection[tuple[str, str]],
                 by_history: bool) -> list[dict[str, Any]]:
    """A `not-compared` reason for each gated metric of the run's series the gate could not
    judge on the run's side (`why_not`), for each series it judged nothing of for want of a
    counterpart (new to the baseline or to its history), and for each series of the baseline
    the run no longer has."""
    reasons = []
    theirs = {s.label_key: s for s in baseline.series}
    compared = {key for key, _ in judged}
    for series in run.series:
        causes = {metric: cause for metric in gate
                  if (series.label_key, metric) not in judged
                  and (cause := why_not(series, metric, skipped,
                                        theirs.get(series.label_key))) is not None}
        reasons += [_reason(series.labels, metric, cause) for metric, cause in causes.items()]
        if series.label_key in compared or causes:
            continue
        if by_history:
            why = "its history holds no runs of it with these gated metrics to judge it by"
        elif series.label_key not in theirs:
            why = f"the baseline, run {baseline.id}, has no series with these labels"
        else:
            why = (f"the baseline, run {baseline.id}, has none of its gated metrics "
                   f"({', '.join(gate)}) to compare with")
        reasons.append(_reason(series.labels, "", f"new: {why}"))
    ours = {s.label_key for s in run.series}
    reasons += [_reason(other.labels, "", f"vanished: the baseline, run {baseline.id}, has "
                        f"this series and this run does not")
                for key, other in theirs.items() if key not in ours]
    return reasons


def failures(run: Run, limits: Thresholds) -> list[dict[str, Any]]:
    """An `errors` reason (fails the run) for each series whose harness counted more failed
    operations than `limits.max_error_rate` allows, unless the submission expects errors;
    a `failures` reason (a warning) for each other series with failures."""
    reasons = []
    for series in run.series:
        counted = series.failures
        if not counted:
            continue
        failed, total = counted["failed"], counted["total"]
        rate = 1.0 if not total else failed / total
        of = f"{failed:,} of {total:,} operations" if total else (
            f"{failed:,} operations (of an unknown number)")
        over = rate > limits.max_error_rate
        if run.errors_expected:
            verdict, kind = "the submission expects errors: not judged", "failures"
        elif over:
            verdict, kind = (f"more than the project allows ({100 * limits.max_error_rate:g} "
                             f"%, max_error_rate): the run fails"), "errors"
        else:
            verdict, kind = (f"within the project's {100 * limits.max_error_rate:g} % "
                             f"(max_error_rate)"), "failures"
        trials = f"{counted['trials']} trial{'s' if counted['trials'] != 1 else ''}"
        reasons.append({**_reason(series.labels, "errors", (
            f"{of} failed ({100 * rate:.3g} %) in {trials}: {counted['detail']}; {verdict}"),
            kind), "value": rate})
    return reasons


def _reason(labels: dict[str, Any], metric: str, message: str,
            kind: str = "not-compared") -> dict[str, Any]:
    return {"kind": kind, "series": labels, "metric": metric, "message": message}
