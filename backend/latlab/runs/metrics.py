"""What latlab knows about metrics: their unit and which way is better.

The dashboard takes units and directions from here (through the API), never guesses them.
"""

from typing import Literal

from pydantic import BaseModel

Direction = Literal["lower", "higher", "none"]


class MetricInfo(BaseModel):
    name: str
    label: str
    unit: str
    direction: Direction


LATENCY_KEYS = ("p50", "p90", "p95", "p99", "p999", "p9999", "min", "max", "mean", "stddev")

_LATENCY_LABELS = {
    "p50": "P50", "p90": "P90", "p95": "P95", "p99": "P99", "p999": "P99.9",
    "p9999": "P99.99", "min": "min", "max": "max", "mean": "mean", "stddev": "stddev (jitter)",
}

KNOWN: dict[str, MetricInfo] = {
    **{k: MetricInfo(name=k, label=v, unit="ns", direction="lower")
       for k, v in _LATENCY_LABELS.items()},
    "count": MetricInfo(name="count", label="samples", unit="count", direction="none"),
    "throughput": MetricInfo(name="throughput", label="throughput", unit="req/s",
                             direction="higher"),
    "success_rate": MetricInfo(name="success_rate", label="success rate", unit="ratio",
                               direction="higher"),
    "errors": MetricInfo(name="errors", label="errors", unit="count", direction="lower"),
    "timeouts": MetricInfo(name="timeouts", label="timeouts", unit="count", direction="lower"),
    "memory_mb": MetricInfo(name="memory_mb", label="memory", unit="MB", direction="lower"),
    "peak_rss_mb": MetricInfo(name="peak_rss_mb", label="peak RSS", unit="MB",
                              direction="lower"),
    "gc_pause_ms": MetricInfo(name="gc_pause_ms", label="GC pauses", unit="ms",
                              direction="lower"),
    "ok": MetricInfo(name="ok", label="ok", unit="count", direction="higher"),
    "target_rate": MetricInfo(name="target_rate", label="target rate", unit="req/s",
                              direction="none"),
    "achieved_rate": MetricInfo(name="achieved_rate", label="achieved rate", unit="req/s",
                                direction="higher"),
    "messages_per_s": MetricInfo(name="messages_per_s", label="messages", unit="msg/s",
                                 direction="higher"),
}


def info(name: str) -> MetricInfo:
    """A metric's unit and direction; an unknown metric is shown as is, with no direction."""
    return KNOWN.get(name) or MetricInfo(name=name, label=name, unit="", direction="none")


def quantity(value: float, unit: str | None) -> str:
    """A value as people write it: nanoseconds in the largest fitting unit (1.23 ms), any other
    unit after the number."""
    if unit == "ns":
        for scale, name in ((1e9, "s"), (1e6, "ms"), (1e3, "µs")):
            if abs(value) >= scale:
                return f"{value / scale:.3g} {name}"
        return f"{value:.0f} ns"
    return f"{value:,.4g} {unit or ''}".strip()
