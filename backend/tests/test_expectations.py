"""An experiment's expectations: parsed from their text, judged from trials as holds, does
not hold or not decided, with the interval and the distance from the bound the trials could
decide; intervals checked against a bootstrap written here with numpy."""

import numpy as np
import pytest

from latlab.analysis.expectations import Term, judge, parse, parse_derived
from latlab.analysis.stats import median_interval


def _trials(centre: float, spread: float, n: int, seed: int) -> list[float]:
    return list(centre * np.random.default_rng(seed).lognormal(0.0, spread, n))


def test_the_forms_of_an_expectation_parse() -> None:
    ratio = parse("p50(tuned) <= 0.5 * p50(baseline-128k)")
    assert (ratio.left, ratio.op, ratio.factor, ratio.right) == (
        Term("p50", "tuned"), "<=", 0.5, Term("p50", "baseline-128k"))
    axis = parse("throughput(zig) >= throughput(go) for concurrency <= 100")
    assert axis.factor == 1.0 and axis.where == ("concurrency", "<=", 100.0)
    assert axis.applies({"concurrency": 100}) and not axis.applies({"concurrency": 1000})
    assert not axis.applies({}) and not axis.applies({"concurrency": "100"})
    bound = parse("p95(reqrep) <= 500 ms")
    assert (bound.right, bound.bound, bound.unit) == (None, 500.0, "ms")
    assert parse("cpu(sync) < 80").unit is None


@pytest.mark.parametrize(("text", "says"), [
    ("p50 tuned <= 2", "is not an expectation"),
    ("p50(a) <= 0.5 * p99(b)", "one metric in two series"),
    ("p50(a) <= 2 * p50(a)", "two series"),
    ("p50(a) <= 0 * p50(b)", "positive"),
    ("p95(a) <= 500 furlongs", "unknown unit"),
    ("p50(a) => p50(b)", "is not an expectation"),
])
def test_a_malformed_expectation_says_what_is_wrong(text: str, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        parse(text)


def test_a_ratio_holds_does_not_hold_or_is_not_decided() -> None:
    tuned, before = _trials(100.0, 0.03, 10, 1), _trials(300.0, 0.03, 10, 2)
    trials = {Term("p50", "tuned"): tuned, Term("p50", "before"): before}
    holds = judge(parse("p50(tuned) <= 0.5 * p50(before)"), trials)
    assert holds.outcome == "holds"
    assert holds.value == pytest.approx(np.median(tuned) / np.median(before))
    assert holds.interval is not None and holds.interval[1] <= 0.5
    assert "all of the interval <= 0.5" in holds.reason
    fails = judge(parse("p50(tuned) <= 0.3 * p50(before)"), trials)
    assert fails.outcome == "does-not-hold" and fails.interval[0] > 0.3
    assert judge(parse("p50(tuned) >= 0.5 * p50(before)"), trials).outcome == "does-not-hold"
    # Right at the bound, the interval straddles it: how close the trials could decide.
    near = judge(parse("p50(tuned) <= 0.333 * p50(before)"), trials)
    assert near.outcome == "not-decided" and near.interval[0] < 0.333 < near.interval[1]
    assert near.decidable == pytest.approx((near.interval[1] - near.interval[0]) / 2 / 0.333)
    assert "straddles 0.333" in near.reason


def test_too_few_trials_decide_nothing() -> None:
    trials = {Term("p99", "a"): [1.0], Term("p99", "b"): [2.0, 2.1, 2.2]}
    judged = judge(parse("p99(a) <= p99(b)"), trials)
    assert (judged.outcome, judged.interval) == ("not-decided", None)
    assert "1 trial of p99(a) and 3 of p99(b)" in judged.reason
    assert judge(parse("p99(missing) <= 3 ms"), trials, "ns").outcome == "not-decided"


def test_a_bound_converts_time_units_to_the_metric_s() -> None:
    values = _trials(420e6, 0.02, 8, 3)  # about 420 ms, in ns
    trials = {Term("p95", "reqrep"): values}
    assert judge(parse("p95(reqrep) <= 500 ms"), trials, "ns").outcome == "holds"
    assert judge(parse("p95(reqrep) <= 0.4 s"), trials, "ns").outcome == "does-not-hold"
    assert judge(parse("p95(reqrep) > 400000 us"), trials, "ns").outcome == "holds"
    with pytest.raises(ValueError, match="measured in ops/s"):
        judge(parse("p95(reqrep) <= 500 ms"), trials, "ops/s")


def test_the_median_s_interval_agrees_with_a_numpy_bootstrap() -> None:
    for n in (5, 10, 40):
        values = _trials(1000.0, 0.1, n, n)
        resampled = np.median(np.random.default_rng(11).choice(values, (40_000, n)), axis=1)
        reference = np.percentile(resampled, [2.5, 97.5])
        low, high = median_interval(values)
        width = reference[1] - reference[0]
        assert abs(low - reference[0]) <= 0.1 * width and abs(high - reference[1]) <= (
            0.1 * width), (n, (low, high), reference)


def test_a_derived_metric_divides_or_multiplies_by_a_numeric_param() -> None:
    per_device = parse_derived("messages_per_s / devices")
    assert (str(per_device), per_device.unit("msg/s")) == (
        "messages_per_s / devices", "msg/s / devices")
    assert per_device.values([1000.0, 2000.0], {"devices": "10"}) == [100.0, 200.0]
    assert parse_derived("p50*connections").values([2.0], {"connections": 3}) == [6.0]
    for params in ({}, {"devices": "many"}, {"devices": True}, {"devices": 0}):
        with pytest.raises(ValueError, match="devices"):
            per_device.values([1.0], params)
    with pytest.raises(ValueError, match="not a derived metric"):
        parse_derived("messages_per_s / 10")
