"""A creep in a metric's history: its newest runs drifting the bad way in steps too small for
the gate, which judges each run against a window the drift has already raised (or too short
to judge against), and too gradual or too young for E-Divisive, which looks for a step
between segments of at least five runs.

The test is Mann-Kendall's: Kendall's tau of the runs' values against their order, one-sided
in the metric's worse direction, at the project's false-alarm level (the gate's, 1 % by
default). A creep must also have moved the level by the project's minimum effect: the median
of the newest third of the runs against the oldest third's (a significant trend of 1 % is not
worth an alert).

Mann-Kendall rather than Mann-Whitney of the newest third against the oldest: it weighs every
pair of runs, not two thirds of them, so it decides from six runs (two thirds of two runs each
cannot reach 5 %: their smallest one-sided p is 1/6). The price: behind a long flat stretch
the flat runs' pairs dilute a late ramp, which E-Divisive then finds as a step. At the lab's
5 % instead of 1 %, flat histories of 40 one-trial runs spreading by 6 % opened a creep alert
in 7 of 25, not 3 (`bench.creep`), for more power only on the weakest ramp it ran (+20 % over
10 runs at that spread: 20 of 25 caught, not 10).
"""

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import numpy as np
import numpy.typing as npt
from scipy.stats import norm

from latlab.analysis.stats import relative_change
from latlab_contract.vocabulary import Direction

MIN_RUNS = 6  # thirds of two runs each: one run's value is no level


@dataclass(frozen=True)
class Creep:
    """How a history's newest runs crept: the medians of their oldest and newest thirds, and
    the Mann-Kendall p-value of their trend."""

    runs: int
    before: float
    after: float
    p_value: float

    @property
    def change(self) -> float:
        """The relative change of the thirds' medians (+0.1 = 10 % higher)."""
        return relative_change(self.before, self.after)


def detect(values: Sequence[float], direction: Direction, *, min_effect: float,
           alpha: float) -> Creep | None:
    """The creep of `values` (a history's run values, oldest first) the bad way for a metric
    of `direction`: a trend the one-sided Mann-Kendall test finds at `alpha` that moved the
    newest third's median at least `min_effect` from the oldest third's. None when they do
    not creep so, number fewer than `MIN_RUNS`, or the metric has no better direction."""
    if direction == "none" or len(values) < MIN_RUNS:
        return None
    third = len(values) // 3
    before = float(statistics.median(values[:third]))
    after = float(statistics.median(values[-third:]))
    rising = direction == "lower"  # a metric where lower is better gets worse by rising
    change = relative_change(before, after)
    if (change if rising else -change) < min_effect:
        return None
    p_value = trend_p(values, "greater" if rising else "less")
    return Creep(len(values), before, after, p_value) if p_value <= alpha else None


def trend_p(values: Sequence[float], alternative: Literal["greater", "less"]) -> float:
    """Mann-Kendall's one-sided p-value of a trend in `values` (oldest first; "greater":
    rising), as scipy's `kendalltau` of the values against their order has it: exact without
    ties (the share of the orderings of n distinct values with S at least as extreme), else
    the normal approximation with the tie-corrected variance of S. S is the number of rising
    pairs of values minus the falling ones."""
    series = np.asarray(values, dtype=np.float64)
    n = len(series)
    signs = np.sign(series[None, :] - series[:, None])[np.triu_indices(n, 1)]
    s = int(signs.sum())
    pairs = n * (n - 1) // 2
    if np.count_nonzero(signs) == pairs:
        # S = pairs - 2 D, D the falling pairs (inversions), symmetric around pairs / 2.
        falling = (pairs - s) // 2
        cdf = _inversions_cdf(n)
        return min(1.0, float(cdf[falling] if alternative == "greater"
                              else cdf[pairs - falling]))
    _, ties = np.unique(series, return_counts=True)
    variance = (n * (n - 1) * (2 * n + 5)
                - float(np.sum(ties * (ties - 1) * (2 * ties + 5)))) / 18
    if variance == 0:
        return 1.0  # every value equal: no order to test
    z = s / math.sqrt(variance)
    return float(norm.sf(z) if alternative == "greater" else norm.cdf(z))


@lru_cache(maxsize=64)
def _inversions_cdf(n: int) -> npt.NDArray[np.float64]:
    """P(D <= d) for d = 0 .. n(n-1)/2, D the inversions of a random ordering of n distinct
    values: placing the k-th value adds 0 .. k - 1 inversions, equally likely (Mahonian
    numbers over n!, built as n - 1 convolutions)."""
    distribution = np.ones(1)
    for k in range(2, n + 1):
        distribution = np.convolve(distribution, np.full(k, 1.0 / k))
    cdf = np.cumsum(distribution)
    cdf.setflags(write=False)
    return cdf
