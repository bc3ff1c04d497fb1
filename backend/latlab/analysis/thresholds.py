"""How the CI gate judges a project's runs: the window's size, the test, the chance of a false
alarm it allows and the smallest change it fails on, set per project, suite and scenario
(`PUT /gate-settings`); what is not set keeps the lab's default.

- `t` (the default): Student's t prediction test of the candidate against its window;
- `z`: the same with the normal distribution's quantiles (Bencher's z-score), which trusts a
  small window's spread more than it should;
- `percentage`: fails when the candidate is `percentage` worse than the window's centre,
  whatever the spread (Bencher's percentage model).

`max_error_rate` is the share of a series' operations its harness may count as failed
before the run fails as `errors` (default 1 %).

A fixed limit (`p99 < 2 ms`) is an SLA rule (`/sla-rules`), not a gate setting.

The creep alert (`analysis.creep`) reads the same settings: it tests the newest `window` runs
of main at the `false_alarm` level, and a creep under `min_effect` is none.
"""

from dataclasses import dataclass, replace
from typing import Any, Literal

Test = Literal["t", "z", "percentage"]


@dataclass(frozen=True)
class Thresholds:
    window: int = 30  # runs a window holds at most
    test: Test = "t"
    false_alarm: float = 0.01  # the chance an unchanged run fails, over its gated metrics
    min_effect: float = 0.05  # smaller changes never fail
    percentage: float = 0.1  # with test `percentage`: the change that fails
    # The share of a series' operations that may fail (as its harness counted them) before the
    # run fails the gate as `errors`, unless the submission says errors are expected.
    max_error_rate: float = 0.01


DEFAULT = Thresholds()


def effective(settings: dict[str, Any], suite: str, scenario: str) -> Thresholds:
    """The thresholds of a run of `suite` and `scenario` in a project with `settings`
    ({"default": {...}, "suites": {"suite": {...}, "suite/scenario": {...}}}): the lab's
    defaults, then the project's, the suite's and the scenario's."""
    found = DEFAULT
    suites = settings.get("suites") or {}
    for layer in (settings.get("default"), suites.get(suite), suites.get(f"{suite}/{scenario}")):
        if layer:
            found = replace(found, **{k: v for k, v in layer.items() if v is not None})
    return found
