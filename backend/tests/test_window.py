"""The window test on its own: its p-value against scipy's Student t computed from first
principles, robustness to an outlier run, the smallest change it claims against a simulation,
and no drift over a long stable history."""

import dataclasses
import math
import statistics

import numpy as np
import pytest
from scipy import stats as scipy_stats

from latlab.analysis.window import (
    WindowStats,
    bound,
    far_off,
    smallest_change,
    window_stats,
    window_test,
)


def _one_trial_runs(values: np.ndarray) -> list[list[float]]:
    return [[float(v)] for v in values]


@pytest.mark.parametrize("runs", [5, 10, 30])
def test_one_trial_p_value_is_the_prediction_test_scipy_gives(runs: int) -> None:
    rng = np.random.default_rng(runs)
    history = rng.lognormal(math.log(350_000), 0.05, runs)
    candidate = 350_000 * 1.08
    stats = window_stats(_one_trial_runs(history))
    assert stats is not None and stats.outliers == 0
    result = window_test(stats, [candidate], "lower")
    logs = np.log(history)
    score = (math.log(candidate) - logs.mean()) / (logs.std(ddof=1) * math.sqrt(1 + 1 / runs))
    assert result.p_worse == pytest.approx(scipy_stats.t.sf(score, runs - 1), rel=1e-9)
    assert result.p_better == pytest.approx(scipy_stats.t.cdf(score, runs - 1), rel=1e-9)
    # Higher is better (throughput): the same value is a gain.
    higher = window_test(stats, [candidate], "higher")
    assert higher.p_worse == pytest.approx(result.p_better) and higher.p_better == (
        pytest.approx(result.p_worse))


def test_an_outlier_run_barely_moves_the_window() -> None:
    rng = np.random.default_rng(7)
    history = list(rng.lognormal(math.log(100.0), 0.03, 29))
    clean = window_stats(_one_trial_runs(np.asarray(history)))
    spoiled = window_stats(_one_trial_runs(np.asarray([*history[:15], 1000.0, *history[15:]])))
    assert clean is not None and spoiled is not None
    assert spoiled.outliers == 1 and spoiled.runs == 29
    assert abs(spoiled.centre / clean.centre - 1) < 0.002
    assert spoiled.spread == pytest.approx(clean.spread)


def test_far_off_runs_are_the_ones_rosners_esd_finds_in_his_own_data() -> None:
    """Rosner (1983)'s 54 values, as the NIST/SEMATECH e-Handbook works the generalized ESD
    test on them (section 1.3.5.17.3: alpha 0.05, up to 10 outliers): R1 = 3.118 against a
    critical 3.158, and 3 outliers, the three largest values."""
    values = [-0.25, 0.68, 0.94, 1.15, 1.20, 1.26, 1.26, 1.34, 1.38, 1.43, 1.49, 1.49, 1.55,
              1.56, 1.58, 1.65, 1.69, 1.70, 1.76, 1.77, 1.81, 1.91, 1.94, 1.96, 1.99, 2.06,
              2.09, 2.10, 2.14, 2.15, 2.23, 2.24, 2.26, 2.35, 2.37, 2.40, 2.47, 2.54, 2.62,
              2.64, 2.90, 2.92, 2.92, 2.93, 3.21, 3.26, 3.30, 3.59, 3.68, 4.30, 4.64, 5.34,
              5.42, 6.01]
    assert sorted(values[i] for i in far_off(values, 0.05, 10)) == [5.34, 5.42, 6.01]
    assert far_off(values, 0.05, 1) == set()  # R1 alone does not reach its critical value


def test_a_window_of_one_history_rarely_loses_a_run() -> None:
    """Runs in a history's own tails stay in its window (dropping them narrows the spread and
    makes unchanged runs fail more often than the test says): at 10 runs of pure noise, the
    ESD test drops a run from about 1 % of windows."""
    rng = np.random.default_rng(2)
    dropped = sum(bool(far_off(list(rng.normal(0.0, 0.05, 10)))) for _ in range(4000))
    assert scipy_stats.binomtest(dropped, 4000, 0.01).pvalue > 0.001, dropped


def test_too_few_or_unusable_runs_make_no_window() -> None:
    assert window_stats([[1.0], [1.1], [0.9], [1.0]]) is None
    assert window_stats([[1.0], [1.1], [0.9], [1.0], [0.0]]) is None
    assert window_stats([[1.0], [1.1], [0.9], [1.0], [1.05]]) is not None


def test_several_trials_a_run_split_the_spread_into_within_and_between() -> None:
    rng = np.random.default_rng(3)
    # Each run: a run-level shift (1 %) and five trials spreading by 5 % around it.
    runs = [list(math.exp(rng.normal(0, 0.01)) * rng.lognormal(0, 0.05, 5)) for _ in range(30)]
    stats = window_stats(runs)
    assert stats is not None
    assert stats.within == pytest.approx(0.05, rel=0.2)
    # A five-trial candidate is predicted more tightly than a one-trial one.
    assert stats.predicted_sd(5) < stats.predicted_sd(1)


@pytest.mark.parametrize(("runs", "history_trials", "trials", "exact"), [
    (10, 1, 1, True), (30, 1, 1, True), (30, 5, 5, True),
    # One-trial history cannot tell trial noise from run noise: the claim for five trials is
    # an upper bound (caught at least four times in five).
    (30, 1, 5, False)])
def test_the_smallest_change_is_caught_four_times_in_five(
        runs: int, history_trials: int, trials: int, exact: bool) -> None:
    """Simulated histories (each run: a 1 % run-level shift, then trials spreading by 5 %)
    and candidates shifted by the smallest change the window claims: caught about 80 % of
    the time (within the simulation's error); and the bound is where p crosses the level."""
    rng = np.random.default_rng(runs * 100 + history_trials * 10 + trials)
    level, caught, tries = 0.01, 0, 400

    def run(count: int, shift: float = 0.0) -> list[float]:
        return list(math.exp(rng.normal(0, 0.01)) * rng.lognormal(0, 0.05, count) * (1 + shift))

    for _ in range(tries):
        stats = window_stats([run(history_trials) for _ in range(runs)])
        assert stats is not None
        caught += window_test(stats, run(trials, smallest_change(stats, trials, level)),
                              "lower").p_worse <= level
    assert caught / tries >= 0.72 and (caught / tries <= 0.88 or not exact)
    stats = window_stats([run(1) for _ in range(runs)])
    assert isinstance(stats, WindowStats)
    edge = bound(stats, 1, level, "lower")
    assert window_test(stats, [edge * 1.0001], "lower").p_worse < level
    assert window_test(stats, [edge * 0.9999], "lower").p_worse > level


def test_a_long_stable_history_does_not_drift() -> None:
    """100 one-trial runs of a stable benchmark (2 % spread): each window of the last 30 runs
    keeps its centre within 1 % of the true median."""
    rng = np.random.default_rng(11)
    values = rng.lognormal(math.log(500_000), 0.02, 100)
    for end in range(30, 101):
        stats = window_stats(_one_trial_runs(values[end - 30:end]))
        assert stats is not None
        assert abs(stats.centre / 500_000 - 1) < 0.01, end


@pytest.mark.parametrize("trials", [1, 3, 5])
def test_trial_noise_of_normal_trials_is_the_variance_of_their_median(trials: int) -> None:
    """Normal trials (5 % spread): the trial noise a median of 1, 3, 5 trials carries is the
    variance of the median of that many normal values, 1, 0.4487 and 0.2868 x sigma^2 (the
    order statistics' known values, e.g. Teichroew 1956); a mean's would be 1/3 and 1/5."""
    rng = np.random.default_rng(trials)
    stats = window_stats([list(rng.lognormal(0, 0.05, 5)) for _ in range(2000)])
    assert stats is not None
    known = {1: 1.0, 3: 0.4487, 5: 0.2868}[trials]
    assert stats.trial_noise(trials) / 0.05 ** 2 == pytest.approx(known, rel=0.04)


@pytest.mark.parametrize(("tail", "exact"), [(0.03, True), (0.10, False)])
def test_heavy_tailed_trials_are_judged_as_medians(tail: float, exact: bool) -> None:
    """Trials whose p99 now and then lands far off (a `tail` share of trials 40 % higher, the
    rest spreading by 2 %), five-trial runs against windows of 20 such runs. Unchanged, a run
    fails at most about 1 % of the time (the test's level). With a rare tail (3 %) the median
    of five discards it: the smallest change the window claims is caught about four times in
    five, and is under 0.7 of what the trials' variance over five (a mean's) would claim.
    With a common one (10 %, five trials of a run often hold two or three far off) a median
    moves with it, and the claim is an upper bound: caught more often, never falsely more
    often (taking the runs' spread alone fails unchanged runs 2.5 % of the time here)."""
    rng = np.random.default_rng(29)
    level, tries, false_alarms, caught = 0.01, 1000, 0, 0

    def run(shift: float = 0.0) -> list[float]:
        tails = np.where(rng.random(5) < tail, 1.4, 1.0)
        return list(rng.lognormal(0, 0.02, 5) * tails * (1 + shift))

    claims, means = [], []
    for _ in range(tries):
        stats = window_stats([run() for _ in range(20)])
        assert stats is not None
        false_alarms += window_test(stats, run(), "lower").p_worse <= level
        claims.append(smallest_change(stats, 5, level))
        caught += window_test(stats, run(claims[-1]), "lower").p_worse <= level
        reach = scipy_stats.t.ppf(1 - level, 19) + scipy_stats.t.ppf(0.8, 19)
        means.append(math.exp(reach * math.sqrt(
            max(stats.spread ** 2, stats.within ** 2 / 5) + stats.spread ** 2 / 20)) - 1)
    assert scipy_stats.binomtest(false_alarms, tries, level, "greater").pvalue > 0.001, (
        false_alarms)
    assert caught / tries >= 0.72 and (caught / tries <= 0.88 or not exact), (caught, false_alarms)
    if exact:
        assert statistics.median(claims) < 0.7 * statistics.median(means), (
            statistics.median(claims), statistics.median(means))


def test_counts_without_spread_fail_only_past_the_smallest_change_that_matters() -> None:
    """Instruction counts (gungraun) repeat to the instruction: a window of them has no
    spread, so any change is certain, and the project's `min_effect` alone decides which
    fail (5 % by default; a team gating on counts lowers it)."""
    from datetime import UTC, datetime

    from latlab.analysis.baselines import HistoryRun
    from latlab.analysis.gate import Window, judge_window
    from latlab.analysis.thresholds import DEFAULT
    from latlab_contract.vocabulary import MetricInfo

    runs = [HistoryRun(i, f"c{i}", datetime(2026, 1, 1 + i, tzinfo=UTC), [2462.0])
            for i in range(10)]
    stats = window_stats([run.values for run in runs])
    assert stats is not None and stats.spread == stats.within == 0.0
    assert smallest_change(stats, 1, 0.01) == 0.0
    assert window_test(stats, [2462.0], "lower").p_worse == 0.5  # no change: no side
    assert window_test(stats, [2463.0], "lower").p_worse == 0.0  # one more: certainly more
    info = MetricInfo(name="instructions", unit="count", direction="lower", label="Ir")
    window = Window("main", runs, stats)

    def verdict(count: float, min_effect: float) -> str:
        limits = dataclasses.replace(DEFAULT, min_effect=min_effect)
        return judge_window([({"benchmark": "b"}, info, (count,))], [window], limits).verdict

    assert verdict(2462 * 1.01, DEFAULT.min_effect) == "pass"  # under 5 %
    assert verdict(2462 * 1.06, DEFAULT.min_effect) == "fail"
    assert verdict(2462 * 1.01, 0.005) == "fail"  # a project that gates on 0.5 %
    assert verdict(2462 * 0.99, 0.005) == "pass"  # fewer instructions never fail
