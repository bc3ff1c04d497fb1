"""A BenchmarkDotNet benchmark's latency, for `benchmarkdotnet`: the times per operation of the
iterations it kept (the full export's Workload Result measurements, the brief export's
`Statistics.OriginalValues`), or for the 0.9.x brief export, which has neither, a latency
rebuilt through its `Percentiles`; its summary is BenchmarkDotNet's `Statistics`, checked
against those iterations: their count `N`, `Min`, `Max`, `Mean`, `Median` and
`StandardDeviation` must be BenchmarkDotNet's of them, and its percentiles must rise. What the
adapter makes of them is `benchmarkdotnet`'s.
"""

import itertools
import re
from typing import Any

from pydantic import ValidationError

from latlab_contract.fields import MAX_COUNT
from latlab_contract.latency import Latency, Reported
from latlab_contract.parsers.base import ParseError, validation_message
from latlab_contract.parsers.harness import (
    checked,
    duration_ns,
    member,
    spectrum,
    statistics_agree,
)

# Statistics printed with 17 significant digits and computed in doubles from the same
# values: what they may differ by from the lab's computation.
_AGREEMENT = 1e-9
# Its statistics by the lab's names.
_STATISTICS = {"min": "Min", "max": "Max", "mean": "Mean", "median": "Median",
               "stddev": "StandardDeviation"}


def measured_latency(bench: dict[str, Any], stats: dict[str, Any], path: str
                     ) -> tuple[Latency, float | None]:
    """The trial's latency and, from the full export, the operations of each iteration
    (None when they differ)."""
    where = f"{path}.Statistics"
    count = member(stats, "N", where, float)
    if count != int(count) or not 1 <= count <= MAX_COUNT:
        raise ParseError(f"{where}.N: {count:g} is not a count of iterations within 1 .. "
                         f"{MAX_COUNT:,}")
    summary = {name: stat_ns(stats, key, where) for name, key in _STATISTICS.items()}
    operations = None
    times: list[float] | None = None
    measurements = bench.get("Measurements")
    if measurements is not None:
        times, per_iteration = _workload_results(measurements, f"{path}.Measurements")
        if not times:
            raise ParseError(f"{path}.Measurements: no Workload Result iteration, yet "
                             f"{where}.N is {count:g}: the measurements are cut (the full "
                             "export writes every iteration)")
        operations = per_iteration[0] if len(set(per_iteration)) == 1 else None
        _agree(stats, times, where, f"{path}.Measurements (Workload Result)")
    elif stats.get("OriginalValues") is not None:
        at = f"{where}.OriginalValues"
        times = [duration_ns(checked(value, f"{at}[{i}]", float), "ns", f"{at}[{i}]")
                 for i, value in enumerate(checked(stats["OriginalValues"], at, list))]
        _agree(stats, times, where, at)
    try:
        printed = Reported(min=summary["min"], max=summary["max"], mean=summary["mean"],
                           stddev=summary["stddev"], p50=summary["median"])
    except ValidationError as error:
        raise ParseError(f"{where}: {validation_message(error)}") from error
    if times is None:
        return _rebuilt(stats, int(count), where, printed), None
    return Latency(samples_ns=[round(time) for time in times], reported=printed), operations


def _workload_results(measurements: Any, where: str) -> tuple[list[float], list[float]]:
    """The time per operation (ns) and operations of each Workload Result iteration; every
    measurement is checked."""
    times: list[float] = []
    operations: list[float] = []
    for index, measurement in enumerate(checked(measurements, where, list)):
        at = f"{where}[{index}]"
        checked(measurement, at, dict)
        mode = member(measurement, "IterationMode", at, str)
        stage = member(measurement, "IterationStage", at, str)
        count = member(measurement, "Operations", at, float)
        if count != int(count) or not 1 <= count <= MAX_COUNT:
            raise ParseError(f"{at}.Operations: {count:g} is not a count of operations within "
                             f"1 .. {MAX_COUNT:,}")
        elapsed = member(measurement, "Nanoseconds", at, float)
        if elapsed < 0:
            raise ParseError(f"{at}.Nanoseconds: {elapsed:g} is negative")
        if mode == "Workload" and stage == "Result":
            times.append(duration_ns(elapsed / count, "ns", f"{at}: Nanoseconds / Operations"))
            operations.append(count)
    return times, operations


def _agree(stats: dict[str, Any], times: list[float], where: str, source: str) -> None:
    """Refuses statistics that are not BenchmarkDotNet's of the iterations it exported: their
    count, least, greatest, mean, median and sample standard deviation (n - 1)."""
    if len(times) != stats["N"]:
        raise ParseError(f"{where}.N: {stats['N']:g} contradicts {source}: "
                         f"{len(times)} iterations")
    statistics_agree({name: (f"{where}.{key}", stats[key]) for name, key in _STATISTICS.items()},
                     times, of="their times per operation", unit="ns", source=source,
                     tolerance=_AGREEMENT, floor=1e-9)


def _rebuilt(stats: dict[str, Any], count: int, where: str, printed: Reported) -> Latency:
    """The 0.9.x brief export: the latency rebuilt through BenchmarkDotNet's percentiles."""
    percentiles = member(stats, "Percentiles", where, dict)
    points = []
    for key in percentiles:
        found = re.fullmatch(r"P(\d{1,3})", key)
        if found and int(found.group(1)) <= 100:
            points.append((float(found.group(1)),
                           stat_ns(percentiles, key, f"{where}.Percentiles")))
    if not points:
        raise ParseError(f"{where}: no OriginalValues and no Percentiles (P0 .. P100) to "
                         "rebuild the iterations from")
    points.sort()
    for (low, low_value), (high, high_value) in itertools.pairwise(points):
        if low_value > high_value:
            raise ParseError(f"{where}.Percentiles.P{low:g}: {low_value:g} ns is above its "
                             f"P{high:g} ({high_value:g} ns)")
    latency = spectrum(points, count, where, mean=printed.mean, stddev=printed.stddev)
    # spectrum's own summary would take P90 and P95 as nearest-rank percentiles.
    return latency.model_copy(update={"reported": printed})


def stat_ns(document: dict[str, Any], key: str, where: str) -> float:
    """A statistic BenchmarkDotNet wrote in ns, kept as written (refused outside 0 .. 1 h)."""
    return duration_ns(member(document, key, where, float), "ns", f"{where}.{key}")
