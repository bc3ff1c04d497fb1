"""A latency distribution in the result contract: the histogram or samples of a trial, the
statistics its harness printed (`Reported`, checked to be those of one distribution), and
its windows over time (`Interval`)."""

import itertools
from typing import Annotated

from pydantic import Field, StringConstraints, model_validator

from latlab_contract.fields import HIGHEST_NS, MAX_SAMPLES, Contract, Count, LatencyNs, NonNegative
from latlab_contract.vocabulary import SUMMARY_PERCENTILES

ReportedNs = Annotated[float, Field(allow_inf_nan=False, ge=0, le=HIGHEST_NS)]
_ROUNDING = 5e-3


class Reported(Contract):
    """A distribution's statistics as the harness printed them, in nanoseconds (k6's p(95),
    wrk2's 99.000%, pytest-benchmark's median). The trial's summary shows these as the tool's
    own; its other statistics come from the distribution."""

    min: ReportedNs | None = None
    max: ReportedNs | None = None
    mean: ReportedNs | None = None
    stddev: ReportedNs | None = None
    p50: ReportedNs | None = None
    p90: ReportedNs | None = None
    p95: ReportedNs | None = None
    p99: ReportedNs | None = None
    p999: ReportedNs | None = None
    p9999: ReportedNs | None = None

    @model_validator(mode="after")
    def ordered(self) -> "Reported":
        problem = order_problem(self.model_dump(exclude_none=True))
        if problem is not None:
            raise ValueError(f"the reported {problem}")
        return self


def order_problem(summary: dict[str, float]) -> str | None:
    """What breaks min <= p50 <= ... <= p99.99 <= max, the mean between min and max, in a
    summary's statistics (those present), or None. Each comparison allows what printing
    moves a value by: 0.5 % (a tool prints at least three significant digits; wrk2 prints
    1.42s beside a max of 1.41767 s) and 1 ns (samples are whole nanoseconds)."""
    order = [(key, value) for key in ("min", *SUMMARY_PERCENTILES, "max")
             if (value := summary.get(key)) is not None]
    for (below, below_value), (above, above_value) in itertools.pairwise(order):
        if below_value > _printed(above_value):
            return f"{below} ({below_value:g} ns) is above the {above} ({above_value:g} ns)"
    mean, least, most = summary.get("mean"), summary.get("min"), summary.get("max")
    if mean is not None and not ((least or 0.0) <= _printed(mean)
                                 and (most is None or mean <= _printed(most))):
        return f"mean ({mean:g} ns) is outside min .. max"
    return None


def _printed(value: float) -> float:
    """The most a value printed as `value` can have been."""
    return value * (1 + _ROUNDING) + 1.0


class Latency(Contract):
    """A latency distribution in integer nanoseconds: an HdrHistogram or the raw samples."""

    hdr: Annotated[str, StringConstraints(min_length=1, max_length=16_000_000)] | None = Field(
        None, description="Standard compressed HdrHistogram V2, base64."
    )
    samples_ns: Annotated[list[LatencyNs], Field(min_length=1, max_length=MAX_SAMPLES)] | None = (
        None
    )
    reported: Reported | None = Field(
        None, description="Statistics the harness printed itself; they are the trial's "
        "summary where given.")
    rebuilt: bool = Field(
        False, description="The histogram was rebuilt from a percentile spectrum the harness "
        "printed: its values between the printed percentiles are interpolated.")
    resolution_ns: Annotated[int, Field(ge=1, le=1_000_000_000)] | None = Field(
        None, description="The step the harness prints values in (ApacheBench: 1 ms): a value "
        "of 0 means under it.")

    @model_validator(mode="after")
    def exactly_one(self) -> "Latency":
        if (self.hdr is None) == (self.samples_ns is None):
            raise ValueError("give exactly one of 'hdr' or 'samples_ns'")
        return self


class Interval(Contract):
    """Latency over time: one window of a trial."""

    t_s: NonNegative = Field(description="The window's start, seconds since the trial's.")
    length_s: NonNegative | None = None
    count: Count
    p50: NonNegative | None = None
    p90: NonNegative | None = None
    p99: NonNegative | None = None
    p999: NonNegative | None = None
    max: NonNegative | None = None
    hdr: Annotated[str, StringConstraints(min_length=1, max_length=1_000_000)] | None = Field(
        None, description="The window's own histogram (compressed HdrHistogram V2, base64, ns), "
        "kept so that the trial exports as an HdrHistogram interval log.")
