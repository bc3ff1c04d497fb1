"""JMH's JSON results (`-rf json`), every mode.

A benchmark in one mode with one set of `@Param` values is a series (labels `benchmark`,
`mode` and each param); each fork is a trial. Latency per trial:
- SampleTime (`sample`): the fork's sampled operation times (`rawDataHistogram`), whole;
- AverageTime, SingleShotTime: each measurement iteration's time per operation;
- Throughput: each iteration's time per operation, 1 / its throughput.
The fork's mean score is `ns_per_op` (time modes) or `ops_per_s` (throughput), and each
secondary metric (`-prof gc`: `gc.alloc.rate.norm` in B/op, ...) the mean of the fork's
iterations. SampleTime's per-iteration percentiles (`p0.50`, ...) are left out: the
histogram has them. JMH's `scoreError` (the half-width of its 99.9 % confidence interval over
all forks' iterations; the string "NaN" when it has too few) is `ns_per_op_error` or
`ops_per_s_error`, in the headline's unit, on each fork's trial.

Failures: a fork that failed leaves no data, so a benchmark with fewer forks in its raw data
than its `forks` gets `failures` (the failed forks of the forks asked for) on its first
trial. A benchmark whose every fork failed is not in the file at all (the console prints
`<failure>`), and with `-foe true` JMH leaves the file empty: refused, saying so.
The JVM each benchmark ran in (`vmName`, `jdkVersion`, `vmVersion`, `jvm`, `jvmArgs`) and
`jmhVersion` are the run's context.

Refused, naming the JSON path: a fork without iterations, negative times, throughputs that
are not positive, and a `score` that is not the mean of its own raw data.
"""

import re
import statistics
from typing import Any

from pydantic import ValidationError

from latlab_contract.fields import Scalar
from latlab_contract.latency import Latency
from latlab_contract.parsers.base import ParseContext, Parsed, ParseError, validation_message
from latlab_contract.parsers.harness import (
    NS_PER_OP,
    OPS_PER_S,
    checked,
    histogram,
    list_of,
    load_json,
    member,
    metric_name,
    named,
    ns,
    samples,
    spec_for_unit,
)
from latlab_contract.result import Failures, SeriesIn, TrialIn
from latlab_contract.vocabulary import TIME_UNITS, MetricSpec

_TIME_MODES = ("avgt", "sample", "ss")
_PERCENTILE = re.compile(r"^p\d(\.\d+)?$")
# The run's context from each benchmark's JVM fields: (context key, JMH's key).
_CONTEXT = (("jvm", "vmName"), ("jvm_version", "jdkVersion"), ("vm_version", "vmVersion"),
            ("jvm_path", "jvm"), ("jvm_args", "jvmArgs"), ("tool_version", "jmhVersion"))
# How far `score` may be from the mean of its raw data: both are f64 sums of the same values.
_AGREEMENT = 1e-6


def parse(text: str, context: ParseContext) -> Parsed:
    if not text.strip():
        raise ParseError("line 1: empty: JMH leaves its result file empty when a benchmark "
                         "fails and -foe true stops the run (its console output says which)")
    document = load_json(text)
    checked(document, "$", list)
    if not document:
        raise ParseError("$: no benchmark results")
    info: dict[str, MetricSpec] = {}
    series = []
    machine, notes = _machine(document)
    for index, result in enumerate(document):
        path = f"$[{index}]"
        checked(result, path, dict)
        mode = member(result, "mode", path, str)
        if mode not in (*_TIME_MODES, "thrpt"):
            raise ParseError(f"{path}.mode: unknown mode '{mode}'")
        params = result.get("params") or {}
        checked(params, f"{path}.params", dict)
        labels = {"benchmark": named(result, "benchmark", path), "mode": mode,
                  **{metric_name(key): str(value) for key, value in params.items()}}
        trials = _trials(result, mode, path, info)
        try:
            series.append(SeriesIn(labels=labels, trials=trials))
        except ValidationError as error:
            raise ParseError(f"{path}: {validation_message(error)}") from error
    # The headline of each mode: ops/s for throughput, ns/op for the others (and p99 where
    # SampleTime kept its histogram).
    return Parsed(series=series, metric_info=info,
                  gate=[name for name in ("ops_per_s", "ns_per_op") if name in info],
                  context=machine, notes=notes)


def _machine(document: list[Any]) -> tuple[dict[str, Scalar], list[str]]:
    """The JVM the benchmarks ran in, as JMH wrote it for each; a field that differs between
    benchmarks (`@Fork(jvmArgsAppend = ...)`) is left out and noted."""
    machine: dict[str, Scalar] = {}
    notes = []
    for key, field_name in _CONTEXT:
        values = []
        for result in document:
            value = result.get(field_name) if isinstance(result, dict) else None
            if isinstance(value, list):
                value = " ".join(str(part) for part in value)
            if isinstance(value, str) and value not in values:
                values.append(value)
        if len(values) == 1:
            if values[0] or key == "jvm_args":
                machine[key] = values[0][:500]
        elif values:
            notes.append(f"JMH's {field_name} differs between benchmarks "
                         f"({', '.join(repr(v[:80]) for v in values[:3])}): not in the run's "
                         "context")
    return machine, notes


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
    score = member(primary, "score", where, float)
    mean = sum(fork_mean * weight for _, fork_mean, weight in forks) / sum(
        weight for _, _, weight in forks)
    if abs(score - mean) > _AGREEMENT * abs(mean) + 1e-12:
        raise ParseError(f"{where}.score: {score:g} {unit} contradicts its raw data: the mean "
                         f"of {raw} is {mean:g} {unit}")
    headline = "ops_per_s" if mode == "thrpt" else "ns_per_op"
    info[headline] = OPS_PER_S if mode == "thrpt" else NS_PER_OP
    shared = {}
    error = primary.get("scoreError")
    if error != "NaN" and error is not None:  # JMH writes "NaN" when it has too few values
        if checked(error, f"{where}.scoreError", float) < 0:
            raise ParseError(f"{where}.scoreError: {error:g} is negative (it is a half-width)")
        shared[f"{headline}_error"] = _headline(error, unit, mode, f"{where}.scoreUnit")
        info[f"{headline}_error"] = info[headline].model_copy(update={
            "direction": "none", "label": "JMH's score error (99.9 % confidence half-width)"})
    failures = _failed_forks(result, len(forks), path, raw)
    secondary = result.get("secondaryMetrics") or {}
    checked(secondary, f"{path}.secondaryMetrics", dict)
    trials = []
    for f, (latency, fork_mean, _) in enumerate(forks):
        metrics = {headline: _headline(fork_mean, unit, mode, f"{where}.scoreUnit"), **shared}
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
            trials.append(TrialIn(latency=latency, metrics=metrics,
                                  failures=failures if f == 0 else None))
        except ValidationError as problem:
            raise ParseError(f"{where}: fork {f}: {validation_message(problem)}") from problem
    return trials


def _failed_forks(result: dict[str, Any], measured: int, path: str,
                  raw: str) -> Failures | None:
    """The forks JMH asked for (`forks`; 0 runs in its own JVM, one set of data) that left no
    data: each failed (JMH printed `<failure>` and went on)."""
    if "forks" not in result:
        return None
    asked = int(member(result, "forks", path, float))
    if asked <= measured:
        return None
    failed = asked - measured
    return Failures(failed=failed, total=asked, detail=(
        f"{failed} of {asked} JMH forks failed ({path}.primaryMetric.{raw} has "
        f"{measured}): see <failure> in JMH's console output"))


def _iterations(fork: Any, unit: str, mode: str, where: str) -> tuple[Latency, float, int]:
    """A fork's iteration scores: their times per operation, their mean score and their
    count."""
    scores: list[float] = list_of(fork, where, float)
    if not scores:
        raise ParseError(f"{where}: no iterations")
    return (samples((_per_op_ns(score, unit, mode, where) for score in scores), where),
            statistics.fmean(scores), len(scores))


def _sampled(fork: Any, unit: str, mode: str, where: str) -> tuple[Latency, float, int]:
    """A fork's sampled times (per iteration, [value, count] pairs): the histogram of all,
    their mean and their count."""
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
    return latency, sum(value * count for value, count in pairs) / total, total


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
