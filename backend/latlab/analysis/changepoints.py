"""Change points in a metric's history: E-Divisive means (Matteson & James 2014, as in
MongoDB's signal-processing-algorithms and Apache Otava), by binary segmentation with a
permutation test, a minimum segment length and a minimum effect size."""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float64]


@dataclass(frozen=True)
class ChangePoint:
    index: int  # the first point of the new segment
    before: float
    after: float
    delta_pct: float
    p_value: float


def detect(values: Sequence[float], *, min_segment: int = 5, min_effect: float = 0.03,
           permutations: int = 199, alpha: float = 0.01, seed: int = 0) -> list[ChangePoint]:
    series = np.asarray(values, dtype=np.float64)
    rng = np.random.default_rng(seed)
    cuts: list[tuple[int, float]] = []
    open_segments = [(0, len(series))]
    while open_segments:
        best = None
        for start, end in open_segments:
            found = _best_split(series[start:end], min_segment)
            if found is not None and (best is None or found[1] > best[2]):
                best = (start, end, found[1], found[0])
        if best is None:
            break
        start, end, statistic, split = best
        open_segments.remove((start, end))
        segment = series[start:end]
        exceed = sum(
            1 for _ in range(permutations)
            if (_best_split(rng.permutation(segment), min_segment) or (0, -np.inf))[1]
            >= statistic
        )
        p_value = (exceed + 1) / (permutations + 1)
        before, after = segment[:split].mean(), segment[split:].mean()
        effect = abs(after - before) / abs(before) if before else float(after != before)
        if p_value > alpha or effect < min_effect:
            continue
        cuts.append((start + split, p_value))
        open_segments += [(start, start + split), (start + split, end)]
    return _describe(series, sorted(cuts))


def _best_split(segment: Floats, min_segment: int) -> tuple[int, float] | None:
    """The split maximising the energy q-statistic, vectorised over every split position."""
    n = len(segment)
    if n < 2 * min_segment:
        return None
    distances = np.abs(segment[:, None] - segment[None, :])
    prefix = np.zeros((n + 1, n + 1))
    prefix[1:, 1:] = distances.cumsum(0).cumsum(1)
    tau = np.arange(min_segment, n - min_segment + 1)
    within_left = prefix[tau, tau]
    between = prefix[tau, n] - within_left
    within_right = prefix[n, n] - 2 * prefix[tau, n] + within_left
    left, right = tau.astype(np.float64), (n - tau).astype(np.float64)
    energy = 2 * between / (left * right) - within_left / left**2 - within_right / right**2
    q = left * right / n * energy
    best = int(np.argmax(q))
    return int(tau[best]), float(q[best])


def _describe(series: Floats, cuts: list[tuple[int, float]]) -> list[ChangePoint]:
    bounds = [0, *(c for c, _ in cuts), len(series)]
    points = []
    for number, (cut, p_value) in enumerate(cuts, start=1):
        before = float(series[bounds[number - 1]:cut].mean())
        after = float(series[cut:bounds[number + 1]].mean())
        delta = 100.0 * (after - before) / abs(before) if before else 0.0
        points.append(ChangePoint(cut, before, after, delta, p_value))
    return points
