"""A try job's verdict: its head commit against its base, both built and measured side by
side on one host (trials interleaved, `side=base|head`), on each gate metric of each series.
It is a measurement made to decide, as a confirmation is: a change that passes Holm's level
over the gated metrics counts whatever the trials, tested two-sided (a try asks "what did my
change do?", faster included), when its trials do not rule out a change of the minimum
effect its way (`gate.judge`'s `reach`). A rule on the medians' ratio instead (counted when
the median moved by the minimum effect) would find a change of exactly that size about half
the time however many trials were taken; bench.try's first sitting found its planted +5 %
in 3 of 5 jobs that way. Each metric says the
change, its 95 % interval, and the smallest change the job could have seen (from its trials'
spread), so "no change" is read with its resolution.

It is sequential: the job looks at its trials after its first stage and, while undecided,
measures as many again and looks again, up to `LOOKS` (1, 2, 4 and 8 times the first
stage's trials, doubling as Pinpoint does up to 160; at a trial spread of 8 %, as http-order's
p99 has on a quiet 2-core VM, a +5 % change is found about 9 times in 10 by the fourth look,
and 6 in 10 with three). Each look tests at `LOOK_ALPHA`, the lab's alpha shared
over the looks (Bonferroni), so identical commits are called changed at any look at most
`ALPHA` of the time (simulated against scipy's Mann-Whitney in tests/test_tries.py). A look
decides when a gate metric changed, or when every one of them could have shown a change of
the minimum effect and none did; stopping for that spends no alpha."""

from typing import Any

from latlab.analysis import gate
from latlab.analysis.compare import RunComparison
from latlab.analysis.stats import ALPHA, change_interval, detectable_change, smallest_p
from latlab.runs.keys import label_key

SIDE = "side"
BASE = {SIDE: "base"}
HEAD = {SIDE: "head"}
POWER = 0.8
LOOKS = (1, 2, 4, 8)  # the trials a side at each look, in first stages
LOOK_ALPHA = ALPHA / len(LOOKS)
CHANGED = ("regressed", "improved")


def judge(comparison: RunComparison, gate_metrics: tuple[str, ...],
          min_effect: float, alpha: float = LOOK_ALPHA
          ) -> tuple[gate.RunVerdict, list[dict[str, Any]]]:
    """The verdict and one reason per judged gate metric (kind `try`, or `regression`), in
    the gate's words where its trials could not settle a change, always with the outcome,
    the interval and the smallest change the job could see."""
    result = gate.judge(comparison, gate_metrics, confirm_trials=1, alpha=alpha,
                        min_effect=min_effect, reach=True)
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


def decided(reasons: list[dict[str, Any]], min_effect: float) -> bool:
    """Whether a look settles the job: a gate metric changed, or every one is unchanged and
    could have shown a change of `min_effect` (a change its trials cannot test is not)."""
    judged = [r for r in reasons if "outcome" in r]
    if any(r["outcome"] in CHANGED for r in judged):
        return True
    return bool(judged) and all(
        r["outcome"] == "unchanged" and r["detectable"] is not None
        and r["detectable"] <= min_effect for r in judged)


def _reason(judged: gate.Judged) -> dict[str, Any]:
    item = judged.metric
    compared = item.comparison
    interval = change_interval(item.baseline_values, item.candidate_values)
    # None when no change could be tested: the trials' spread, or too few of them for the
    # test to reach its level at all.
    seen = (None if compared.spread is None or smallest_p(
        item.baseline_trials, item.candidate_trials) > judged.level else detectable_change(
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
