"""A try job's verdict: its head commit against its base, both built and measured side by
side on one host (trials interleaved, `side=base|head`), on each gate metric of each series.
It is a measurement made to decide, as a confirmation is: a change that passes Holm's level
over the gated metrics and the minimum effect counts whatever the trials, and is tested
two-sided (a try asks "what did my change do?", faster included). Each metric says the
change, its 95 % interval, and the smallest change the job could have seen (from its trials'
spread), so "no change" is read with its resolution."""

from typing import Any

from latlab.analysis import gate
from latlab.analysis.compare import RunComparison
from latlab.analysis.stats import change_interval, detectable_change
from latlab.runs.keys import label_key

SIDE = "side"
BASE = {SIDE: "base"}
HEAD = {SIDE: "head"}
POWER = 0.8


def judge(comparison: RunComparison, gate_metrics: tuple[str, ...],
          min_effect: float) -> tuple[gate.RunVerdict, list[dict[str, Any]]]:
    """The verdict and one reason per judged gate metric (kind `try`, or `regression`), in
    the gate's words where its trials could not settle a change, always with the outcome,
    the interval and the smallest change the job could see."""
    result = gate.judge(comparison, gate_metrics, confirm_trials=1, min_effect=min_effect)
    if not result.judged:
        return "no-baseline", result.reasons
    doubts = {(label_key(r["series"]), r["metric"]): r for r in result.reasons
              if r["kind"] != "regression"}
    reasons = []
    for judged in result.judged:
        reason = _reason(judged)
        doubt = doubts.get((label_key(judged.labels), judged.metric.metric))
        if doubt is not None:
            reason.update(kind=doubt["kind"], message=doubt["message"])
        reasons.append(reason)
    return result.verdict, reasons


def _reason(judged: gate.Judged) -> dict[str, Any]:
    item = judged.metric
    compared = item.comparison
    interval = change_interval(item.baseline_values, item.candidate_values)
    seen = (None if compared.spread is None else detectable_change(
        compared.spread, min(item.baseline_trials, item.candidate_trials), judged.level,
        POWER))
    parts = [f"{compared.reason.split(' (')[0]} (head {_value(compared.candidate)} vs base "
             f"{_value(compared.baseline)} {item.unit}".rstrip() + ")"]
    if interval is not None:
        parts.append(f"95 % interval {100 * interval[0]:+.1f} % to {100 * interval[1]:+.1f} %")
    parts.append(f"p = {judged.p_value:.2g} against {judged.level:.2g}, "
                 f"{item.baseline_trials} vs {item.candidate_trials} trials")
    if seen is not None:
        parts.append(f"this job could see a change of {100 * seen:.1f} % or more")
    kind = "regression" if judged.outcome == "regressed" else "try"
    return {"kind": kind, "series": judged.labels, "metric": item.metric,
            "outcome": judged.outcome, "message": "; ".join(parts),
            "baseline": compared.baseline, "candidate": compared.candidate,
            "p_value": judged.p_value,
            "interval": None if interval is None else list(interval),
            "detectable": seen}


def _value(value: float) -> str:
    return f"{value:.4g}"
