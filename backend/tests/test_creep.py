"""A slow creep in a series' history (issue 47, item 3): p99 rising 111 -> 182 µs over 7 runs
in steps the gate lets through opens one creep alert, through the api; a flat noisy history
opens none; a recovered series resolves it; a step is the change point's alert, not a creep.
The Mann-Kendall test behind it is checked against scipy."""

import math

import numpy as np
import pytest
from scipy.stats import kendalltau

from latlab.analysis import creep
from latlab.models import Scope
from tests.factories import one_series, result, submit

SERIES = "http-order/medium [client=go]"
# One trial's latency shape, scaled so that its nearest-rank p99 is exactly 1.
_SHAPE = np.sort(np.random.default_rng(5).lognormal(0.0, 0.3, 2000))
SHAPE = _SHAPE / _SHAPE[math.ceil(0.99 * len(_SHAPE)) - 1]


def _submit(client, headers, index: int, p99_ns: float) -> dict:
    """A one-trial run on main whose p99 is `p99_ns`."""
    document = result(series=one_series([
        {"latency": {"samples_ns": np.rint(SHAPE * p99_ns).astype(np.int64).tolist()}}],
        client="go"),
        started_at=f"2026-11-{1 + index // 10:02d}T{10 + index % 10}:00:00Z",
        commit=f"{index:04x}c0ffee")
    return submit(client, document, headers)


def _alerts(client) -> list[dict]:
    items: list[dict] = client.get("/api/v1/alerts", params={"limit": 200}).json()["items"]
    return items


def test_a_creep_of_64_percent_over_7_runs_opens_one_alert_and_recovery_resolves_it(
        client, actors) -> None:
    """Each run passes or is inconclusive against its window and the history is too short for
    a change point: the creep alert is the one alert raised."""
    actors.login(client)
    headers = actors.token(Scope.runs_write, Scope.read)
    rng = np.random.default_rng(47)
    steps = [111_000 * (182 / 111) ** (i / 6) * math.exp(rng.normal(0, 0.02))
             for i in range(7)]
    runs = [_submit(client, headers, i, p99) for i, p99 in enumerate(steps)]
    assert {r["verdict"] for r in runs} <= {"pass", "inconclusive", "no-baseline"}, runs
    (alert,) = _alerts(client)
    assert (alert["kind"], alert["metric"], alert["state"]) == ("creep", "p99", "open")
    assert alert["series_labels"] == {"client": "go"} and alert["severity"] == "warning"
    assert alert["message"].startswith(f"{SERIES}: p99 crept +"), alert["message"]
    assert "over its last 7 runs on main" in alert["message"]
    assert alert["run_id"] == runs[-1]["id"] and alert["baseline_run_id"] == runs[0]["id"]
    assert alert["value"] / alert["baseline_value"] > 1.4  # thirds' medians: 115 -> 175 µs
    for i in range(7, 10):
        _submit(client, headers, i, 111_000 * math.exp(rng.normal(0, 0.02)))
    (after,) = _alerts(client)
    assert after["id"] == alert["id"] and after["state"] == "resolved", after
    assert after["resolution"].startswith("recovered in run")


def test_a_flat_noisy_history_of_30_runs_opens_no_alert(client, actors) -> None:
    actors.login(client)
    headers = actors.token(Scope.runs_write, Scope.read)
    rng = np.random.default_rng(3)
    for i in range(30):
        _submit(client, headers, i, 111_000 * math.exp(rng.normal(0, 0.05)))
    assert _alerts(client) == []


@pytest.mark.parametrize("alternative", ["greater", "less"])
def test_the_trend_p_value_is_scipys_kendall_tau_against_run_order(alternative) -> None:
    """Exact without ties, the tie-corrected normal approximation with them."""
    rng = np.random.default_rng(11)
    tied_checked = 0
    for n in (4, 6, 7, 10, 19, 30, 45):
        for _ in range(20):
            values = rng.normal(0, 1, n) + rng.uniform(-0.2, 0.2) * np.arange(n)
            exact = kendalltau(np.arange(n), values, alternative=alternative, method="exact")
            assert creep.trend_p(values, alternative) == pytest.approx(exact.pvalue,
                                                                         rel=1e-9, abs=1e-15)
            tied = np.round(values * 2) / 2
            if len(np.unique(tied)) in (1, n):
                continue  # no ties after all, or only one value (scipy's p is nan)
            approximate = kendalltau(np.arange(n), tied, alternative=alternative,
                                     method="asymptotic")
            assert creep.trend_p(tied, alternative) == pytest.approx(approximate.pvalue,
                                                                       rel=1e-9)
            tied_checked += 1
    assert tied_checked > 100


def test_a_creep_is_a_significant_trend_the_bad_way_by_at_least_the_minimum_effect() -> None:
    rising = [100.0, 101.0, 103.0, 104.0, 106.0, 108.0, 109.0, 111.0, 112.0]

    def detect(values: list[float], direction="lower", min_effect=0.05, alpha=0.01):
        return creep.detect(values, direction, min_effect=min_effect, alpha=alpha)

    found = detect(rising)
    assert found is not None and found.runs == 9
    assert (found.before, found.after) == (np.median(rising[:3]), np.median(rising[-3:]))
    assert found.p_value == pytest.approx(
        kendalltau(np.arange(9), rising, alternative="greater").pvalue)
    assert detect(rising, "higher") is None  # a throughput rising is getting better
    assert detect(rising[::-1], "higher") is not None
    assert detect(rising, "none") is None
    assert detect(rising, min_effect=0.15) is None  # +9.9 %: under the minimum effect
    assert detect(rising[:5]) is None  # too few runs
    unsteady = [100.0, 104.0, 102.0, 115.0, 101.0, 114.0, 99.0, 113.0, 110.0]  # +7.8 %
    assert detect(unsteady, alpha=0.2) is None  # p = 0.38


def test_a_step_is_the_change_points_alert_not_a_creep(client, actors) -> None:
    """A step of +25 % after 15 flat runs: its change point opens the one open alert; a creep
    opened before the change point was found is resolved, naming the shift."""
    actors.login(client)
    headers = actors.token(Scope.runs_write, Scope.read)
    rng = np.random.default_rng(25)
    runs = [_submit(client, headers, i, 111_000 * (1.25 if i >= 15 else 1.0)
                    * math.exp(rng.normal(0, 0.03))) for i in range(25)]
    alerts = _alerts(client)
    (shift,) = [a for a in alerts if a["state"] != "resolved"]
    assert shift["kind"] == "change-point" and shift["run_id"] == runs[15]["id"], alerts
    for crept in (a for a in alerts if a["kind"] == "creep"):
        assert crept["resolution"] == (f"a shift at run {runs[15]['id']}: its change-point "
                                       "alert names it"), crept
