"""Is a change real? Per-trial values of one metric in two runs, compared with a two-sided
Mann-Whitney U test and a minimum effect size (a confirmation, which asks only whether the
candidate is worse, tests one-sided: `worse_p`). Raw samples of two runs are never pooled:
within a run they are correlated (same process, same host state), so pooling calls run-to-run
noise a regression.

A verdict needs a test that can decide: with n and m trials the exact test's smallest
two-sided p is 2 / C(n+m, n) (0.1 for 3 vs 3, 0.029 for 4 vs 4, 0.008 for 5 vs 5), so with
too few trials for the level asked the verdict is `inconclusive` and says how many trials a
tested verdict needs, never `regressed`. The CI gate (`analysis.gate`) asks for a stricter
level per metric (Holm's correction over every metric it judges in a run).

The p-value is Mann-Whitney's as scipy defines it: exact and conditional on ties by
enumerating every split of the pooled trials (scipy's `permutation_test` with the U
statistic, two-sided = twice the smaller tail), or scipy's tie-corrected normal approximation
for large samples; a test compares both on random tied samples.
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
from scipy.special import stdtr
from scipy.stats import bootstrap, chi2, mannwhitneyu, norm
from scipy.stats import t as student

from latlab_contract.vocabulary import Direction

Verdict = Literal["improved", "regressed", "unchanged", "inconclusive"]
Confidence = Literal["high", "low"]
Alternative = Literal["two-sided", "greater", "less"]

ALPHA = 0.05
MIN_EFFECT = 0.05
_EXACT_MAX_SPLITS = 20_000  # enumerate every split of the pooled trials up to this many


@dataclass(frozen=True)
class Comparison:
    baseline: float  # median of the baseline's trial values
    candidate: float  # median of the candidate's trial values
    delta: float
    delta_pct: float | None  # None when the baseline is 0
    verdict: Verdict
    confidence: Confidence  # low: too few trials for a test at the level asked
    p_value: float | None
    method: str  # "mann-whitney"
    reason: str  # reads after the metric's name: "rose 30.2 % (p = 0.0079, 5 vs 5 trials)"
    # The trials' spread: their standard deviation (pooled over both runs) over the
    # baseline's median; None with a single trial on a side or a zero baseline.
    spread: float | None = None

    @property
    def effect(self) -> float:
        """The relative change of the medians (+0.1 = 10 % higher)."""
        return relative_change(self.baseline, self.candidate)

    def is_worse(self, direction: Direction) -> bool:
        """Whether the change goes the bad way for a metric with this direction."""
        if direction == "none":
            return False
        return self.effect > 0 if direction == "lower" else self.effect < 0


def compare(baseline: Sequence[float], candidate: Sequence[float], direction: Direction, *,
            min_effect: float = MIN_EFFECT, alpha: float = ALPHA) -> Comparison:
    """Compares one metric's per-trial values of two runs: medians, and a test across them."""
    if not baseline or not candidate:
        raise ValueError("compare needs at least one trial value on each side")
    before, after = float(statistics.median(baseline)), float(statistics.median(candidate))
    effect = relative_change(before, after)
    delta_pct = None if before == 0 else 100.0 * effect
    big = abs(effect) >= min_effect
    method = "mann-whitney"
    p_value = mann_whitney_p(baseline, candidate)
    decidable = can_decide(len(baseline), len(candidate), alpha)
    if not decidable and few_trials_testable(baseline, candidate):
        # Mann-Whitney cannot reach `alpha` with so few trials; Welch's t on the logs can
        # when the trials spread little (a 2x change at 3 trials a side).
        method, p_value, decidable = "welch-t-log", welch_log_p(baseline, candidate), True
    counts = f"{len(baseline)} vs {len(candidate)} trials"
    evidence = f"p = {p_value:.2g}" + (", Welch's t on logs" if method != "mann-whitney"
                                       else "") + f", {counts}"

    def result(verdict: Verdict, confidence: Confidence, note: str = "") -> Comparison:
        change = describe_change(delta_pct, after - before)
        return Comparison(before, after, after - before, delta_pct, verdict, confidence,
                          p_value, method, f"{change} ({evidence}{note})",
                          _spread(baseline, candidate, before, after))

    if not decidable:
        needed = trials_needed(alpha)
        note = (f": too few trials to reach p <= {alpha:.2g}; a tested verdict needs "
                f"{needed} a side")
        return result("inconclusive" if big else "unchanged", "low", note)
    if p_value <= alpha and big:
        if direction == "none":
            return result("inconclusive", "high", "; this metric has no better direction")
        return result(_direction_verdict(effect, direction), "high")
    if big:
        return result("inconclusive", "high", ": the trials overlap too much to call it")
    if p_value <= alpha:
        return result("unchanged", "high",
                      f": real but under the {100 * min_effect:.0f} % minimum effect")
    return result("unchanged", "high")


def few_trials_testable(baseline: Sequence[float], candidate: Sequence[float]) -> bool:
    """Whether Welch's t on log values can stand in for Mann-Whitney: 2 to 4 trials a side
    (from 5 a side Mann-Whitney decides), all positive, not all equal within a side."""
    return (all(2 <= len(side) <= 4 for side in (baseline, candidate))
            and all(v > 0 for v in (*baseline, *candidate))
            and any(len(set(side)) > 1 for side in (baseline, candidate)))


def welch_log_p(baseline: Sequence[float], candidate: Sequence[float],
                alternative: Alternative = "two-sided") -> float:
    """Welch's t-test on the log values (benchmark noise is about symmetric in logs),
    `alternative` as scipy's ("greater": the candidate's values tend to be larger)."""
    before, after = np.log(np.asarray(baseline)), np.log(np.asarray(candidate))
    va, vb = before.var(ddof=1) / len(before), after.var(ddof=1) / len(after)
    if va + vb == 0:
        return 1.0 if after.mean() == before.mean() else 0.0
    score = (after.mean() - before.mean()) / math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va ** 2 / (len(before) - 1) + vb ** 2 / (len(after) - 1))
    # scipy's Student t CDF as the bare ufunc (`t.cdf` costs 20x more in argument checks).
    if alternative == "greater":
        return float(stdtr(df, -score))
    if alternative == "less":
        return float(stdtr(df, score))
    return float(min(1.0, 2 * stdtr(df, -abs(score))))


def rules_out(baseline: Sequence[float], candidate: Sequence[float], direction: Direction,
              effect: float, alpha: float = ALPHA) -> bool:
    """Whether the trials rule out a change of `effect` (relative) the bad way: the
    candidate's values moved back by that much are still better than the baseline's, by the
    one-sided Mann-Whitney test at `alpha`."""
    if direction == "none":
        return True
    alternative: Alternative
    if direction == "lower":
        moved, alternative = [v / (1 + effect) for v in candidate], "less"
    else:
        moved, alternative = [v / (1 - effect) for v in candidate], "greater"
    return mann_whitney_p(baseline, moved, alternative) <= alpha


def worse_p(baseline: Sequence[float], candidate: Sequence[float],
            direction: Direction) -> float:
    """The one-sided Mann-Whitney p-value of "the candidate is worse" (1 for a metric with
    no better direction)."""
    if direction == "none":
        return 1.0
    return mann_whitney_p(baseline, candidate, "greater" if direction == "lower" else "less")


def smallest_p(n: int, m: int, sides: int = 2) -> float:
    """The smallest p the exact test can give with n and m trials (no ties)."""
    return min(1.0, sides / math.comb(n + m, n))


def can_decide(n: int, m: int, alpha: float) -> bool:
    return smallest_p(n, m) <= alpha


def trials_needed(alpha: float, sides: int = 2) -> int:
    """Trials a side for the exact test to be able to reach `alpha`."""
    n = 2
    while smallest_p(n, n, sides) > alpha:
        n += 1
    return n


def trials_to_detect(spread: float, effect: float, alpha: float, power: float = 0.8,
                     sides: int = 2) -> int:
    """Trials a side for the test to find a relative shift `effect` of the median with
    probability `power` at level `alpha`, when trials spread by `spread` (relative standard
    deviation): the normal approximation, n = 2 (z(1 - alpha/sides) + z(power))^2 (spread /
    effect)^2, divided by Mann-Whitney's efficiency against the t-test on normal data (3/pi)."""
    z = float(norm.ppf(1 - alpha / sides) + norm.ppf(power))
    return max(2, math.ceil(2 * (z * spread / effect) ** 2 / (3 / math.pi)))


def detectable_change(spread: float, trials: int, alpha: float, power: float = 0.8,
                      sides: int = 2) -> float:
    """The smallest relative shift of the median the test finds with probability `power` at
    level `alpha` from `trials` trials a side that spread by `spread`: `trials_to_detect`
    solved for the effect, with Student's t quantiles (2 trials - 2 degrees of freedom) for
    the normal's. With the normal's, 2,000 simulated jobs of 10 trials a side found the shift
    it stated 70 % of the time, not 80 %: few trials see less than the asymptote says."""
    degrees = 2 * trials - 2
    z = float(student.ppf(1 - alpha / sides, degrees) + student.ppf(power, degrees))
    return z * spread * math.sqrt(2 / (trials * 3 / math.pi))


def change_interval(baseline: Sequence[float], candidate: Sequence[float],
                    confidence: float = 0.95) -> tuple[float, float] | None:
    """A `confidence` interval of the relative change of the median (+0.1: 10 % higher): a
    percentile bootstrap of both sides' trials (scipy's, seeded, so the same trials give the
    same interval); None with fewer than two trials a side or a zero baseline median."""
    if len(baseline) < 2 or len(candidate) < 2 or statistics.median(baseline) == 0:
        return None

    def change(before: npt.NDArray[np.float64], after: npt.NDArray[np.float64],
               axis: int = -1) -> npt.NDArray[np.float64]:
        low = np.median(before, axis=axis)
        return np.asarray((np.median(after, axis=axis) - low) / np.abs(low))

    found = bootstrap((np.asarray(baseline, float), np.asarray(candidate, float)), change,
                      confidence_level=confidence, n_resamples=2000, method="percentile",
                      vectorized=True, random_state=np.random.default_rng(0))
    return float(found.confidence_interval.low), float(found.confidence_interval.high)


def median_interval(values: Sequence[float],
                    confidence: float = 0.95) -> tuple[float, float] | None:
    """A `confidence` interval of the median of one series' trials: a percentile bootstrap
    (scipy's, seeded, as `change_interval`); None with fewer than two trials."""
    if len(values) < 2:
        return None
    found = bootstrap((np.asarray(values, float),), np.median, confidence_level=confidence,
                      n_resamples=2000, method="percentile", vectorized=True,
                      random_state=np.random.default_rng(0))
    return float(found.confidence_interval.low), float(found.confidence_interval.high)


def spread_bound(spread: float, df: int, confidence: float) -> float:
    """An upper confidence bound of a spread estimated with `df` degrees of freedom: the
    chi-square bound of a normal sample's standard deviation. Ten trials estimate a spread
    loosely (the bound at 80 % is 1.32 times the estimate)."""
    return spread * math.sqrt(df / float(chi2.ppf(1 - confidence, df)))


def mann_whitney_p(baseline: Sequence[float], candidate: Sequence[float],
                   alternative: Alternative = "two-sided") -> float:
    """Mann-Whitney U p-value; `alternative` as scipy's ("greater": the candidate's values
    tend to be larger). Exact and conditional on ties: every split of the pooled trials'
    mid-ranks into two groups of these sizes is enumerated and the p-value is a tail, or
    twice the smaller tail (scipy's permutation test of U); scipy's tie-corrected normal
    approximation beyond `_EXACT_MAX_SPLITS` splits."""
    pooled = np.asarray([*candidate, *baseline], dtype=np.float64)
    if np.all(pooled == pooled[0]):
        return 1.0  # every trial equal: nothing to rank
    size = len(candidate)
    if math.comb(len(pooled), size) > _EXACT_MAX_SPLITS:
        outcome = mannwhitneyu(candidate, baseline, alternative=alternative,
                               method="asymptotic")
        return min(1.0, float(outcome.pvalue))
    ranks = _midranks(pooled)
    rank_sums = ranks[_splits(len(pooled), size)].sum(axis=1)
    observed = ranks[:size].sum()
    tolerance = 1e-9 * max(1.0, abs(observed))
    greater = np.count_nonzero(rank_sums >= observed - tolerance) / len(rank_sums)
    less = np.count_nonzero(rank_sums <= observed + tolerance) / len(rank_sums)
    if alternative == "greater":
        return greater
    if alternative == "less":
        return less
    return min(1.0, 2.0 * min(greater, less))


def _midranks(values: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Ranks from 1, ties sharing their mean rank (scipy's `rankdata`, method "average",
    without its array-API wrapping, which costs more than a few trials' ranking)."""
    order = np.argsort(values, kind="mergesort")
    ordered = values[order]
    starts = np.concatenate(([True], ordered[1:] != ordered[:-1]))
    group = np.cumsum(starts) - 1  # each sorted value's group of equal values
    edges = np.concatenate((np.flatnonzero(starts), [len(values)]))
    ranks = np.empty(len(values))
    ranks[order] = (edges[group] + edges[group + 1] + 1) / 2.0
    return ranks


@lru_cache(maxsize=64)
def _splits(total: int, size: int) -> npt.NDArray[np.intp]:
    """Every choice of `size` positions out of `total`, one per row."""
    return np.array(list(itertools.combinations(range(total), size)), dtype=np.intp)


def _spread(baseline: Sequence[float], candidate: Sequence[float], before: float,
            after: float) -> float | None:
    """How widely a trial's value spreads around its side's level, relative to it: the pooled
    standard deviation of each side's values over its own median. Benchmark noise scales
    with the level, so a side 8x slower spreads 8x wider in absolute terms but not relatively;
    pooled around the baseline's median, a large change would read as large noise (and its
    confirmation be sized at the most trials)."""
    if len(baseline) < 2 or len(candidate) < 2 or before == 0 or after == 0:
        return None
    # Sums of squares in floats (`statistics.variance` is exact, in fractions, and slow).
    squares = sum(float(np.sum((scaled - scaled.mean()) ** 2)) for scaled in (
        np.asarray(baseline, dtype=np.float64) / abs(before),
        np.asarray(candidate, dtype=np.float64) / abs(after)))
    return math.sqrt(squares / (len(baseline) + len(candidate) - 2))


def _direction_verdict(effect: float, direction: Direction) -> Verdict:
    return "regressed" if (effect > 0) == (direction == "lower") else "improved"


def relative_change(before: float, after: float) -> float:
    """`after` relative to `before` (+0.1 = 10 % higher; infinite from a zero to a non-zero)."""
    if before == 0:
        return 0.0 if after == 0 else math.copysign(math.inf, after)
    return (after - before) / abs(before)


def describe_change(delta_pct: float | None, delta: float) -> str:
    if delta_pct is None:
        return "no change from zero" if delta == 0 else f"changed by {delta:+.4g} from zero"
    if abs(delta_pct) < 0.05:
        return "no change"
    return f"{'rose' if delta_pct > 0 else 'fell'} {abs(delta_pct):.1f} %"
