"""The CI gate: a run judged against its baseline on the metrics its suite names (`gate` in
suite.toml; p99 and throughput by default), every series at once.

- Holm's correction runs over every metric the gate judges in the run (series x metrics), so
  judging more of them does not make a false failure more likely: with the lab's defaults the
  chance that an unchanged run fails stays under `ALPHA`.
- With too few trials for the corrected level the verdict is `inconclusive`, and says how many
  trials a tested verdict needs; it never fails.
- A tested regression from fewer than `CONFIRM_TRIALS` candidate trials is a suspicion: a CI
  submission (which the lab cannot re-run) is `inconclusive` and told how many trials would
  settle it. Only a regression measured with enough trials fails the gate.
- A lab job that can be measured again (`confirmable`) is suspected unless its trials rule
  out a change for the worse of `CONFIRM_OVER_MIN` times the minimum effect (7.5 % at the
  default 5 %) of the gate metric (`stats.rules_out`). Five trials cannot test a 10 %
  slowdown of a noisy benchmark (trials of http-order `large` spread by 10-25 % on a 2-core
  VM), nor tell it apart from noise by its sign: a slowed candidate looked better than its
  baseline on both gate metrics in 5 of 20 pairs. So the test is left to the confirmation,
  sized to find that change (`confirmation_trials`);
  the confirmation, measuring both versions side by side, is what keeps identical code from
  being called a regression. It asks only whether the candidate is worse, so it tests
  one-sided (`confirming`), with the same correction. A quiet benchmark's trials rule the
  slowdown out and are not measured again; a noisy one's are, which is what finding a
  slowdown in its noise costs.
"""

import dataclasses
import statistics
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any, Literal

from latlab.analysis import thresholds
from latlab.analysis.baselines import HistoryRun
from latlab.analysis.compare import MetricComparison, RunComparison
from latlab.analysis.stats import (
    ALPHA,
    MIN_EFFECT,
    Comparison,
    describe_change,
    rules_out,
    smallest_p,
    spread_bound,
    trials_needed,
    trials_to_detect,
    worse_p,
)
from latlab.analysis.thresholds import Thresholds
from latlab.analysis.window import WindowStats, WindowTest, bound, smallest_change, window_test
from latlab.runs.keys import label_key
from latlab_contract.vocabulary import Direction, MetricInfo, quantity

CONFIRM_TRIALS = 10  # the fewest candidate trials a regression fails the gate on
# A confirmation is sized to find a slowdown of this many times the minimum effect four times
# in five (7.5 % at the default 5 %: one of exactly the minimum effect would be measured
# under it half the time), with at most MAX_CONFIRM_TRIALS a side (enough for trials that
# spread by 20 % at the default).
CONFIRM_OVER_MIN = 1.5
CONFIRM_POWER = 0.8
# ... given a spread as large as the suspected run's trials allow at this confidence (its
# 5 + 5 trials estimate it loosely: sized from the estimate itself, a confirmation of 15
# trials a side missed a 28 % slowdown whose first trials had spread little).
SPREAD_CONFIDENCE = 0.8
MAX_CONFIRM_TRIALS = 150
RunVerdict = Literal["pass", "fail", "inconclusive", "no-baseline"]


@dataclass(frozen=True)
class Judged:
    """One gate metric of one series, after the correction."""

    labels: dict[str, Any]
    metric: MetricComparison
    p_value: float  # the p-value the gate tested: two-sided, or one-sided in a confirmation
    level: float  # the p-value it had to reach (Holm)
    outcome: Literal["regressed", "suspected", "improved", "untested", "unchanged"]


@dataclass
class GateResult:
    verdict: RunVerdict
    judged: list[Judged] = field(default_factory=list)
    reasons: list[dict[str, Any]] = field(default_factory=list)
    # Per judged metric against a window: the window, the value, its bound, p and the
    # smallest change the window lets the gate see (empty for a run-by-run comparison).
    evidence: list[dict[str, Any]] = field(default_factory=list)
    min_effect: float = MIN_EFFECT  # the smallest change that could fail

    @property
    def regressed(self) -> list[Judged]:
        return [j for j in self.judged if j.outcome == "regressed"]

    @property
    def suspected(self) -> list[Judged]:
        return [j for j in self.judged if j.outcome == "suspected"]


def judge(comparison: RunComparison | None, gate: tuple[str, ...], *,
          confirm_trials: int = CONFIRM_TRIALS, confirmable: bool = False,
          confirming: bool = False, alpha: float = ALPHA,
          min_effect: float = MIN_EFFECT, reach: bool = False,
          skip: Collection[tuple[str, str]] = ()) -> GateResult:
    """The gate's verdict on a comparison (None: the run has no baseline). `confirmable`: the
    lab will measure a suspicion again, so any gate metric whose trials do not rule out a
    change for the worse of `CONFIRM_OVER_MIN` x `min_effect` is one. `confirming`: this is
    that measurement, which asks one question, whether the candidate is worse, so its p-values
    are one-sided (the chance that identical code confirms stays under `alpha`). `reach`: a
    tested change counts as large when its trials do not rule out a change of `min_effect`
    its way (a try job's rule), rather than when its median moved that much: a change of
    exactly the minimum effect is then found as often as the trials' power allows, not half
    the time. `skip`: the
    (label key, metric) pairs not to judge (a statistic the harness did not print)."""
    if comparison is None:
        return GateResult("no-baseline")
    candidates = [(series.labels, m) for series in comparison.series for m in series.metrics
                  if m.metric in gate and m.reliable
                  and (label_key(series.labels), m.metric) not in skip]
    p_values = [worse_p(m.baseline_values, m.candidate_values, m.direction) if confirming
                else m.comparison.p_value or 1.0 for _, m in candidates]
    levels = _holm_levels(p_values, alpha)
    sides = 1 if confirming else 2
    judged = [Judged(labels, m, p, level,
                     _outcome(m, level, passed, confirm_trials, confirmable, min_effect, sides,
                              reach))
              for (labels, m), p, (level, passed) in zip(candidates, p_values, levels,
                                                         strict=True)]
    reasons = [_reason(j, len(candidates), alpha, confirm_trials, confirmable, sides,
                       min_effect)
               for j in judged if j.outcome in ("regressed", "suspected", "untested")]
    if any(j.outcome == "regressed" for j in judged):
        verdict: RunVerdict = "fail"
    elif reasons:
        verdict = "inconclusive"
    else:
        verdict = "pass"
    return GateResult(verdict, judged, reasons, min_effect=min_effect)


def _holm_levels(p_values: list[float], alpha: float) -> list[tuple[float, bool]]:
    """Holm's step-down: the i-th smallest p is tested at alpha / (k - i) until one fails.
    Returns each p-value's level and whether it passed."""
    k = len(p_values)
    order = sorted(range(k), key=lambda i: p_values[i])
    result: list[tuple[float, bool]] = [(alpha / k if k else alpha, False)] * k
    still = True
    for step, index in enumerate(order):
        level = alpha / (k - step)
        still = still and p_values[index] <= level
        result[index] = (level, still)
    return result


def confirmation_trials(result: GateResult) -> int:
    """Trials a side for the confirmation of a run's suspicions: enough for its one-sided test
    to find a slowdown of `CONFIRM_OVER_MIN` x the verdict's minimum effect in each suspected
    metric at Holm's strictest level over the metrics judged, given how widely its trials may
    spread (`SPREAD_CONFIDENCE`)."""
    level = min((j.level for j in result.judged), default=ALPHA)
    needed = [trials_to_detect(
        spread_bound(spread, j.metric.baseline_trials + j.metric.candidate_trials - 2,
                     SPREAD_CONFIDENCE), CONFIRM_OVER_MIN * result.min_effect, level,
        CONFIRM_POWER, sides=1)
        for j in result.suspected if (spread := j.metric.comparison.spread) is not None]
    return min(MAX_CONFIRM_TRIALS, max([CONFIRM_TRIALS, *needed]))


def _outcome(item: MetricComparison, level: float, passed: bool, confirm_trials: int,
             confirmable: bool, min_effect: float, sides: int, reach: bool = False
             ) -> Literal["regressed", "suspected", "improved", "untested", "unchanged"]:
    comparison = item.comparison
    worse = comparison.is_worse(item.direction)
    big = abs(comparison.effect) >= min_effect
    if reach and passed and item.direction != "none":
        way = item.direction if worse else _OTHER_WAY[item.direction]
        big = not rules_out(item.baseline_values, item.candidate_values, way, min_effect)
    enough = item.candidate_trials >= confirm_trials
    regression = worse and passed and big and enough
    if confirmable and not regression and (worse or not rules_out(
            item.baseline_values, item.candidate_values, item.direction,
            CONFIRM_OVER_MIN * min_effect)):
        return "suspected"
    few = comparison.method != "mann-whitney" or smallest_p(
        item.baseline_trials, item.candidate_trials, sides) > level
    if few and not passed:
        # 2-4 trials a side: a large change the bad way that their spread leaves unsettled
        # is not a pass.
        return "untested" if big and worse else "unchanged"
    if not (passed and big) or item.direction == "none":
        return "unchanged"
    if not enough:
        # A large improvement from a few trials alerts no one either (it would be a warning
        # that the benchmark may be broken).
        return "unchanged" if not worse else "suspected"
    return "improved" if not worse else "regressed"


_OTHER_WAY: dict[str, Direction] = {"lower": "higher", "higher": "lower"}


def _reason(judged: Judged, count: int, alpha: float, confirm_trials: int,
            confirmable: bool, sides: int, min_effect: float) -> dict[str, Any]:
    item = judged.metric.comparison
    change = item.reason.split(" (")[0]
    counts = f"{judged.metric.baseline_trials} vs {judged.metric.candidate_trials} trials"
    p = f"p = {judged.p_value:.2g}" + (" one-sided" if sides == 1 else "")
    if judged.outcome == "untested":
        needed = trials_needed(judged.level, sides)
        if item.method == "mann-whitney":
            message = (f"{change}, but {counts} cannot reach p <= {judged.level:.2g} (Holm "
                       f"over the {count} gated metrics at {alpha:g}); a tested verdict needs "
                       f"{needed} trials a side")
        else:
            message = (f"{change}, but {counts} spread too widely to settle it ({p} > "
                       f"{judged.level:.2g}, Welch's t on logs; Holm over the {count} gated "
                       f"metrics at {alpha:g}); {needed} trials a side would")
        kind = "too-few-trials"
    elif judged.outcome == "suspected":
        # A lab job's suspicion is measured again (the caller says how); a CI run's is told
        # what a failing verdict takes.
        worse = item.is_worse(judged.metric.direction)
        tested = worse and judged.p_value <= judged.level
        evidence = p + (f" <= {judged.level:.2g}" if tested else "")
        doubt = "" if tested else (
            f"too few trials to rule out a {100 * CONFIRM_OVER_MIN * min_effect:g} % change "
            f"for the worse; ")
        message = f"{change} ({evidence}, {counts}): {doubt}a suspected regression" + (
            "" if confirmable else f"; confirming it takes {confirm_trials} candidate trials")
        kind = "suspected-regression"
    else:
        message = f"{change} ({p} <= {judged.level:.2g}, {counts})"
        kind = "regression"
    return {"kind": kind, "series": judged.labels, "metric": judged.metric.metric,
            "message": message, "baseline": item.baseline, "candidate": item.candidate,
            "p_value": judged.p_value}


# The gate against a window of history (`analysis.window`): CI runs of one trial can fail.
DETECTION_TRIALS = (1, 3, 5)  # the smallest change is given for these candidate trials


@dataclass(frozen=True)
class Window:
    """What a series' metric is judged against: its history's runs, on a branch."""

    branch: str
    runs: list[HistoryRun]
    stats: WindowStats


def judge_window(candidates: list[tuple[dict[str, Any], MetricInfo, tuple[float, ...]]],
                 windows: list[Window], limits: Thresholds = thresholds.DEFAULT
                 ) -> GateResult:
    """The gate's verdict from each gated series' metric against its window (the same order
    as `candidates`: the series' labels, the metric, its trial values). One-sided: is the
    candidate worse than its history lets a run be? Holm's correction over every metric
    judged keeps an unchanged run's chance to fail under `limits.false_alarm`; a regression
    fails at any number of trials, and must be at least `limits.min_effect` large. With the
    `percentage` test, a candidate fails past `limits.percentage` worse, whatever the
    spread."""
    normal = limits.test == "z"
    tests = [window_test(w.stats, values, info.direction, normal)
             for (_, info, values), w in zip(candidates, windows, strict=True)]
    if limits.test == "percentage":
        # Not a test: the threshold decides, and p says which side of it the value fell.
        tests = [dataclasses.replace(t, p_worse=0.0 if _worse(t, info) and abs(t.effect) >= (
            limits.percentage) else 1.0) for t, (_, info, _) in zip(tests, candidates,
                                                                   strict=True)]
    levels = _holm_levels([t.p_worse for t in tests], limits.false_alarm)
    strictest = limits.false_alarm / len(tests) if tests else limits.false_alarm
    judged, reasons, evidence = [], [], []
    for (labels, info, values), window, test, (level, passed) in zip(
            candidates, windows, tests, levels, strict=True):
        worse = _worse(test, info)
        big = abs(test.effect) >= limits.min_effect
        outcome: Literal["regressed", "improved", "unchanged"] = "unchanged"
        if info.direction != "none" and big and worse and passed:
            outcome = "regressed"
        elif info.direction != "none" and big and not worse and test.p_better <= level:
            outcome = "improved"
        if limits.test == "percentage":
            smallest = {str(k): max(limits.min_effect, limits.percentage)
                        for k in DETECTION_TRIALS}
            centre, sign = window.stats.centre, 1 if info.direction != "higher" else -1
            edge = centre * (1 + sign * max(limits.min_effect, limits.percentage))
        else:
            smallest = {str(k): max(limits.min_effect, smallest_change(
                window.stats, k, strictest, direction=info.direction, normal=normal))
                for k in DETECTION_TRIALS}
            edge = bound(window.stats, len(values), level, info.direction, normal)
        described = _window_evidence(labels, info, window, test, level, edge, smallest,
                                     outcome)
        evidence.append(described)
        item = MetricComparison(
            metric=info.name, label=info.label, unit=info.unit, direction=info.direction,
            comparison=Comparison(
                baseline=window.stats.centre, candidate=test.value,
                delta=test.value - window.stats.centre, delta_pct=100 * test.effect,
                verdict="regressed" if outcome == "regressed" else "improved"
                if outcome == "improved" else "unchanged",
                confidence="high", p_value=test.p_worse, method=f"window-{limits.test}",
                reason=described["message"], spread=window.stats.spread),
            baseline_values=tuple(statistics.median(r.values) for r in window.runs),
            candidate_values=values)
        judged.append(Judged(labels, item, test.p_worse, level, outcome))
        if outcome == "regressed":
            reasons.append({"kind": "regression", "series": labels, "metric": info.name,
                            "message": described["message"], "baseline": window.stats.centre,
                            "candidate": test.value, "p_value": test.p_worse,
                            "window": described["window"], "bound": edge,
                            "smallest_change": smallest})
    verdict: RunVerdict = "fail" if reasons else "pass"
    return GateResult(verdict, judged, reasons, evidence)


def _worse(test: WindowTest, info: MetricInfo) -> bool:
    return test.effect > 0 if info.direction == "lower" else test.effect < 0


def _window_evidence(labels: dict[str, Any], info: MetricInfo, window: Window,
                     test: WindowTest, level: float, edge: float, smallest: dict[str, float],
                     outcome: str) -> dict[str, Any]:
    first, last = window.runs[0], window.runs[-1]
    runs = (f"the window of its last {window.stats.runs} runs on {window.branch} (run "
            f"{first.run_id}{_at(first.commit)} to run {last.run_id}{_at(last.commit)}"
            + (f", {window.stats.outliers} far-off runs left out" if window.stats.outliers
               else "") + ")")
    side = "above" if info.direction != "higher" else "below"
    change = describe_change(100 * test.effect, test.value - window.stats.centre)
    shown = ", ".join(f"{100 * v:.1f} % with {k} trial{'s' if k != '1' else ''}"
                      for k, v in smallest.items())
    message = (f"{change} against {runs}: {quantity(test.value, info.unit)} with "
               f"{test.trials} trial{'s' if test.trials != 1 else ''} against a centre of "
               f"{quantity(window.stats.centre, info.unit)} (bound "
               f"{quantity(edge, info.unit)}, {side} it fails), p = {test.p_worse:.2g}"
               f"{' <=' if test.p_worse <= level else ' >'} {level:.2g}; the smallest "
               f"change the window lets the gate see: {shown}")
    return {"series": labels, "metric": info.name, "unit": info.unit, "method": "window",
            "outcome": outcome,
            "value": test.value, "trials": test.trials, "centre": window.stats.centre,
            "bound": edge, "p_value": test.p_worse, "level": level,
            "smallest_change": smallest, "message": message,
            "window": {"branch": window.branch, "runs": window.stats.runs,
                       "outliers": window.stats.outliers, "spread": window.stats.spread,
                       "first_run_id": first.run_id, "last_run_id": last.run_id,
                       "first_commit": first.commit, "last_commit": last.commit}}


def _at(commit: str | None) -> str:
    return f" @ {commit[:10]}" if commit else ""
