"""Is a change real? Trial-level values of two runs, compared with Mann-Whitney U and a
minimum effect size; with fewer than 3 trials a side, a threshold verdict marked low
confidence. Raw samples of two runs are never pooled: that calls run-to-run noise a
regression."""

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from scipy.stats import mannwhitneyu

Direction = Literal["lower", "higher", "none"]
Verdict = Literal["improved", "regressed", "unchanged", "inconclusive"]
MIN_TRIALS = 3


@dataclass(frozen=True)
class Comparison:
    baseline: float
    candidate: float
    delta: float
    delta_pct: float | None
    verdict: Verdict
    confidence: Literal["high", "low"]
    p_value: float | None
    method: str
    reason: str


def compare(baseline: Sequence[float], candidate: Sequence[float], direction: Direction, *,
            min_effect: float = 0.05, alpha: float = 0.05) -> Comparison:
    """Compares one metric's per-trial values of two runs (medians, and a test across them).

    With 3 or 4 trials on a side the exact two-sided test cannot reach 0.05 (its smallest p is
    0.1 for 3 vs 3), so there a p up to 0.1 counts when the effect is at least twice the
    minimum, and the verdict is marked low confidence.
    """
    before, after = float(statistics.median(baseline)), float(statistics.median(candidate))
    delta = after - before
    effect = _relative(before, after)
    delta_pct = None if before == 0 else 100.0 * effect
    big = abs(effect) >= min_effect
    worse = (effect > 0) if direction == "lower" else (effect < 0)
    change = _describe(delta_pct, delta)
    if min(len(baseline), len(candidate)) < MIN_TRIALS:
        verdict: Verdict = "unchanged" if not big or direction == "none" else (
            "regressed" if worse else "improved")
        return Comparison(before, after, delta, delta_pct, verdict, "low", None, "threshold",
                          f"{change} ({len(baseline)} vs {len(candidate)} trials: too few for a "
                          f"test, judged on a {100 * min_effect:.0f} % threshold)")
    if set(baseline) == set(candidate) and len(set(baseline)) == 1:
        p_value = 1.0
    else:
        p_value = float(mannwhitneyu(candidate, baseline, alternative="two-sided").pvalue)
    few = min(len(baseline), len(candidate)) < 5
    significant = p_value <= alpha or (few and p_value <= 0.1 and abs(effect) >= 2 * min_effect)
    confidence: Literal["high", "low"] = "high" if p_value <= alpha else "low"
    if direction == "none":
        verdict = "inconclusive" if significant and big else "unchanged"
    elif significant and big:
        verdict = "regressed" if worse else "improved"
    elif big:
        verdict = "inconclusive"
    else:
        verdict = "unchanged"
    evidence = f"p = {p_value:.3g}, {len(baseline)} vs {len(candidate)} trials"
    if verdict == "inconclusive" and not significant:
        evidence += ": the trials overlap too much to call it"
    elif verdict == "unchanged" and significant:
        evidence += f": real but under the {100 * min_effect:.0f} % minimum effect"
    return Comparison(before, after, delta, delta_pct, verdict, confidence, p_value,
                      "mann-whitney", f"{change} ({evidence})")


def tail_reliable(count: int, percentile: float, min_beyond: int = 10) -> bool:
    """Whether at least `min_beyond` samples lie beyond the percentile (P99.9 of 5,000
    samples rests on 5 values: not a number to trust)."""
    return count * (1.0 - percentile / 100.0) >= min_beyond - 1e-9


def _relative(before: float, after: float) -> float:
    if before == 0:
        return 0.0 if after == 0 else math.copysign(math.inf, after)
    return (after - before) / abs(before)


def _describe(delta_pct: float | None, delta: float) -> str:
    if delta_pct is None:
        return f"changed by {delta:+.4g} from zero"
    if abs(delta_pct) < 0.05:
        return "no change"
    return f"{'rose' if delta_pct > 0 else 'fell'} {abs(delta_pct):.1f} %"
