"""Verdicts from trial-level values; tail reliability."""

import numpy as np
import pytest

from latlab.analysis.stats import compare, mann_whitney_p, tail_reliable


def _trials(seed: int, n: int = 5, level: float = 100.0, sigma: float = 0.05) -> list[float]:
    return [float(v) for v in np.random.default_rng(seed).lognormal(np.log(level), sigma, n)]


def test_a_30_percent_worse_p99_is_a_regression_with_its_p_value() -> None:
    result = compare(_trials(1), [v * 1.3 for v in _trials(1)], "lower")
    assert result.verdict == "regressed" and result.confidence == "high"
    assert result.p_value is not None and result.p_value < 0.05
    assert result.method == "mann-whitney" and "5 vs 5 trials" in result.reason
    assert result.delta_pct is not None and 29 < result.delta_pct < 31
    assert result.reason.startswith("rose 30.0 % (p = 0.0079, 5 vs 5 trials")


def test_direction_decides_better_and_worse() -> None:
    base = _trials(1)
    assert compare(base, [v * 1.3 for v in base], "lower").verdict == "regressed"
    assert compare([v * 1.3 for v in base], base, "lower").verdict == "improved"
    assert compare(base, [v * 1.3 for v in base], "higher").verdict == "improved"
    assert compare([v * 1.3 for v in base], base, "higher").verdict == "regressed"
    assert compare(_trials(1), [v * 1.3 for v in _trials(2)], "lower").verdict == "regressed"


def test_a_metric_without_direction_is_never_better_or_worse() -> None:
    base = _trials(1)
    shifted = compare(base, [v * 1.3 for v in base], "none")
    assert shifted.verdict == "inconclusive" and "no better direction" in shifted.reason
    assert compare(base, base, "none").verdict == "unchanged"
    assert compare([100.0], [150.0], "none").verdict == "inconclusive"


def test_a_to_a_runs_are_not_regressions() -> None:
    verdicts = [compare(_trials(10 + i), _trials(100 + i), "lower").verdict for i in range(20)]
    assert verdicts.count("regressed") <= 1
    assert verdicts.count("improved") <= 1


def test_small_real_changes_are_unchanged_and_noisy_big_ones_inconclusive() -> None:
    small = compare(_trials(1, n=20, sigma=0.005),
                    [v * 1.02 for v in _trials(2, n=20, sigma=0.005)], "lower")
    assert small.verdict == "unchanged" and small.p_value is not None and small.p_value < 0.05
    assert "minimum effect" in small.reason
    noisy = compare([100, 200, 100, 120, 90], [150, 100, 300, 95, 180], "lower")
    assert noisy.verdict == "inconclusive" and "overlap" in noisy.reason


def test_three_or_four_trials_accept_p_up_to_0_1_for_a_large_change_at_low_confidence() -> None:
    three = compare([100.0, 101.0, 102.0], [120.0, 121.0, 122.0], "lower")
    assert three.p_value == pytest.approx(0.1)
    assert three.verdict == "regressed" and three.confidence == "low"
    assert "p <= 0.1" in three.reason
    # under twice the minimum effect, separated trials alone are not enough
    assert compare([100.0, 101.0, 102.0], [107.0, 108.0, 109.0], "lower").verdict == (
        "inconclusive")
    four = compare([100.0, 101.0, 102.0, 103.0], [120.0, 121.0, 122.0, 123.0], "lower")
    assert four.verdict == "regressed" and four.confidence == "high"
    assert four.p_value is not None and four.p_value < 0.05


def test_few_trials_get_a_low_confidence_threshold_verdict() -> None:
    result = compare([100.0, 101.0], [130.0], "lower")
    assert result.verdict == "regressed" and result.confidence == "low"
    assert result.method == "threshold" and result.p_value is None
    assert compare([100.0, 101.0], [80.0, 81.0], "lower").verdict == "improved"
    assert compare([100.0], [102.0], "lower").verdict == "unchanged"
    assert compare([100.0] * 5, [102.0, 130.0], "higher").method == "threshold"


def test_identical_and_zero_baselines() -> None:
    same = compare([5.0] * 5, [5.0] * 5, "lower")
    assert same.verdict == "unchanged" and same.p_value == 1.0 and same.delta_pct == 0.0
    zero = compare([0.0] * 5, [3.0, 4.0, 5.0, 6.0, 7.0], "lower")
    assert zero.delta_pct is None and zero.verdict == "regressed"


def test_ties_get_an_exact_p_value() -> None:
    # all 252 splits of the pooled trials enumerated: 10 are at least as extreme
    assert mann_whitney_p([1, 2, 2, 3, 4], [3, 4, 5, 6, 6]) == pytest.approx(10 / 252)
    assert mann_whitney_p([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]) == pytest.approx(2 / 252)


def test_empty_sides_are_refused() -> None:
    with pytest.raises(ValueError):
        compare([], [1.0], "lower")


def test_tail_percentiles_need_ten_samples_beyond_them() -> None:
    assert not tail_reliable(5_000, 99.9)
    assert tail_reliable(100_000, 99.9)
    assert tail_reliable(1_000, 99.0)
    assert not tail_reliable(999, 99.0)
    assert tail_reliable(5_000, 99.9, min_beyond=5)


def test_the_enumerated_p_value_equals_scipys_exact_one_without_ties() -> None:
    from scipy.stats import mannwhitneyu

    rng = np.random.default_rng(5)
    for sizes in ((3, 3), (3, 4), (5, 5), (8, 8), (7, 6)):
        for _ in range(20):
            baseline = list(rng.normal(100, 3, sizes[0]))
            candidate = list(rng.normal(102, 3, sizes[1]))
            exact = mannwhitneyu(candidate, baseline, alternative="two-sided", method="exact")
            assert mann_whitney_p(baseline, candidate) == pytest.approx(float(exact.pvalue))
