"""What the benchmark-harness adapters share: reading JSON with paths in errors, time units,
metric names and specs, and latency built from what a harness reports.

Latency from a harness is one of three kinds, and each adapter says which it gives:
- the samples themselves (`samples_ns`, exact): per-round times of pytest-benchmark,
  per-sample times of Criterion, per-iteration scores of JMH;
- a histogram (`hdr`): JMH SampleTime, HdrHistogram logs;
- a percentile spectrum (wrk2's `--latency`, k6's trend stats, pytest-benchmark without its
  data): rebuilt by `spectrum` / `cumulative`, each printed point at its rank and the
  values between interpolated on one rising curve that keeps the tool's mean where it
  printed one (marked `rebuilt`), with the statistics the tool printed kept
  as it printed them (`reported`): the trial's p95 is the tool's p95, never a neighbour's.
"""

import json
import math
import re
import statistics
from collections.abc import Callable, Iterable
from fractions import Fraction
from functools import partial
from typing import Any

from hdrh.histogram import HdrHistogram

from latlab_contract import hdr
from latlab_contract.fields import HIGHEST_NS, MAX_COUNT
from latlab_contract.latency import Latency, Reported
from latlab_contract.parsers.base import ParseError
from latlab_contract.result import Failures, TrialIn
from latlab_contract.vocabulary import SUMMARY_PERCENTILES, TIME_UNITS, Direction, MetricSpec

NS_PER_OP = MetricSpec(unit="ns/op", direction="lower", label="time per op")
OPS_PER_S = MetricSpec(unit="ops/s", direction="higher", label="ops per second")
BYTES_PER_OP = MetricSpec(unit="B/op", direction="lower", label="bytes allocated per op")
MB_PER_S = MetricSpec(unit="MB/s", direction="higher", label="MB per second")
# The load generators' (wrk, wrk2, oha, vegeta).
REQUESTS = MetricSpec(unit="count", direction="none", label="requests")
REQUESTS_PER_S = MetricSpec(unit="req/s", direction="higher", label="requests per second")
TRANSFER_PER_S = MetricSpec(unit="B/s", direction="none", label="transfer")


def load_json(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise ParseError(f"line {error.lineno}: not JSON ({error.msg})") from error


def load_object(text: str) -> dict[str, Any]:
    """A harness's JSON document whose root (`$`) is an object."""
    document: dict[str, Any] = checked(load_json(text), "$", dict)
    return document


def benchmark_results(document: dict[str, Any], key: str) -> list[Any]:
    """`document[key]`, the list of a harness's benchmark results: not an empty one."""
    results: list[Any] = member(document, key, "$", list)
    if not results:
        raise ParseError(f"$.{key}: no benchmark results")
    return results


def member(document: Any, key: str | int, path: str, kind: type | tuple[type, ...]) -> Any:
    """`document[key]`, checked to be of `kind`; the error names the JSON path."""
    where = f"{path}[{key}]" if isinstance(key, int) else f"{path}.{key}"
    try:
        value = document[key]
    except (KeyError, IndexError, TypeError):
        raise ParseError(f"{where}: missing") from None
    return checked(value, where, kind)


def named(document: Any, key: str, path: str) -> str:
    """A benchmark's name, `document[key]`: a string that is not empty (the error names the
    path and the rule)."""
    name: str = member(document, key, path, str)
    if not name.strip():
        raise ParseError(f"{path}.{key}: an empty name (a benchmark is named)")
    return name


def no_negative(value: Any, path: str, tool: str) -> None:
    """For a tool that prints no negative number anywhere (times, rates, counts, bytes: oha,
    vegeta): refuse one, naming its path, in what the lab does not read too."""
    if isinstance(value, dict):
        for key, item in value.items():
            no_negative(item, f"{path}.{key}", tool)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            no_negative(item, f"{path}[{index}]", tool)
    elif isinstance(value, int | float) and not isinstance(value, bool) and value < 0:
        raise ParseError(f"{path}: {value} is negative: {tool} prints no negative time, rate "
                         "or count")


def list_of(value: Any, where: str, kind: type | tuple[type, ...]) -> list[Any]:
    """`value`, a list whose items are each of `kind`; an error names the item's path."""
    return [checked(item, f"{where}[{index}]", kind)
            for index, item in enumerate(checked(value, where, list))]


def checked(value: Any, where: str, kind: type | tuple[type, ...]) -> Any:
    number = kind in (float, (int, float))
    if number and isinstance(value, int | float) and not isinstance(value, bool):
        if not math.isfinite(value):
            raise ParseError(f"{where}: not a finite number")
        return value
    if not number and isinstance(value, kind) and not isinstance(value, bool):
        return value
    expected = "a number" if number else getattr(kind, "__name__", str(kind))
    raise ParseError(f"{where}: expected {expected}, got {json.dumps(value)[:80]}")


def ns(value: float, unit: str, where: str) -> int:
    """A time in `unit` as integer nanoseconds."""
    return round(duration_ns(value, unit, where))


def duration_ns(value: float, unit: str, where: str) -> float:
    """A time in `unit` in nanoseconds, unrounded (a tool's own statistic, kept as
    printed)."""
    if unit not in TIME_UNITS:
        raise ParseError(f"{where}: unknown time unit '{unit}'")
    if not math.isfinite(value):
        raise ParseError(f"{where}: {value} is not a finite number")
    result = value * TIME_UNITS[unit]
    if not 0 <= result < HIGHEST_NS + 0.5:
        raise ParseError(f"{where}: latency {value} {unit} is outside 0 .. 1 h")
    return result


# The summary statistics a tool computes from the values it exports, as it computes them: the
# median averages the middle two, the standard deviation is the sample's (n - 1; 0 of one).
SAMPLE_STATISTICS: dict[str, tuple[str, Callable[[list[float]], float]]] = {
    "min": ("the least", min), "max": ("the greatest", max),
    "mean": ("the mean", statistics.fmean), "median": ("the median", statistics.median),
    "stddev": ("the sample standard deviation (n - 1)",
               lambda values: statistics.stdev(values) if len(values) > 1 else 0.0)}


def statistics_agree(stated: dict[str, tuple[str, float]], values: list[float], *, of: str,
                     unit: str, source: str, tolerance: float, floor: float) -> None:
    """Refuses a tool's statistics that are not those of the values it exported (`of` names
    them): `stated` holds, for each of `SAMPLE_STATISTICS` the tool wrote, its path and value;
    a value may differ from the lab's computation by `tolerance` of it plus `floor` (printing,
    doubles)."""
    for name, (path, value) in stated.items():
        rule, compute = SAMPLE_STATISTICS[name]
        computed = compute(values)
        if abs(value - computed) > tolerance * abs(computed) + floor:
            raise ParseError(f"{path}: {value:g} {unit} contradicts {source}: {rule} of {of} "
                             f"is {computed:g} {unit}")


def fail_every_series(trial_lists: Iterable[list[TrialIn]], failures: Failures) -> None:
    """A run's failures (benchmarks that measured nothing, so have no series of their own) on
    every series, once: on its last trial."""
    for trials in trial_lists:
        trials[-1] = trials[-1].model_copy(update={"failures": failures})


def samples(values: Iterable[int], where: str) -> Latency:
    listed = list(values)
    if not listed:
        raise ParseError(f"{where}: no samples")
    return Latency(samples_ns=listed)


def timed(value: Any, where: str, unit: str) -> tuple[list[float], Latency]:
    """The times in `unit` a harness recorded, a list at `where`: as it wrote them, and as a
    trial's latency (each in whole nanoseconds)."""
    times: list[float] = list_of(value, where, float)
    return times, samples((ns(time, unit, f"{where}[{index}]")
                           for index, time in enumerate(times)), where)


def one_figure(value_ns: float, where: str) -> Latency:
    """The latency of a trial a harness reports as one figure (go test's mean ns/op, libtest's
    median ns/iter), not a distribution: that figure as one sample in whole nanoseconds, and
    exactly as printed as the trial's summary (a 0.7798 ns/op trial shows p50 0.7798, not 1)."""
    return Latency(samples_ns=[ns(value_ns, "ns", where)], reported=Reported(
        min=value_ns, max=value_ns, mean=value_ns, stddev=0.0, p50=value_ns, p90=value_ns,
        p95=value_ns, p99=value_ns, p999=value_ns, p9999=value_ns))


def histogram(values: Iterable[tuple[int, int]], where: str) -> Latency:
    """Latency from (value in ns, count) pairs."""
    return Latency(hdr=_built(hdr.from_counts, values, where))


def spectrum(points: Iterable[tuple[float, float]], count: int, where: str, *,
             mean: float | None = None, stddev: float | None = None) -> Latency:
    """Latency of `count` values rebuilt from (percentile 0..100, value in ns) points a tool
    printed: each point at its nearest rank, the values between on one rising curve
    (`hdr.rebuilt`), chosen, when the tool printed its mean, so that the histogram keeps that
    mean. Without a 0 % point (the tool printed no minimum) and with a mean, the ranks below
    the first point run from 0, the least a latency can be, up to it. The printed points that
    are summary statistics (min, p50 .. p99.99, max) and the tool's mean and standard
    deviation are the trial's summary (`reported`)."""
    if not 1 <= count <= MAX_COUNT:
        raise ParseError(f"{where}: a count of {count} requests is outside 1 .. {MAX_COUNT:,}")
    listed = sorted(points)
    ranked = []
    for percentile, value in listed:
        if not 0.0 <= percentile <= 100.0:
            raise ParseError(f"{where}: percentile {percentile} is outside 0 .. 100")
        ranked.append((max(1, math.ceil(Fraction(repr(percentile)) * count / 100)),
                       round(value)))
    no_min = mean is not None and all(percentile > 0.0 for percentile, _ in listed)
    return cumulative(ranked, where, reported(listed, mean=mean, stddev=stddev),
                      floor=0 if no_min else None)


def cumulative(points: Iterable[tuple[int, int]], where: str,
               printed: Reported | None = None, *, floor: int | None = None) -> Latency:
    """Latency rebuilt from (values so far, value in ns) points, such as HdrHistogram's
    percentile output (its TotalCount column): the values counted between two points are
    on a rising curve between their values (`hdr.rebuilt`), exact at every point, and the
    histogram's mean is the tool's where it printed one (`printed.mean`). The ranks below the
    first point take its value, or run up to it from `floor`."""
    mean = None if printed is None else printed.mean
    return Latency(hdr=_built(partial(hdr.rebuilt, mean=mean, floor=floor), points, where),
                   reported=printed, rebuilt=True)


def reported(points: Iterable[tuple[float, float]], *, mean: float | None = None,
             stddev: float | None = None) -> Reported:
    """The summary statistics among (percentile, value in ns) points a tool printed."""
    keys = {0.0: "min", 100.0: "max", **{q: key for key, q in SUMMARY_PERCENTILES.items()}}
    found: dict[str, float] = {keys[q]: value for q, value in points if q in keys}
    if mean is not None:
        found["mean"] = mean
    if stddev is not None:
        found["stddev"] = stddev
    return Reported.model_validate(found)


def _built(build: Callable[[Iterable[tuple[int, int]]], HdrHistogram],
           pairs: Iterable[tuple[int, int]], where: str) -> str:
    """The encoded histogram `build` makes of the pairs; its errors named at `where`."""
    try:
        built = build(pairs)
    except hdr.HdrError as error:
        raise ParseError(f"{where}: {error}") from error
    if built.get_total_count() == 0:
        raise ParseError(f"{where}: no samples")
    return hdr.encode(built)


def metric_name(text: str) -> str:
    """A metric or label key from a harness's name: `p(95)` -> `p95`, `B/op` -> `B_per_op`."""
    name = text.replace("/", "_per_").replace("(", "").replace(")", "")
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_.-")
    if not name or not (name[0].isalpha() or name[0] == "_"):
        name = f"m_{name}"
    return name[:64]


def spec_for_unit(unit: str, label: str | None = None) -> MetricSpec:
    """A metric's spec from its unit: costs per operation are lower-better, operations per
    time higher-better; of other units (an allocation rate, a count) no direction is known."""
    direction: Direction = "none"
    if unit.endswith("/op"):
        direction = "lower"
    elif unit.startswith("ops/"):
        direction = "higher"
    return MetricSpec(unit=unit[:32], direction=direction, label=label)
