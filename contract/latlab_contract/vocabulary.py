"""latlab's metric vocabulary, defined once, below everything: the result contract, the
adapters, the runners and the api import it, and the dashboard reads it (`GET /vocabulary`).

A metric has a unit and a direction (which way is better) and may have a label. Latency is
summarised by the same keys everywhere, in this order; time units are multiples of a
nanosecond; the CI gate judges p99 and throughput unless a suite or harness says otherwise.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, StringConstraints

from latlab_contract.fields import NO_NUL

Direction = Literal["lower", "higher", "none"]

# Time units as tools and people write them, in nanoseconds.
TIME_UNITS: dict[str, float] = {"ns": 1.0, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9,
                                "min": 60e9}

# A latency summary's percentiles by key, and all its keys in the order they are shown.
SUMMARY_PERCENTILES: dict[str, float] = {
    "p50": 50.0, "p90": 90.0, "p95": 95.0, "p99": 99.0, "p999": 99.9, "p9999": 99.99,
}
LATENCY_KEYS = (*SUMMARY_PERCENTILES, "min", "max", "mean", "stddev")
LATENCY_LABELS = {
    "p50": "P50", "p90": "P90", "p95": "P95", "p99": "P99", "p999": "P99.9",
    "p9999": "P99.99", "min": "min", "max": "max", "mean": "mean", "stddev": "stddev (jitter)",
}

# What the CI gate judges when neither a suite nor a harness names its own headline.
DEFAULT_GATE = ("p99", "throughput")

# A tail percentile needs this many samples beyond it to be trusted (P99.9 of 5,000 rests
# on 5).
MIN_TAIL_SAMPLES = 10


class MetricSpec(BaseModel):
    """What a metric means: its unit and which way is better (and how people call it)."""

    model_config = ConfigDict(extra="forbid")

    unit: Annotated[str, StringConstraints(max_length=32, pattern=NO_NUL)]
    direction: Direction
    label: Annotated[str, StringConstraints(max_length=100, pattern=NO_NUL)] | None = None


class MetricInfo(MetricSpec):
    """A metric's spec as the api lists it: with its name, and a label to show."""

    name: str
    label: str


# Metrics any suite may report; a suite declares the others in its suite.toml, and a submission
# may declare its own (`metric_info`): see `Vocabulary`.
GENERIC: dict[str, MetricInfo] = {
    **{key: MetricInfo(name=key, label=label, unit="ns", direction="lower")
       for key, label in LATENCY_LABELS.items()},
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
        """This vocabulary with more declared metrics ({name: {unit, direction, label}}); one
        declared without a label keeps the label it had (a generic metric's), else its name."""
        added = {name: MetricInfo(name=name, label=spec.get("label") or self.info(name).label,
                                  unit=spec["unit"], direction=spec["direction"])
                 for name, spec in specs.items()}
        return Vocabulary({**self.declared, **added})


def tail_reliable(count: int, percentile: float, min_beyond: int = MIN_TAIL_SAMPLES) -> bool:
    """Whether at least `min_beyond` samples lie beyond the percentile (P99.9 of 5,000
    samples rests on 5 values: not a number to trust)."""
    # The tolerance keeps 1,000 samples at P99 (exactly 10 beyond) from failing on rounding.
    return count * (1.0 - percentile / 100.0) >= min_beyond - 1e-9


def quantity(value: float, unit: str | None) -> str:
    """A value as people write it: nanoseconds in the largest fitting unit (1.23 ms), any other
    unit after the number."""
    if unit == "ns":
        for scale, name in ((1e9, "s"), (1e6, "ms"), (1e3, "µs")):
            if abs(value) >= scale:
                return f"{value / scale:.3g} {name}"
        return f"{value:.0f} ns"
    return f"{value:,.4g} {unit or ''}".strip()
