"""Verdicts from trial-level values; tail reliability."""

from collections.abc import Iterator

import numpy as np
import pytest
from scipy.stats import mannwhitneyu, permutation_test
from scipy.stats import ttest_ind as scipy_ttest

from latlab.analysis.stats import (
    Alternative,
    change_interval,
    compare,
    detectable_change,
    mann_whitney_p,
    rules_out,
    spread_bound,
    trials_needed,
    trials_to_detect,
    welch_log_p,
)
from latlab_contract.vocabulary import tail_reliable
from tests.factories import trial_values


def _trials(seed: int, n: int = 5, level: float = 100.0, sigma: float = 0.05) -> list[float]:
    return trial_values(np.random.default_rng(seed), n, level, sigma)


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


def test_too_few_trials_are_inconclusive_and_say_how_many_a_test_needs() -> None:
    # 3 vs 3: Mann-Whitney's smallest p is 0.1, so Welch's t on logs decides instead.
    three = compare([100.0, 101.0, 102.0], [120.0, 121.0, 122.0], "lower")
    assert three.method == "welch-t-log" and three.verdict == "regressed"
    single = compare([100.0], [130.0], "lower")  # one trial: no spread to test against
    assert single.verdict == "inconclusive" and single.confidence == "low"
    assert "a tested verdict needs 4 a side" in single.reason
    assert compare([100.0, 101.0], [101.0], "lower").verdict == "unchanged"  # under 5 %
    four = compare([100.0, 101.0, 102.0, 103.0], [120.0, 121.0, 122.0, 123.0], "lower")
    assert four.verdict == "regressed" and four.confidence == "high"
    assert four.p_value == pytest.approx(2 / 70)
    assert trials_needed(0.05) == 4 and trials_needed(0.025) == 5 and trials_needed(0.005) == 6


def test_the_small_sample_message_states_only_what_is_true() -> None:
    # The trials overlap (135 > 130): no claim that they do not.
    overlap = compare([100, 110, 120, 135], [130, 150, 160, 170], "lower")
    assert "no trial overlaps" not in overlap.reason
    assert overlap.p_value == pytest.approx(mannwhitneyu(
        [130, 150, 160, 170], [100, 110, 120, 135], method="exact").pvalue)


def test_identical_and_zero_baselines() -> None:
    same = compare([5.0] * 5, [5.0] * 5, "lower")
    assert same.verdict == "unchanged" and same.p_value == 1.0 and same.delta_pct == 0.0
    zero = compare([0.0] * 5, [3.0, 4.0, 5.0, 6.0, 7.0], "lower")
    assert zero.delta_pct is None and zero.verdict == "regressed"


def test_ties_get_scipys_exact_conditional_p_value() -> None:
    # The case: the symmetric tail rule gave 0.040 where scipy's permutation test of
    # U (twice the smaller tail) gives 0.064.
    assert mann_whitney_p([3, 1, 1, 4, 3], [5, 4, 4, 4]) == pytest.approx(_scipy_p(
        [5, 4, 4, 4], [3, 1, 1, 4, 3]))
    assert mann_whitney_p([3, 1, 1, 4, 3], [5, 4, 4, 4]) == pytest.approx(0.0635, abs=1e-3)
    assert mann_whitney_p([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]) == pytest.approx(2 / 252)


def _scipy_p(candidate: list[float], baseline: list[float],
             alternative: str = "two-sided") -> float:
    def u(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
        return mannwhitneyu(x, y, axis=axis, method="asymptotic").statistic

    return float(permutation_test((candidate, baseline), u, permutation_type="independent",
                                  alternative=alternative, n_resamples=np.inf,
                                  vectorized=True).pvalue)


def _tied_cases(rng: np.random.Generator, count: int
                ) -> Iterator[tuple[list[float], list[float]]]:
    """Random baseline and candidate trials of 2 to 6 values each, from few distinct values:
    ties in most cases, as HDR bucket values and counts give (never all equal)."""
    for _ in range(count):
        sizes = rng.integers(2, 7, 2)
        baseline = [float(v) for v in rng.integers(0, 6, sizes[0])]
        candidate = [float(v) for v in rng.integers(1, 7, sizes[1])]
        if len(set(baseline + candidate)) > 1:
            yield baseline, candidate


def test_agrees_with_scipys_permutation_test_on_1000_random_tied_cases() -> None:
    for baseline, candidate in _tied_cases(np.random.default_rng(11), 1000):
        assert mann_whitney_p(baseline, candidate) == pytest.approx(
            min(1.0, _scipy_p(candidate, baseline)), abs=1e-12), (baseline, candidate)


@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_one_sided_p_values_agree_with_scipy_tied_exact_and_large(
        alternative: Alternative) -> None:
    """One-sided: scipy's permutation test on 300 random tied cases; its asymptotic test
    beyond the splits enumerated (30 vs 30 trials)."""
    rng = np.random.default_rng(14)
    for baseline, candidate in _tied_cases(rng, 300):
        assert mann_whitney_p(baseline, candidate, alternative) == pytest.approx(
            _scipy_p(candidate, baseline, alternative), abs=1e-12), (baseline, candidate)
    baseline, candidate = list(rng.normal(100, 5, 30)), list(rng.normal(103, 5, 30))
    assert mann_whitney_p(baseline, candidate, alternative) == pytest.approx(
        float(mannwhitneyu(candidate, baseline, alternative=alternative,
                           method="asymptotic").pvalue))


def test_the_spread_bound_covers_the_true_spread_as_often_as_asked() -> None:
    """The standard deviation of 9 normal values (8 degrees of freedom, as two runs of 5
    trials pool): the bound at 80 % lies above the true spread in about 80 % of 4,000."""
    rng = np.random.default_rng(15)
    covered = sum(spread_bound(float(np.std(rng.normal(1, 0.2, 9), ddof=1)), 8, 0.8) >= 0.2
                  for _ in range(4000))
    assert 0.77 <= covered / 4000 <= 0.83, covered


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


def test_the_spread_is_numpys_pooled_standard_deviation_of_each_side_over_its_median() -> None:
    rng = np.random.default_rng(11)
    before, after = rng.normal(100, 8, 5), rng.normal(110, 12, 7)
    pooled = np.sqrt((4 * np.var(before / np.median(before), ddof=1)
                      + 6 * np.var(after / np.median(after), ddof=1)) / 10)
    spread = compare(list(before), list(after), "lower").spread
    assert spread == pytest.approx(pooled)
    assert compare([1.0], [1.0, 2.0], "lower").spread is None
    # A side eight times slower with the same relative noise: the same spread, not eight
    # times the baseline's (a large regression is not noise).
    assert compare(list(before), list(8 * before), "lower").spread == pytest.approx(
        np.std(before / np.median(before), ddof=1))


@pytest.mark.parametrize("spread, effect, alpha", [(0.2, 0.1, 0.025), (0.1, 0.1, 0.0125)])
def test_trials_to_detect_give_the_power_asked_for_with_scipys_mann_whitney(
        spread: float, effect: float, alpha: float) -> None:
    """The sample size is an approximation (for the confirmations' 10 to 100 trials): 2,000
    simulated pairs of normal trials with that spread and shift, tested by scipy, find the
    shift about 80 % of the time."""
    n = trials_to_detect(spread, effect, alpha, power=0.8)
    rng = np.random.default_rng(12)
    found = sum(
        mannwhitneyu(rng.normal(1 + effect, spread, n), rng.normal(1, spread, n),
                     alternative="two-sided").pvalue <= alpha for _ in range(2000))
    assert 0.75 <= found / 2000 <= 0.88, (n, found)


@pytest.mark.parametrize("spread, trials, alpha", [(0.05, 10, 0.025), (0.15, 20, 0.05)])
def test_the_change_a_try_job_could_see_is_found_as_often_as_stated(
        spread: float, trials: int, alpha: float) -> None:
    """A try job's `detectable` change: 2,000 simulated try jobs of `trials` normal trials a
    side shifted by it, tested by scipy's Mann-Whitney, find it about 80 % of the time; and
    the 95 % interval of the change (scipy's bootstrap) holds the true shift in most of 300
    of them."""
    effect = detectable_change(spread, trials, alpha)
    rng = np.random.default_rng(14)
    found = sum(
        mannwhitneyu(rng.normal(1 + effect, spread, trials), rng.normal(1, spread, trials),
                     alternative="two-sided").pvalue <= alpha for _ in range(2000))
    assert 0.74 <= found / 2000 <= 0.88, (effect, found)
    covered = 0
    for _ in range(300):
        interval = change_interval(rng.normal(1, spread, trials).tolist(),
                                   rng.normal(1 + effect, spread, trials).tolist())
        assert interval is not None
        covered += interval[0] <= effect <= interval[1]
    assert covered / 300 >= 0.85, covered  # a percentile bootstrap of few trials runs narrow


@pytest.mark.parametrize("direction, factor", [("lower", 1.075), ("higher", 0.925)])
def test_a_slowdown_is_ruled_out_only_as_often_as_the_level_allows(
        direction: str, factor: float) -> None:
    """The screen's promise: when a run really is 7.5 % worse, its five trials rule that out
    in at most 5 % of 2,000 simulated runs, noisy or quiet; an unchanged quiet run's trials
    rule it out almost always, an unchanged noisy run's (20 % spread) seldom."""
    rng = np.random.default_rng(13)

    def rate(sigma: float, shift: float) -> float:
        return sum(rules_out(rng.lognormal(0, sigma, 5).tolist(),
                             (shift * rng.lognormal(0, sigma, 5)).tolist(),
                             direction, 0.075)  # type: ignore[arg-type]
                   for _ in range(2000)) / 2000

    assert rate(0.2, factor) <= 0.065 and rate(0.01, factor) <= 0.065
    assert rate(0.01, 1.0) >= 0.95
    assert rate(0.2, 1.0) <= 0.25


@pytest.mark.parametrize(("baseline", "candidate"), [
    ([100.0, 103.0, 98.0], [210.0, 195.0, 204.0]),
    ([100.0, 101.0], [99.0, 104.0, 102.0, 100.5]),
    ([5.0, 5.5, 4.8, 5.1], [5.2, 5.9]),
])
def test_welch_on_logs_is_scipys(baseline: list[float], candidate: list[float]) -> None:
    logs = np.log(baseline), np.log(candidate)
    for alternative in ("two-sided", "greater", "less"):
        expected = scipy_ttest(logs[1], logs[0], equal_var=False, alternative=alternative)
        assert welch_log_p(baseline, candidate, alternative) == pytest.approx(
            expected.pvalue, rel=1e-9)


def test_a_2x_change_at_3_trials_a_side_is_called() -> None:
    """Mann-Whitney on 3 vs 3 cannot reach p < 0.1; trials that spread by a few per cent
    settle a doubling (zig vs go, +114 % throughput, was `inconclusive`)."""
    go, zig = [39_400.0, 40_100.0, 38_900.0], [84_300.0, 85_900.0, 83_700.0]
    result = compare(go, zig, "higher")
    assert result.method == "welch-t-log" and result.verdict == "improved"
    assert result.p_value is not None and result.p_value < 0.001
    assert compare(zig, go, "higher").verdict == "regressed"
    # Noise that large is still not called.
    noisy = compare([100.0, 180.0, 60.0], [150.0, 90.0, 260.0], "lower")
    assert noisy.verdict in ("inconclusive", "unchanged")
