"""Is a change real? Per-trial values of one metric in two runs, compared with a two-sided
Mann-Whitney U test and a minimum effect size; with fewer than 3 trials a side, a threshold
verdict marked low confidence. Raw samples of two runs are never pooled: within a run they
are correlated (same process, same host state), so pooling calls run-to-run noise a
regression.

Small samples. The exact two-sided test cannot reach p = 0.05 with 3 vs 3 trials (its
smallest p is 0.1) nor with 3 vs 4 (0.057). So when a side has 3 or 4 trials, a p up to
`SMALL_SAMPLE_ALPHA` (0.1, i.e. the trials do not overlap at all) counts as evidence if the
change is at least twice the minimum effect, and such a verdict is marked low confidence.
From 5 trials a side (smallest p 0.008) the plain rule applies.
"""

import itertools
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np
import numpy.typing as npt
from scipy.stats import mannwhitneyu, rankdata

Direction = Literal["lower", "higher", "none"]
Verdict = Literal["improved", "regressed", "unchanged", "inconclusive"]
Confidence = Literal["high", "low"]

# A tail percentile needs this many samples beyond it to be a number to trust.
MIN_TAIL_SAMPLES = 10
MIN_TRIALS = 3  # below this on a side there is no test, only a threshold
FULL_TRIALS = 5  # from this on a side the exact test can reach p < 0.05
SMALL_SAMPLE_ALPHA = 0.1
SMALL_SAMPLE_EFFECT_FACTOR = 2.0
_EXACT_MAX_ARRANGEMENTS = 20_000  # enumerate every split of the pooled trials up to this


@dataclass(frozen=True)
class Comparison:
    baseline: float  # median of the baseline's trial values
    candidate: float  # median of the candidate's trial values
    delta: float
    delta_pct: float | None  # None when the baseline is 0
    verdict: Verdict
    confidence: Confidence
    p_value: float | None
    method: str  # "mann-whitney" or "threshold"
    reason: str  # reads after the metric's name: "rose 30.2 % (p = 0.0079, 5 vs 5 trials)"


def compare(baseline: Sequence[float], candidate: Sequence[float], direction: Direction, *,
            min_effect: float = 0.05, alpha: float = 0.05) -> Comparison:
    """Compares one metric's per-trial values of two runs: medians, and a test across them."""
    if not baseline or not candidate:
        raise ValueError("compare needs at least one trial value on each side")
    before, after = float(statistics.median(baseline)), float(statistics.median(candidate))
    effect = _relative_change(before, after)
    delta_pct = None if before == 0 else 100.0 * effect
    big = abs(effect) >= min_effect
    change = _describe_change(delta_pct, after - before)
    counts = f"{len(baseline)} vs {len(candidate)} trials"

    def result(verdict: Verdict, confidence: Confidence, p_value: float | None, method: str,
               evidence: str) -> Comparison:
        return Comparison(before, after, after - before, delta_pct, verdict, confidence,
                          p_value, method, f"{change} ({evidence})")

    fewest = min(len(baseline), len(candidate))
    if fewest < MIN_TRIALS:
        evidence = (f"{counts}: too few for a test, judged on the "
                    f"{100 * min_effect:.0f} % minimum effect")
        if not big:
            return result("unchanged", "low", None, "threshold", evidence)
        return result(_direction_verdict(effect, direction), "low", None, "threshold",
                      evidence + _no_direction_note(direction))

    p_value = mann_whitney_p(baseline, candidate)
    evidence = f"p = {p_value:.2g}, {counts}"
    if p_value <= alpha:
        significant, relaxed = True, False
    else:
        relaxed = (fewest < FULL_TRIALS and p_value <= max(alpha, SMALL_SAMPLE_ALPHA)
                   and abs(effect) >= SMALL_SAMPLE_EFFECT_FACTOR * min_effect)
        significant = relaxed
    if relaxed:
        evidence += (f": no trial overlaps, accepted at p <= {SMALL_SAMPLE_ALPHA:g} because "
                     f"a side has under {FULL_TRIALS} trials")
    # Weak power is what makes a few trials untrustworthy, and a decided change at
    # p <= alpha does not need power.
    weak = relaxed or (fewest < FULL_TRIALS and not (significant and big))
    confidence: Confidence = "low" if weak else "high"

    if significant and big:
        return result(_direction_verdict(effect, direction), confidence, p_value,
                      "mann-whitney", evidence + _no_direction_note(direction))
    if big:
        return result("inconclusive", confidence, p_value, "mann-whitney",
                      evidence + ": the trials overlap too much to call it")
    if significant:
        evidence += f": real but under the {100 * min_effect:.0f} % minimum effect"
    return result("unchanged", confidence, p_value, "mann-whitney", evidence)


def tail_reliable(count: int, percentile: float, min_beyond: int = MIN_TAIL_SAMPLES) -> bool:
    """Whether at least `min_beyond` samples lie beyond the percentile (P99.9 of 5,000
    samples rests on 5 values: not a number to trust)."""
    # The tolerance keeps 1,000 samples at P99 (exactly 10 beyond) from failing on rounding.
    return count * (1.0 - percentile / 100.0) >= min_beyond - 1e-9


def mann_whitney_p(baseline: Sequence[float], candidate: Sequence[float]) -> float:
    """Two-sided Mann-Whitney U p-value. Exact for small samples, ties included: every split
    of the pooled trials' mid-ranks into two groups of these sizes is enumerated (the
    conditional test); normal approximation beyond `_EXACT_MAX_ARRANGEMENTS` splits."""
    pooled = np.asarray([*candidate, *baseline], dtype=np.float64)
    if np.all(pooled == pooled[0]):
        return 1.0  # every trial equal: nothing to rank
    ranks = rankdata(pooled)
    size = len(candidate)
    if math.comb(len(pooled), size) > _EXACT_MAX_ARRANGEMENTS:
        outcome = mannwhitneyu(candidate, baseline, alternative="two-sided",
                               method="asymptotic")
        return min(1.0, float(outcome.pvalue))
    rank_sums = ranks[_splits(len(pooled), size)].sum(axis=1)
    centre = size * (len(pooled) + 1) / 2.0
    observed = abs(ranks[:size].sum() - centre)
    extreme = np.abs(rank_sums - centre) >= observed - 1e-9
    return min(1.0, float(extreme.mean()))


@lru_cache(maxsize=64)
def _splits(total: int, size: int) -> npt.NDArray[np.intp]:
    """Every choice of `size` positions out of `total`, one per row."""
    return np.array(list(itertools.combinations(range(total), size)), dtype=np.intp)


def _direction_verdict(effect: float, direction: Direction) -> Verdict:
    if direction == "none":
        return "inconclusive"  # a real change, but this metric has no better side
    worse = effect > 0 if direction == "lower" else effect < 0
    return "regressed" if worse else "improved"


def _no_direction_note(direction: Direction) -> str:
    return "; this metric has no better direction" if direction == "none" else ""


def _relative_change(before: float, after: float) -> float:
    if before == 0:
        return 0.0 if after == 0 else math.copysign(math.inf, after)
    return (after - before) / abs(before)


def _describe_change(delta_pct: float | None, delta: float) -> str:
    if delta_pct is None:
        return "no change from zero" if delta == 0 else f"changed by {delta:+.4g} from zero"
    if abs(delta_pct) < 0.05:
        return "no change"
    return f"{'rose' if delta_pct > 0 else 'fell'} {abs(delta_pct):.1f} %"
