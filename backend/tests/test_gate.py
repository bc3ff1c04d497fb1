"""The CI gate: Holm's correction over every judged metric of a run, inconclusive when the
trials cannot test a change, and a regression failing only when measured with enough trials."""

import numpy as np
import pytest
from scipy.stats import mannwhitneyu

from latlab.analysis.compare import MetricComparison, RunComparison, SeriesComparison
from latlab.analysis.gate import (
    CONFIRM_TRIALS,
    MAX_CONFIRM_TRIALS,
    _holm_levels,
    confirmation_trials,
    judge,
)
from latlab.analysis.stats import compare
from tests.factories import trial_values

GATE = ("p99", "throughput")


def _comparison(series: list[dict[str, tuple[list[float], list[float]]]]) -> RunComparison:
    compared = []
    for index, metrics in enumerate(series):
        item = SeriesComparison({"client": str(index)}, index, index, {}, {})
        for name, (before, after) in metrics.items():
            direction = "higher" if name == "throughput" else "lower"
            item.metrics.append(MetricComparison(
                name, name, "", direction, compare(before, after, direction), tuple(before),
                tuple(after)))
        compared.append(item)
    return RunComparison(None, None, compared, [], [], [])  # type: ignore[arg-type]


def test_holm_steps_down_as_the_textbook_does() -> None:
    # Holm (1979): at 0.05, 0.005 <= 0.0125 and 0.01 <= 0.0167 pass; 0.03 > 0.025 stops.
    levels = _holm_levels([0.01, 0.04, 0.03, 0.005], 0.05)
    assert [passed for _, passed in levels] == [True, False, False, True]
    assert [level for level, _ in levels] == pytest.approx([0.05 / 3, 0.05, 0.05 / 2, 0.05 / 4])


def test_a_tested_regression_fails_only_with_enough_trials() -> None:
    rng = np.random.default_rng(1)
    for n, verdict, kind in ((5, "inconclusive", "suspected-regression"),
                             (CONFIRM_TRIALS, "fail", "regression")):
        base = trial_values(rng, n, 100.0)
        result = judge(_comparison([{"p99": (base, [v * 1.3 for v in base]),
                                     "throughput": (base, base)}]), GATE)
        assert result.verdict == verdict, result.reasons
        assert [r["kind"] for r in result.reasons] == [kind]


def test_too_few_trials_for_the_corrected_level_is_inconclusive_and_says_how_many() -> None:
    rng = np.random.default_rng(2)
    base = trial_values(rng, 5, 100.0)
    five_clients = [{"p99": (base, [v * 1.3 for v in base]), "throughput": (base, base)}
                    for _ in range(5)]
    result = judge(_comparison(five_clients), GATE)
    # 10 judged metrics: Holm's first level is 0.005, below 5 vs 5 trials' smallest p 0.0079.
    assert result.verdict == "inconclusive"
    assert {r["kind"] for r in result.reasons} == {"too-few-trials"}
    assert "needs 6 trials a side" in result.reasons[0]["message"]


def test_improvements_and_unjudged_metrics_pass() -> None:
    rng = np.random.default_rng(3)
    base = trial_values(rng, CONFIRM_TRIALS, 100.0)
    better = judge(_comparison([{"p99": (base, [v * 0.7 for v in base]),
                                 "p50": (base, [v * 2 for v in base])}]), GATE)
    assert better.verdict == "pass" and better.reasons == []
    assert [j.outcome for j in better.judged] == ["improved"]
    assert judge(None, GATE).verdict == "no-baseline"


def test_an_unchanged_run_rarely_fails_however_many_metrics_are_judged() -> None:
    """A/A: 400 runs of 5 series, p99 and throughput each, 10 vs 10 noisy trials (sigma 5 %,
    so a 5 % median shift is common). Holm keeps the false-fail rate near or under 5 %;
    without the correction it would be several times that."""
    rng = np.random.default_rng(4)
    fails = 0
    for _ in range(400):
        series = [{name: (trial_values(rng, 10, 100.0, 0.08), trial_values(rng, 10, 100.0, 0.08))
                   for name in GATE} for _ in range(5)]
        fails += judge(_comparison(series), GATE).verdict == "fail"
    assert fails <= 30, fails  # 7.5 %: the binomial's upper bound for 5 % at 400 runs


def test_a_run_the_lab_can_measure_again_is_suspected_unless_a_slowdown_is_ruled_out() -> None:
    """Five noisy trials cannot test an 8 % slowdown: a CI submission passes (nothing is
    tested), a lab job's run is suspected and will be confirmed, as is one 10 % faster (its
    noise cannot rule out a slowdown either); five quiet trials rule one out, unless the run
    got worse."""
    rng = np.random.default_rng(5)
    base = trial_values(rng, 5, 100.0, 0.2)
    slower = _comparison([{"p99": (base, [v * 1.08 for v in base]),
                           "throughput": (base, base)}])
    ci = judge(slower, GATE)
    assert ci.verdict == "pass" and ci.suspected == [], ci.reasons
    lab = judge(slower, GATE, confirmable=True)
    assert lab.verdict == "inconclusive"
    assert {r["metric"] for r in lab.reasons} == {"p99", "throughput"}
    reason = next(r for r in lab.reasons if r["metric"] == "p99")
    assert reason["kind"] == "suspected-regression"
    assert "rose 8.0 %" in reason["message"]
    assert "too few trials to rule out a 7.5 % change for the worse" in reason["message"]
    # The lab says how it will confirm it (`ingest.service`); a CI run's fixed ten do not apply.
    assert "confirming it takes" not in reason["message"]
    quiet = trial_values(np.random.default_rng(6), 5, 100.0, 0.01)
    for trials, factor, suspected in ((base, 0.9, True), (quiet, 1.0, False),
                                      (quiet, 0.9, False), (quiet, 1.03, True)):
        other = _comparison([{"p99": (trials, [v * factor for v in trials])}])
        assert bool(judge(other, GATE, confirmable=True).suspected) is suspected, factor


def test_a_confirmation_is_sized_by_how_the_suspected_trials_spread() -> None:
    """Quiet trials get the fewest a confirmation takes, noisy ones more (the noisier, the
    more), never more than the most it may take."""
    sizes = []
    for sigma in (0.01, 0.05, 0.08, 1.0):
        rng = np.random.default_rng(6)
        base = trial_values(rng, 5, 100.0, sigma)
        result = judge(_comparison([{"p99": (base, [v * 1.08 for v in base]),
                                     "throughput": (base, base)}]), GATE, confirmable=True)
        assert "p99" in {j.metric.metric for j in result.suspected}
        sizes.append(confirmation_trials(result))
    assert sizes[0] == CONFIRM_TRIALS and sizes[-1] == MAX_CONFIRM_TRIALS, sizes
    assert CONFIRM_TRIALS < sizes[1] < sizes[2] < MAX_CONFIRM_TRIALS, sizes


def test_a_smaller_minimum_effect_is_looked_for_with_more_trials() -> None:
    """A project's minimum effect of 3 % (instead of 5 %) makes a lab job's suspicion and its
    confirmation look for 4.5 % (1.5 x) instead of 7.5 %: the trials a normal-theory test needs
    grow with the inverse square of the change, (7.5 / 4.5)^2 = 2.8 times."""
    base = trial_values(np.random.default_rng(6), 5, 100.0, 0.05)
    slower = _comparison([{"p99": (base, [v * 1.04 for v in base]), "throughput": (base, base)}])
    default = judge(slower, GATE, confirmable=True)
    finer = judge(slower, GATE, confirmable=True, min_effect=0.03)
    assert default.suspected and finer.suspected
    ratio = confirmation_trials(finer) / confirmation_trials(default)
    assert confirmation_trials(default) > CONFIRM_TRIALS and ratio == pytest.approx(
        (0.075 / 0.045) ** 2, rel=0.1), ratio


def test_a_confirmation_tests_one_sided_and_identical_code_seldom_confirms() -> None:
    """The confirmation asks only whether the candidate is worse: 400 A/A confirmations of
    20 noisy trials a side (p99 and throughput) confirm a regression in at most about 5 %;
    a slowdown that the two-sided test leaves at p = 0.076 is tested at scipy's one-sided p."""
    rng = np.random.default_rng(7)
    confirmed = 0
    for _ in range(400):
        series = [{name: (trial_values(rng, 20, 100.0, 0.1), trial_values(rng, 20, 100.0, 0.1))
                   for name in GATE}]
        confirmed += bool(judge(_comparison(series), GATE, confirm_trials=1,
                                confirming=True).regressed)
    assert confirmed <= 30, confirmed
    rng = np.random.default_rng(8)
    base, other = trial_values(rng, 20, 100.0, 0.1), trial_values(rng, 20, 100.0, 0.1)
    slower = _comparison([{"p99": (base, [v * 1.10 for v in other])}])  # two-sided p 0.076
    two_sided = judge(slower, GATE, confirm_trials=1)
    one_sided = judge(slower, GATE, confirm_trials=1, confirming=True)
    assert one_sided.judged[0].p_value == pytest.approx(float(mannwhitneyu(
        slower.series[0].metrics[0].candidate_values, base, alternative="greater",
        method="asymptotic").pvalue))
    assert two_sided.verdict == "pass" and one_sided.verdict == "fail"
    assert "(p = 0.038 one-sided <= 0.05, 20 vs 20 trials)" in one_sided.reasons[0]["message"]
