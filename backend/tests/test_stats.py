"""Verdicts from trial-level values; tail reliability."""

import numpy as np

from latlab.analysis.stats import compare, tail_reliable


def _trials(seed: int, n: int = 5, level: float = 100.0, sigma: float = 0.05) -> list[float]:
    return [float(v) for v in np.random.default_rng(seed).lognormal(np.log(level), sigma, n)]


def test_a_30_percent_worse_p99_is_a_regression_with_its_p_value() -> None:
    result = compare(_trials(1), [v * 1.3 for v in _trials(2)], "lower")
    assert result.verdict == "regressed" and result.confidence == "high"
    assert result.p_value is not None and result.p_value < 0.05
    assert result.method == "mann-whitney" and "5 vs 5 trials" in result.reason
    assert 20 < (result.delta_pct or 0) < 40


def test_direction_decides_better_and_worse() -> None:
    assert compare(_trials(1), [v / 1.3 for v in _trials(2)], "lower").verdict == "improved"
    assert compare(_trials(1), [v * 1.3 for v in _trials(2)], "higher").verdict == "improved"
    assert compare(_trials(1), [v / 1.3 for v in _trials(2)], "higher").verdict == "regressed"
    assert compare(_trials(1), [v * 1.3 for v in _trials(2)], "none").verdict in (
        "unchanged", "inconclusive")


def test_a_to_a_runs_are_not_regressions() -> None:
    verdicts = [compare(_trials(10 + i), _trials(100 + i), "lower").verdict for i in range(20)]
    assert verdicts.count("regressed") <= 1


def test_small_real_changes_are_unchanged_and_noisy_big_ones_inconclusive() -> None:
    assert compare(_trials(1, n=20, sigma=0.005), [v * 1.02 for v in _trials(2, n=20, sigma=0.005)],
                   "lower").verdict == "unchanged"
    noisy = compare([100, 200, 100], [150, 100, 300], "lower")
    assert noisy.verdict == "inconclusive"


def test_few_trials_get_a_low_confidence_threshold_verdict() -> None:
    result = compare([100.0, 101.0], [130.0], "lower")
    assert result.verdict == "regressed" and result.confidence == "low"
    assert result.method == "threshold" and result.p_value is None
    assert compare([100.0], [102.0], "lower").verdict == "unchanged"


def test_identical_and_zero_baselines() -> None:
    assert compare([5.0] * 5, [5.0] * 5, "lower").verdict == "unchanged"
    zero = compare([0.0] * 5, [3.0, 4.0, 5.0, 6.0, 7.0], "lower")
    assert zero.delta_pct is None and zero.verdict == "regressed"


def test_tail_percentiles_need_ten_samples_beyond_them() -> None:
    assert not tail_reliable(5_000, 99.9)
    assert tail_reliable(100_000, 99.9)
    assert tail_reliable(1_000, 99.0)
    assert not tail_reliable(999, 99.0)
