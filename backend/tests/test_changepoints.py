"""E-Divisive change points on synthetic histories."""

import numpy as np

from latlab.analysis.changepoints import detect


def _noise(seed: int, n: int = 100, level: float = 100.0) -> np.ndarray:
    return np.random.default_rng(seed).normal(level, level * 0.01, n)


def test_a_5_percent_step_is_found_at_its_index() -> None:
    series = _noise(1)
    series[60:] *= 1.05
    found = detect(series)
    assert [c.index for c in found] == [60]
    assert 4 < found[0].delta_pct < 6 and found[0].p_value <= 0.01


def test_noise_alone_raises_at_most_one_false_change_in_50_series() -> None:
    assert sum(len(detect(_noise(1000 + seed))) for seed in range(50)) <= 1


def test_two_steps_are_both_found() -> None:
    series = _noise(2)
    series[30:] *= 1.06
    series[70:] /= 1.06
    assert [c.index for c in detect(series)] == [30, 70]


def test_small_shifts_and_short_series_are_not_change_points() -> None:
    series = _noise(3)
    series[50:] *= 1.01  # real, but under the 3 % minimum effect
    assert detect(series) == []
    assert detect([1.0, 2.0, 3.0, 100.0, 100.0, 100.0]) == []
