"""A run judged against its history: a window of its series' recent comparable runs, and a
test any number of candidate trials can pass or fail.

CI submits one run per commit, often of one trial; compared with one baseline run trial by
trial, it can never be judged. Its history can: the window's runs (their values, each the
median of its trials, on a log scale, where benchmark noise is about symmetric) give a centre
and a run-to-run spread, and the candidate's value is tested against them as a new
observation from the same history would be (Student's t prediction test):

    t = (log y - mean) / sd_pred,   sd_pred^2 = between^2 + noise(k) + spread^2 / n

with `k` the candidate's trials, `n` the window's runs, `noise(k)` the variance trial noise
gives a median of k trials (read from the window's runs' own trials, when they had several)
and `between` the rest of the run-to-run spread. Trial noise is not taken as the trials'
variance over k: that is a mean's, and a p99 now and then far off (a heavy tail) makes it
several times a median's. The window's trials, each as far from its run's mean as it lay, are
resampled as k trials of a new run would be, and the median of k taken over every way to draw
them (the exact bootstrap distribution of an order statistic): a tail that is rare leaves the
median alone, a tail common enough to move the median of k is counted as often as it would.

One run far off the others (a noisy neighbour, a bad host) must not move the window, and the
window must not lose runs that are merely in its own tails (that narrows the spread, and an
unchanged run then fails more often than the test says: dropping runs beyond 3.5 robust
deviations did that, 1.7 % instead of 1 % at 10 runs): far-off runs are found by Rosner's
generalized ESD test, which at `OUTLIER_LEVEL` drops a run of one history once in a hundred
windows. The same spread says how small a change the window lets the gate see: the shift it
catches four times in five (`smallest_change`).
"""

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import binom, norm
from scipy.stats import t as student

from latlab_contract.vocabulary import Direction

MIN_WINDOW_RUNS = 5  # fewer and a run is compared run by run, as before
OUTLIER_LEVEL = 0.01  # the chance the ESD test drops any run of a window of one history
DETECTION_POWER = 0.8


@dataclass(frozen=True)
class WindowStats:
    """A window's runs on a log scale."""

    runs: int  # runs kept
    outliers: int  # runs left out as far off the others
    mean: float  # of the runs' log values
    spread: float  # their standard deviation: run-to-run, relative
    within: float  # the trial-to-trial spread inside runs (0: single-trial runs only)
    trial_counts: tuple[int, ...]  # of the runs kept
    deviations: tuple[float, ...]  # sorted: each trial's log from its run's mean (rescaled)

    @property
    def centre(self) -> float:
        """The window's typical value (the geometric mean of its runs)."""
        return math.exp(self.mean)

    @property
    def df(self) -> int:
        return self.runs - 1

    def predicted_sd(self, trials: int) -> float:
        """The spread of a new run's log value (the median of `trials` trials) around the
        window's mean."""
        counts = {k: self.trial_noise(k) for k in {*self.trial_counts, trials}}
        between = max(0.0, self.spread ** 2
                      - statistics.fmean(counts[k] for k in self.trial_counts))
        return math.sqrt(between + counts[trials] + self.spread ** 2 / self.runs)

    def trial_noise(self, trials: int) -> float:
        """The variance trial noise gives the median of `trials` trials: the median of
        `trials` draws from the window's deviations, over every way to draw them (for an even
        count, the mean of the two middle draws, its variance bounded by theirs)."""
        if not self.deviations:
            return 0.0
        middle = ((trials + 1) // 2, trials // 2 + 1)
        return (sum(math.sqrt(self._order_variance(trials, r)) for r in middle) / 2) ** 2

    def _order_variance(self, draws: int, rank: int) -> float:
        """The variance of the rank-th smallest of `draws` draws with replacement from the
        deviations: it is at most the j-th of n exactly when at least `rank` draws fall at or
        below it, a binomial chance of j / n."""
        values = np.asarray(self.deviations)
        at_most = binom.sf(rank - 1, draws, np.arange(len(values) + 1) / len(values))
        chance = np.diff(at_most)
        mean = float(chance @ values)
        return max(0.0, float(chance @ values ** 2) - mean ** 2)


@dataclass(frozen=True)
class WindowTest:
    """A candidate's value against a window."""

    value: float  # the candidate's value: the median of its trials
    effect: float  # relative change from the window's centre (+0.1: 10 % higher)
    p_worse: float  # one-sided: a value this far the bad way from the same history
    p_better: float  # one-sided, the other way
    trials: int


def window_stats(runs: Sequence[Sequence[float]]) -> WindowStats | None:
    """The window of runs given as their trial values (oldest first); None when it holds
    too few usable runs (a non-positive value has no log)."""
    usable = [list(trials) for trials in runs
              if trials and all(v > 0 and math.isfinite(v) for v in trials)]
    if len(usable) < MIN_WINDOW_RUNS or len(usable) < len(runs):
        return None
    logs = [math.log(statistics.median(trials)) for trials in usable]
    far = far_off(logs)
    kept = [i for i in range(len(logs)) if i not in far]
    values = [logs[i] for i in kept]
    within_df = sum(len(usable[i]) - 1 for i in kept)
    within = math.sqrt(sum(
        (len(usable[i]) - 1) * statistics.variance([math.log(v) for v in usable[i]])
        for i in kept if len(usable[i]) > 1) / within_df) if within_df else 0.0
    return WindowStats(runs=len(values), outliers=len(logs) - len(values),
                       mean=statistics.fmean(values), spread=statistics.stdev(values),
                       within=within, trial_counts=tuple(len(usable[i]) for i in kept),
                       deviations=tuple(sorted(
                           d for i in kept if len(usable[i]) > 1 for d in _deviations(usable[i]))))


def _deviations(trials: Sequence[float]) -> list[float]:
    """Each trial's log from the run's mean log, scaled by sqrt(k / (k - 1)): deviations from a
    mean of the same k values are that much narrower than the trials' own spread."""
    logs = [math.log(v) for v in trials]
    centre, scale = statistics.fmean(logs), math.sqrt(len(logs) / (len(logs) - 1))
    return [(v - centre) * scale for v in logs]


def far_off(values: Sequence[float], level: float = OUTLIER_LEVEL,
            most: int | None = None) -> set[int]:
    """Indices of values too far from the others to come from the same normal distribution:
    Rosner's generalized ESD test at `level`, for up to `most` of them (by default a fifth of
    the values, never leaving fewer than `MIN_WINDOW_RUNS`)."""
    n = len(values)
    if most is None:
        most = min(n // 5, n - MIN_WINDOW_RUNS)
    remaining = dict(enumerate(values))
    removed: list[int] = []
    found = 0
    for step in range(1, most + 1):
        mean = statistics.fmean(remaining.values())
        sd = statistics.stdev(remaining.values())
        index = max(remaining, key=lambda i: abs(remaining[i] - mean))
        deviation = abs(remaining[index] - mean)
        score = deviation / sd if sd > 0 else (math.inf if deviation > 0 else 0.0)
        size = n - step + 1
        quantile = float(student.ppf(1 - level / (2 * size), size - 2))
        critical = (size - 1) * quantile / math.sqrt((size - 2 + quantile ** 2) * size)
        removed.append(index)
        del remaining[index]
        if score > critical:
            found = step
    return set(removed[:found])


def window_test(stats: WindowStats, candidate: Sequence[float], direction: Direction,
                normal: bool = False) -> WindowTest:
    """The candidate's trial values against the window: Student's t prediction test on the
    log of their median, one-sided each way (with `normal`, the normal distribution's tails:
    a z-score)."""
    value = float(statistics.median(candidate))
    effect = value / stats.centre - 1
    if value <= 0:  # no log: as far the low way as a value can be
        low, high = 0.0, 1.0
    else:
        sd = stats.predicted_sd(len(candidate))
        score = (math.log(value) - stats.mean) / sd if sd > 0 else math.copysign(
            math.inf, math.log(value) - stats.mean) if math.log(value) != stats.mean else 0.0
        tails = norm() if normal else student(stats.df)
        high = float(tails.sf(score))  # this high or higher from the history
        low = float(tails.cdf(score))
    worse, better = (high, low) if direction == "lower" else (low, high)
    if direction == "none":
        worse = better = 1.0
    return WindowTest(value, effect, worse, better, len(candidate))


def bound(stats: WindowStats, trials: int, level: float, direction: Direction,
          normal: bool = False) -> float:
    """The value past which a candidate with `trials` trials fails at `level` (one-sided):
    above it for a lower-is-better metric, below it for a higher-is-better one."""
    reach = _quantile(1 - level, stats, normal) * stats.predicted_sd(trials)
    return math.exp(stats.mean + reach if direction != "higher" else stats.mean - reach)


def smallest_change(stats: WindowStats, trials: int, level: float,
                    power: float = DETECTION_POWER, direction: Direction = "lower",
                    normal: bool = False) -> float:
    """The smallest relative change the bad way that the test at `level` catches with
    probability `power` for a candidate of `trials` trials: (t(1 - level) + t(power)) x
    sd_pred on the log scale."""
    reach = (_quantile(1 - level, stats, normal) + _quantile(power, stats, normal)
             ) * stats.predicted_sd(trials)
    return math.exp(reach) - 1 if direction != "higher" else 1 - math.exp(-reach)


def _quantile(q: float, stats: WindowStats, normal: bool) -> float:
    return float(norm.ppf(q) if normal else student.ppf(q, stats.df))
