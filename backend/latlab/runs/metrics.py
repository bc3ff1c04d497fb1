"""What latlab knows about metrics: their unit and which way is better.

The dashboard takes units and directions from here (through the API), never guesses them.
Only generic metrics are listed here; suites declare their own.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel

Direction = Literal["lower", "higher", "none"]


class MetricInfo(BaseModel):
    name: str
    label: str
    unit: str
    direction: Direction


# Time units a value or a threshold may be written in, as multiples of a nanosecond.
TIME_UNITS: dict[str, float] = {"ns": 1.0, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9}

LATENCY_KEYS = ("p50", "p90", "p95", "p99", "p999", "p9999", "min", "max", "mean", "stddev")

_LATENCY_LABELS = {
    "p50": "P50", "p90": "P90", "p95": "P95", "p99": "P99", "p999": "P99.9",
    "p9999": "P99.99", "min": "min", "max": "max", "mean": "mean", "stddev": "stddev (jitter)",
}

# Metrics any suite may report; a suite declares the others in its suite.toml, and a submission
# may declare its own (`metric_info`): see `Vocabulary`.
GENERIC: dict[str, MetricInfo] = {
    **{k: MetricInfo(name=k, label=v, unit="ns", direction="lower")
       for k, v in _LATENCY_LABELS.items()},
    "count": MetricInfo(name="count", label="samples", unit="count", direction="none"),
    "throughput": MetricInfo(name="throughput", label="throughput", unit="req/s",
                             direction="higher"),
    "success_rate": MetricInfo(name="success_rate", label="success rate", unit="ratio",
                               direction="higher"),
    "errors": MetricInfo(name="errors", label="errors", unit="count", direction="lower"),
    "timeouts": MetricInfo(name="timeouts", label="timeouts", unit="count", direction="lower"),
    "peak_rss_mb": MetricInfo(name="peak_rss_mb", label="peak RSS", unit="MB",
                              direction="lower"),
}


@dataclass(frozen=True)
class Vocabulary:
    """The metrics one run may carry: the generic ones, overridden by what its suite declares
    and then by what the submission itself declares."""

    declared: Mapping[str, MetricInfo] = field(default_factory=dict)

    def info(self, name: str) -> MetricInfo:
        """A metric's unit and direction; an unknown one is shown as is, with no direction."""
        return (self.declared.get(name) or GENERIC.get(name)
                or MetricInfo(name=name, label=name, unit="", direction="none"))

    def extended(self, specs: Mapping[str, Any]) -> "Vocabulary":
        """This vocabulary with more declared metrics ({name: {unit, direction, label}})."""
        added = {name: MetricInfo(name=name, label=spec.get("label") or name,
                                  unit=spec["unit"], direction=spec["direction"])
                 for name, spec in specs.items()}
        return Vocabulary({**self.declared, **added})


def quantity(value: float, unit: str | None) -> str:
    """A value as people write it: nanoseconds in the largest fitting unit (1.23 ms), any other
    unit after the number."""
    if unit == "ns":
        for scale, name in ((1e9, "s"), (1e6, "ms"), (1e3, "µs")):
            if abs(value) >= scale:
                return f"{value / scale:.3g} {name}"
        return f"{value:.0f} ns"
    return f"{value:,.4g} {unit or ''}".strip()
