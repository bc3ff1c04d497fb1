"""Change points in a metric's history: E-Divisive means (Matteson & James 2014, as in
MongoDB's signal-processing-algorithms and Apache Otava).

Binary segmentation: each open segment's best split maximises the energy q-statistic
(absolute differences, alpha = 1; the V-statistic form MongoDB uses); the strongest split of
all is tested by permuting its segment (deterministic with the seed) and, if significant,
cuts the segment in two. A segment whose best split is not significant is closed. Splits
shorter than `min_segment` are never considered. Last, cuts whose relative change of segment
means is under `min_effect` are merged away, the weakest first, the way Otava drops weak
change points, so a real but tiny shift is not reported, yet does not hide a larger one.

Unlike Otava, which reports the p-value a point had when binary segmentation found it, each
point that remains is tested again within the segment it splits once weak points are merged
(between its remaining neighbours), and that p-value is the one reported; a point that is no
longer significant there is dropped too.
"""

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

Floats = npt.NDArray[np.float64]
_BATCH_CELLS = 1_000_000  # distance-matrix cells shuffled at once: 8 MB


@dataclass(frozen=True)
class ChangePoint:
    index: int  # the first point of the new segment
    before: float  # mean of the segment before
    after: float  # mean of the segment from `index` on
    delta_pct: float | None  # None when the mean before is 0
    p_value: float  # of the permutation test that found it


def detect(values: Sequence[float], *, min_segment: int = 5, min_effect: float = 0.03,
           permutations: int = 199, alpha: float = 0.01, seed: int = 0) -> list[ChangePoint]:
    """Change points of a series, in order; none for a series shorter than 2 * min_segment."""
    if min_segment < 1:
        raise ValueError("min_segment must be at least 1")
    series = np.asarray(values, dtype=np.float64)
    if series.ndim != 1 or len(series) < 2 * min_segment:
        return []
    rng = np.random.default_rng(seed)
    distances = np.abs(series[:, None] - series[None, :])
    cuts: dict[int, float] = {}
    candidates: dict[tuple[int, int], tuple[int, float]] = {}

    def consider(start: int, end: int) -> None:
        if end - start >= 2 * min_segment:
            statistic = _q_statistics(distances[None, start:end, start:end], min_segment)[0]
            best = int(np.argmax(statistic))
            candidates[(start, end)] = (start + min_segment + best, float(statistic[best]))

    consider(0, len(series))
    while candidates:
        (start, end), (cut, statistic) = max(candidates.items(), key=lambda item: item[1][1])
        del candidates[(start, end)]
        p_value = _permutation_p(distances[start:end, start:end], statistic, min_segment,
                                 permutations, alpha, rng)
        if p_value > alpha:
            continue
        cuts[cut] = p_value
        consider(start, cut)
        consider(cut, end)
    kept = _drop_weak(series, sorted(cuts), min_effect)
    # Each remaining cut is tested again in the segment it now splits (between its
    # neighbours): its p-value is the one that holds after the merging, and a cut that is no
    # longer significant there goes too.
    while True:
        retested = {cut: _retest(distances, bounds, min_segment, permutations, alpha, rng)
                    for cut, bounds in _neighbours(kept, len(series))}
        weak = [cut for cut in kept if retested[cut] > alpha]
        if not weak:
            break
        kept = _drop_weak(series, [c for c in kept if c not in weak], min_effect)
    return [ChangePoint(cut, before, after,
                        None if before == 0 else _relative_pct(before, after), retested[cut])
            for cut, before, after in _segment_means(series, kept)]


def _neighbours(cuts: list[int], length: int) -> list[tuple[int, tuple[int, int, int]]]:
    bounds = [0, *cuts, length]
    return [(cut, (bounds[i], cut, bounds[i + 2])) for i, cut in enumerate(cuts)]


def _retest(distances: Floats, bounds: tuple[int, int, int], min_segment: int,
            permutations: int, alpha: float, rng: np.random.Generator) -> float:
    """The permutation p-value of the split at `cut` within [start, end)."""
    start, cut, end = bounds
    q = _q_statistics(distances[None, start:end, start:end], min_segment)[0]
    statistic = float(q[cut - start - min_segment])
    return _permutation_p(distances[start:end, start:end], statistic, min_segment,
                          permutations, alpha, rng)


def _q_statistics(distances: Floats, min_segment: int) -> Floats:
    """q(tau) for every allowed split tau of each segment in a (batch, n, n) stack of
    distance matrices, as a (batch, n - 2 * min_segment + 1) array.

    With W(tau) the distance sum within the first tau points, R(tau) the sum of their rows
    and T the whole sum: within_left = W, between = R - W, within_right = T - 2R + W.
    """
    n = distances.shape[-1]
    lower_rows = np.tril(distances, -1).sum(axis=-1)  # row i: distances to points before i
    zero = np.zeros((distances.shape[0], 1))
    within_left = 2.0 * np.concatenate([zero, np.cumsum(lower_rows, axis=-1)], axis=-1)
    row_prefix = np.concatenate([zero, np.cumsum(distances.sum(axis=-1), axis=-1)], axis=-1)
    tau = np.arange(min_segment, n - min_segment + 1)
    left, right = tau.astype(np.float64), (n - tau).astype(np.float64)
    w, r = within_left[:, tau], row_prefix[:, tau]
    between = r - w
    within_right = row_prefix[:, -1:] - 2.0 * r + w
    energy = 2.0 * between / (left * right) - w / left**2 - within_right / right**2
    q: Floats = left * right / n * energy
    return q


def _permutation_p(distances: Floats, statistic: float, min_segment: int, permutations: int,
                   alpha: float, rng: np.random.Generator) -> float:
    """Share of shuffled segments whose best split is at least as strong (the observed order
    counted as one of them). Stops early once the answer can only be "not significant"."""
    n = len(distances)
    exceed, done = 0, 0
    allowed = alpha * (permutations + 1) - 1  # the most exceedances a significant p allows
    while done < permutations:
        batch = min(max(1, _BATCH_CELLS // (n * n)), permutations - done)
        orders = rng.permuted(np.tile(np.arange(n), (batch, 1)), axis=1)
        shuffled = distances[orders[:, :, None], orders[:, None, :]]
        best = _q_statistics(shuffled, min_segment).max(axis=1)
        exceed += int(np.count_nonzero(best >= statistic * (1 - 1e-12)))
        done += batch
        if exceed > allowed:
            break
    return (exceed + 1) / (done + 1)


def _drop_weak(series: Floats, cuts: list[int], min_effect: float) -> list[int]:
    kept = list(cuts)
    while kept:
        effects = [abs(_relative_pct(before, after)) / 100.0
                   for _, before, after in _segment_means(series, kept)]
        weakest = int(np.argmin(effects))
        if effects[weakest] >= min_effect:
            break
        del kept[weakest]
    return kept


def _segment_means(series: Floats, cuts: list[int]) -> list[tuple[int, float, float]]:
    bounds = [0, *cuts, len(series)]
    return [(cut, float(series[bounds[i]:cut].mean()), float(series[cut:bounds[i + 2]].mean()))
            for i, cut in enumerate(cuts)]


def _relative_pct(before: float, after: float) -> float:
    if before == 0:
        return 0.0 if after == 0 else float(np.copysign(np.inf, after))
    return 100.0 * (after - before) / abs(before)
