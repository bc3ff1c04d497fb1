"""A job's estimate: the suite's trial-time expression (parsed, never run as code) over the
series its axes expand into."""

import pytest

from latlab_contract.estimate import EstimateError, Expression, series_contexts, trials_s
from latlab_workers.suites import load_suites


@pytest.mark.parametrize("text", [
    "__import__('os').system('true')",  # a call that is not max, min or count
    "duration.real",                   # attributes
    "[duration]",                       # anything but arithmetic
    "duration ** 99",                   # powers
    "lambda: 1",
    "True",
    "0 < duration < 9",                 # chained comparisons
])
def test_an_expression_is_arithmetic_only(text: str) -> None:
    with pytest.raises(EstimateError):
        Expression(text)


def test_an_expression_reads_params_as_numbers_and_texts() -> None:
    expression = Expression('window * 2 + 1 if load == "ab" else max(window, count(loads))')
    assert expression.seconds({"window": "3", "load": "ab", "loads": "ab,hdr"}) == 7
    assert expression.seconds({"window": 1, "load": "hdr", "loads": "ab,hdr,x"}) == 3
    with pytest.raises(EstimateError, match="no param 'window'"):
        expression.seconds({"load": "ab"})
    with pytest.raises(EstimateError, match="not a duration"):
        Expression("0 - window").seconds({"window": 5})
    with pytest.raises(EstimateError, match="division"):
        Expression("1 / window").seconds({"window": 0})


def test_the_estimate_expands_the_axes_as_the_runner_does() -> None:
    """For every scenario of every shipped suite, and the same with each axis param given as
    a list: as many contexts as the runner's plan has series, with the same axis values."""
    for suite in load_suites().values():
        axes = suite.info().axes
        for name in suite.scenarios:
            params = suite.resolved_params(name, {})
            plans = suite.plan(params)
            contexts = series_contexts(axes, params)
            assert len(contexts) == len(plans), (suite.id, name)
            for plan, context in zip(plans, contexts, strict=True):
                assert {k: str(context[k]) for k in plan.labels} == plan.labels
            one = suite.trials_s(params, 1)
            assert one is not None and one > 0, (suite.id, name)  # every shipped suite has one
            assert suite.trials_s(params, 3) == pytest.approx(3 * one)


def test_the_trials_of_a_job_add_up_per_series() -> None:
    axes = {"devices": "devices", "mode": ["actor", "sync"]}
    params = {"devices": [1, 10], "messages": 100}
    # 2 device counts x 2 modes, each trial `messages * devices / 100 + 1` s, 3 trials.
    assert trials_s("messages * devices / 100 + 1", series_contexts(axes, params),
                    3) == 3 * 2 * (2 + 11)


def test_a_suite_whose_estimate_fails_at_a_scenario_does_not_load(tmp_path) -> None:
    from latlab_workers.suites import SuiteError, load_suite

    folder = tmp_path / "slow"
    folder.mkdir()
    (folder / "suite.toml").write_text("""
format = 2
id = "slow"
description = "a suite whose estimate reads a param it lacks"

[programs.load]
role = "load"
command = ["true"]
output = "latlab-json"

[estimate]
trial_s = "window + 1"

[scenarios.default]
""")
    with pytest.raises(SuiteError, match=r"estimate\.trial_s at scenario 'default': .*no param"):
        load_suite(folder)


def test_a_suite_names_its_lightest_scenario_by_its_own_estimate() -> None:
    suites = load_suites()
    http_order = suites["http-order"].info()
    assert next(iter(http_order.scenarios)) == "steady"  # listed first, and long
    assert http_order.lightest() == "small"
    assert suites["echo"].info().lightest() == "default"
    unestimated = http_order.model_copy(update={"trial_s": None})
    assert unestimated.lightest() is None and unestimated.estimate_s([{}], 1) is None
