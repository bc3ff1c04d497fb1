"""E-Divisive change points on synthetic histories."""

import time

import numpy as np

from latlab.analysis.changepoints import _q_statistics, detect


def _noise(seed: int, n: int = 100, level: float = 100.0) -> list[float]:
    return [float(v) for v in np.random.default_rng(seed).normal(level, level * 0.01, n)]


def _stepped(seed: int, steps: dict[int, float], n: int = 100) -> list[float]:
    series = np.array(_noise(seed, n))
    for index, factor in steps.items():
        series[index:] *= factor
    return [float(v) for v in series]


def test_a_5_percent_step_is_found_at_its_index() -> None:
    found = detect(_stepped(1, {60: 1.05}))
    assert len(found) == 1
    assert abs(found[0].index - 60) <= 1
    delta = found[0].delta_pct
    assert delta is not None and 4 < delta < 6 and found[0].p_value <= 0.01
    assert found[0].before < found[0].after


def test_a_step_is_found_whatever_the_noise_seed() -> None:
    for seed in range(10):
        assert [abs(c.index - 40) <= 1 for c in detect(_stepped(seed, {40: 0.95}))] == [True]


def test_noise_alone_raises_at_most_one_false_change_in_50_series() -> None:
    assert sum(len(detect(_noise(1000 + seed))) for seed in range(50)) <= 1


def test_two_steps_are_both_found() -> None:
    found = detect(_stepped(2, {30: 1.06, 70: 1 / 1.06}))
    assert len(found) == 2
    assert abs(found[0].index - 30) <= 1 and abs(found[1].index - 70) <= 1
    assert (found[0].delta_pct or 0) > 0 > (found[1].delta_pct or 0)


def test_small_shifts_are_not_change_points() -> None:
    assert detect(_stepped(3, {50: 1.01})) == []  # real, but under the 3 % minimum effect
    assert len(detect(_stepped(3, {50: 1.01}), min_effect=0.005)) == 1


def test_a_small_shift_does_not_hide_a_large_one() -> None:
    found = detect(_stepped(4, {20: 1.02, 80: 1.08}))
    assert [abs(c.index - 80) <= 1 for c in found] == [True]


def test_short_series_have_no_change_points() -> None:
    assert detect([1.0, 2.0, 3.0, 100.0, 100.0, 100.0]) == []
    assert detect([100.0] * 5 + [200.0] * 4) == []
    assert detect([]) == []
    assert detect([100.0] * 10) == []


def test_segments_are_never_shorter_than_the_minimum() -> None:
    found = detect(_stepped(5, {3: 1.2, 97: 1.2}))
    assert all(5 <= c.index <= 95 for c in found)


def test_the_same_seed_gives_the_same_answer() -> None:
    series = _stepped(6, {50: 1.03})
    assert detect(series, seed=7) == detect(series, seed=7)


def test_the_statistic_matches_the_definition() -> None:
    values = np.array(_stepped(8, {12: 1.1}, n=25))
    distances = np.abs(values[:, None] - values[None, :])
    q = _q_statistics(distances[None], 5)[0]
    n = len(values)
    for offset, tau in enumerate(range(5, n - 4)):
        x, y = values[:tau], values[tau:]
        energy = (2 * np.abs(x[:, None] - y[None, :]).mean()
                  - np.abs(x[:, None] - x[None, :]).mean()
                  - np.abs(y[:, None] - y[None, :]).mean())
        assert np.isclose(q[offset], len(x) * len(y) / n * energy)


def test_100_points_take_well_under_a_second() -> None:
    noise, stepped = _noise(9), _stepped(9, {50: 1.05})
    started = time.perf_counter()
    detect(noise)
    detect(stepped)
    assert time.perf_counter() - started < 1.0
