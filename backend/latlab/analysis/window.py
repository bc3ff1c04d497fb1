"""A run judged against its history: a window of its series' recent comparable runs, and a
test any number of candidate trials can pass or fail.

CI submits one run per commit, often of one trial; compared with one baseline run trial by
trial, it can never be judged. Its history can: the window's runs (their values, each the
median of its trials, on a log scale, where benchmark noise is about symmetric) give a centre
and a run-to-run spread, and the candidate's value is tested against them as a new
observation from the same history would be (Student's t prediction test):

    t = (log y - mean) / sd_pred,   sd_pred^2 = between^2 + within^2 / k + spread^2 / n

with `k` the candidate's trials, `n` the window's runs, `within` the trial-to-trial spread
inside the window's runs (when they had several trials) and `between` the rest of the
run-to-run spread. One run far off the others (a noisy neighbour, a bad host) must not move
the window, and the window must not lose runs that are merely in its own tails (that narrows
the spread, and an unchanged run then fails more often than the test says: dropping runs
beyond 3.5 robust deviations did that, 1.7 % instead of 1 % at 10 runs): far-off runs are
found by Rosner's generalized ESD test, which at `OUTLIER_LEVEL` drops a run of one history
once in a hundred windows. The same spread says how small a change the window lets the gate
see: the shift it catches four times in five (`smallest_change`).
"""

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from scipy.stats import norm
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
    inverse_trials: float  # mean of 1 / trials of the runs kept

    @property
    def centre(self) -> float:
        """The window's typical value (the geometric mean of its runs)."""
        return math.exp(self.mean)

    @property
    def df(self) -> int:
        return self.runs - 1

    def predicted_sd(self, trials: int) -> float:
        """The spread of a new run's log value with `trials` trials around the window's mean."""
        between = max(0.0, self.spread ** 2 - self.within ** 2 * self.inverse_trials)
        return math.sqrt(between + self.within ** 2 / trials + self.spread ** 2 / self.runs)


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
                       within=within,
                       inverse_trials=statistics.fmean(1 / len(usable[i]) for i in kept))


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
