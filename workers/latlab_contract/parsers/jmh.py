"""JMH's JSON results (`-rf json`), every mode.

A benchmark in one mode with one set of `@Param` values is a series (labels `benchmark`,
`mode` and each param); each fork is a trial. Latency per trial:
- SampleTime (`sample`): the fork's sampled operation times (`rawDataHistogram`), whole;
- AverageTime, SingleShotTime: each measurement iteration's time per operation;
- Throughput: each iteration's time per operation, 1 / its throughput.
The fork's mean score is `ns_per_op` (time modes) or `ops_per_s` (throughput), and each
secondary metric (`-prof gc`: `gc.alloc.rate.norm` in B/op, ...) the mean of the fork's
iterations. SampleTime's per-iteration percentiles (`p0.50`, ...) are left out: the
histogram has them.
"""

import re
import statistics
from typing import Any

from pydantic import ValidationError

from latlab_contract.parsers.base import ParseContext, Parsed, ParseError, validation_message
from latlab_contract.parsers.harness import (
    NS_PER_OP,
    OPS_PER_S,
    checked,
    histogram,
    load_json,
    member,
    metric_name,
    ns,
    samples,
    spec_for_unit,
)
from latlab_contract.result import Latency, SeriesIn, TrialIn
from latlab_contract.vocabulary import TIME_UNITS, MetricSpec

_TIME_MODES = ("avgt", "sample", "ss")
_PERCENTILE = re.compile(r"^p\d(\.\d+)?$")


def parse(text: str, context: ParseContext) -> Parsed:
    document = load_json(text)
    checked(document, "$", list)
    if not document:
        raise ParseError("$: no benchmark results")
    info: dict[str, MetricSpec] = {}
    series = []
    for index, result in enumerate(document):
        path = f"$[{index}]"
        checked(result, path, dict)
        mode = member(result, "mode", path, str)
        if mode not in (*_TIME_MODES, "thrpt"):
            raise ParseError(f"{path}.mode: unknown mode '{mode}'")
        params = result.get("params") or {}
        checked(params, f"{path}.params", dict)
        labels = {"benchmark": member(result, "benchmark", path, str), "mode": mode,
                  **{metric_name(key): str(value) for key, value in params.items()}}
        trials = _trials(result, mode, path, info)
        try:
            series.append(SeriesIn(labels=labels, trials=trials))
        except ValidationError as error:
            raise ParseError(f"{path}: {validation_message(error)}") from error
    # The headline of each mode: ops/s for throughput, ns/op for the others (and p99 where
    # SampleTime kept its histogram).
    return Parsed(series=series, metric_info=info,
                  gate=[name for name in ("ops_per_s", "ns_per_op") if name in info])


def _trials(result: dict[str, Any], mode: str, path: str,
            info: dict[str, MetricSpec]) -> list[TrialIn]:
    primary = member(result, "primaryMetric", path, dict)
    where = f"{path}.primaryMetric"
    unit = member(primary, "scoreUnit", where, str)
    raw = "rawDataHistogram" if mode == "sample" else "rawData"
    read = _sampled if mode == "sample" else _iterations
    forks = [read(fork, unit, mode, f"{where}.{raw}[{f}]")
             for f, fork in enumerate(member(primary, raw, where, list))]
    if not forks:
        raise ParseError(f"{where}.{raw}: no forks")
    headline = "ops_per_s" if mode == "thrpt" else "ns_per_op"
    info[headline] = OPS_PER_S if mode == "thrpt" else NS_PER_OP
    secondary = result.get("secondaryMetrics") or {}
    checked(secondary, f"{path}.secondaryMetrics", dict)
    trials = []
    for f, (latency, mean) in enumerate(forks):
        metrics = {headline: _headline(mean, unit, mode, f"{where}.scoreUnit")}
        for name, metric in secondary.items():
            key = metric_name(name.lstrip("·:"))
            # SampleTime's percentiles: `p0.50`, or `checksum·p0.50` before JMH 1.37
            if mode == "sample" and _PERCENTILE.match(name.rsplit("·", 1)[-1]):
                continue
            at = f"{path}.secondaryMetrics[{name!r}]"
            values = member(member(metric, "rawData", at, list), f, f"{at}.rawData", list)
            if not values:
                continue  # JMH leaves a fork's list empty when it measured nothing
            metrics[key] = statistics.fmean(checked(v, f"{at}.rawData[{f}]", float)
                                            for v in values)
            info[key] = spec_for_unit(member(metric, "scoreUnit", at, str), name)
        try:
            trials.append(TrialIn(latency=latency, metrics=metrics))
        except ValidationError as error:
            raise ParseError(f"{where}: fork {f}: {validation_message(error)}") from error
    return trials


def _iterations(fork: Any, unit: str, mode: str, where: str) -> tuple[Latency, float]:
    """A fork's iteration scores: their times per operation, and their mean score."""
    scores = [checked(score, f"{where}[{i}]", float)
              for i, score in enumerate(checked(fork, where, list))]
    if not scores:
        raise ParseError(f"{where}: no iterations")
    return (samples((_per_op_ns(score, unit, mode, where) for score in scores), where),
            statistics.fmean(scores))


def _sampled(fork: Any, unit: str, mode: str, where: str) -> tuple[Latency, float]:
    """A fork's sampled times (per iteration, [value, count] pairs): the histogram of all,
    and their mean."""
    pairs: list[tuple[float, int]] = []
    for i, iteration in enumerate(checked(fork, where, list)):
        for j, pair in enumerate(checked(iteration, f"{where}[{i}]", list)):
            at = f"{where}[{i}][{j}]"
            if len(checked(pair, at, list)) != 2:
                raise ParseError(f"{at}: expected [value, count]")
            pairs.append((checked(pair[0], at, float), int(checked(pair[1], at, float))))
    total = sum(count for _, count in pairs)
    if total < 1:
        raise ParseError(f"{where}: no samples")
    latency = histogram(((_per_op_ns(value, unit, mode, where), count)
                         for value, count in pairs), where)
    return latency, sum(value * count for value, count in pairs) / total


def _time_unit(unit: str, mode: str, where: str) -> str:
    """The time unit of a score unit: `us/op` (time modes) or `ops/us` (throughput)."""
    time_unit = unit.removeprefix("ops/") if mode == "thrpt" else unit.removesuffix("/op")
    if time_unit not in TIME_UNITS or time_unit == unit:
        raise ParseError(f"{where}: unknown score unit '{unit}' for mode {mode}")
    return time_unit


def _per_op_ns(score: float, unit: str, mode: str, where: str) -> int:
    time_unit = _time_unit(unit, mode, where)
    if mode == "thrpt":
        if score <= 0:
            raise ParseError(f"{where}: a throughput of {score} has no time per operation")
        return ns(1.0 / score, time_unit, where)
    return ns(score, time_unit, where)


def _headline(mean: float, unit: str, mode: str, where: str) -> float:
    scale = TIME_UNITS[_time_unit(unit, mode, where)]
    return mean * 1e9 / scale if mode == "thrpt" else mean * scale
