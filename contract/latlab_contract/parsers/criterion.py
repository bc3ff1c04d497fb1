"""Criterion.rs results: the JSON it keeps in `target/criterion/<benchmark>/new/`.

Those are three files per benchmark (Criterion 0.2 to 0.7; 0.2 writes the samples as
`[iters, times]` and capitalises the estimates' names), so the adapter reads one JSON
document that holds them:
a list of `{"benchmark": <benchmark.json>, "estimates": <estimates.json>, "sample":
<sample.json>}`. `bundle(directory)` builds it from a `target/criterion` tree (what
`latlab submit --adapter criterion target/criterion` sends).

Each benchmark is a series (label `benchmark`: Criterion's id, such as `checksum/1000`) with
one trial: its latency is the time per iteration of every sample (`times[i] / iters[i]`, in
ns), and `ns_per_iter` is Criterion's own typical time (the slope estimate, or the mean when
it sampled flat). A benchmark with a throughput (`Bytes`, `Elements`) adds `bytes_per_s` or
`elements_per_s` at that typical time. The trial's summary is Criterion's own point
estimates of those times: its mean, median and standard deviation, the sample form that
divides by n - 1 (`stats::univariate::Sample::var`), where the lab's own of exact samples
divides by n (5.1 % less at Criterion's least 10 samples).

Refused, naming the JSON path: an empty id, a typical time that is not positive (Criterion
itself stops on a sample of zero time), and estimates that contradict the samples they were
computed from (Criterion computes them in f64 from the same `times[i] / iters[i]`, so they
agree to rounding).
"""

import json
import math
import statistics
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from latlab_contract.latency import Reported
from latlab_contract.parsers.base import ParseContext, Parsed, ParseError, validation_message
from latlab_contract.parsers.harness import checked, load_json, member, ns, samples
from latlab_contract.result import SeriesIn, TrialIn
from latlab_contract.vocabulary import MetricSpec

METRIC_INFO = {
    "ns_per_iter": MetricSpec(unit="ns/iter", direction="lower", label="time per iteration"),
    "bytes_per_s": MetricSpec(unit="B/s", direction="higher", label="bytes per second"),
    "elements_per_s": MetricSpec(unit="elem/s", direction="higher",
                                 label="elements per second"),
}
_THROUGHPUT = {"Bytes": "bytes_per_s", "BytesDecimal": "bytes_per_s",
               "Elements": "elements_per_s"}
# How far an estimate may be from the lab's computation of it from the same samples: both are
# f64 sums over the same values, so they differ in the last digits only.
_AGREEMENT = 1e-6


def parse(text: str, context: ParseContext) -> Parsed:
    document = load_json(text)
    benchmarks = [document] if isinstance(document, dict) else checked(document, "$", list)
    if not benchmarks:
        raise ParseError("$: no benchmarks")
    series = []
    for index, item in enumerate(benchmarks):
        path = "$" if isinstance(document, dict) else f"$[{index}]"
        checked(item, path, dict)
        described = member(item, "benchmark", path, dict)
        full_id = member(described, "full_id", f"{path}.benchmark", str)
        if not full_id.strip():
            raise ParseError(f"{path}.benchmark.full_id: empty (a benchmark needs an id)")
        trial = _trial(item, described, path)
        try:
            series.append(SeriesIn(labels={"benchmark": full_id}, trials=[trial]))
        except ValidationError as error:
            raise ParseError(f"{path}: {validation_message(error)}") from error
    return Parsed(series=series, metric_info=METRIC_INFO, gate=["ns_per_iter"])


def bundle(directory: Path) -> str:
    """The adapter's input from a `target/criterion` tree: every benchmark's `new/` files."""
    found = sorted(path.parent for path in directory.rglob("new/benchmark.json"))
    if not found:
        raise ParseError(f"{directory}: no */new/benchmark.json (is it target/criterion?)")
    items = []
    for folder in found:
        item = {}
        for name in ("benchmark", "estimates", "sample"):
            try:
                item[name] = json.loads((folder / f"{name}.json").read_text())
            except (OSError, json.JSONDecodeError) as error:
                raise ParseError(f"{folder / name}.json: {error}") from error
        items.append(item)
    return json.dumps(items)


def _trial(item: dict[str, Any], described: dict[str, Any], path: str) -> TrialIn:
    sample = item.get("sample")
    if isinstance(sample, list):  # Criterion 0.2: [iters, times]
        if len(sample) != 2:
            raise ParseError(f"{path}.sample: expected [iters, times] or an object")
        iters = checked(sample[0], f"{path}.sample[0]", list)
        times = checked(sample[1], f"{path}.sample[1]", list)
    else:
        sample = member(item, "sample", path, dict)
        iters = member(sample, "iters", f"{path}.sample", list)
        times = member(sample, "times", f"{path}.sample", list)
    if len(iters) != len(times):
        raise ParseError(f"{path}.sample: {len(iters)} iters but {len(times)} times")
    per_iteration = []  # exact, in ns
    for i, (count, total) in enumerate(zip(iters, times, strict=True)):
        where = f"{path}.sample.times[{i}]"
        if checked(count, f"{path}.sample.iters[{i}]", float) <= 0:
            raise ParseError(f"{path}.sample.iters[{i}]: not a positive count")
        per_iteration.append(checked(total, where, float) / count)
    latency = samples((ns(value, "ns", f"{path}.sample.times[{i}]")
                       for i, value in enumerate(per_iteration)), f"{path}.sample")
    # Criterion 0.2 capitalises the estimates' names (Slope, Mean, StdDev).
    estimates = {key.lower().replace("_", ""): (f"{path}.estimates.{key}", value)
                 for key, value in member(item, "estimates", path, dict).items()}
    printed = {key: (where, member(checked(value, where, dict), "point_estimate", where, float))
               for key, (where, value) in estimates.items()
               if key in ("slope", "mean", "median", "stddev") and value}
    if "slope" not in printed and "mean" not in printed:
        raise ParseError(f"{path}.estimates.mean: missing")
    where, time = printed.get("slope") or printed["mean"]
    if time <= 0:
        raise ParseError(f"{where}.point_estimate: a time per iteration of {time:g} ns is not "
                         "positive")
    for other, value in estimates.values():
        if isinstance(value, dict) and isinstance(low := value.get("point_estimate"),
                                                  int | float) and low < 0:
            raise ParseError(f"{other}.point_estimate: {low:g} ns is negative (an estimate of "
                             f"times)")
    _agree(printed, per_iteration, iters, times)
    metrics = {"ns_per_iter": time}
    throughput = described.get("throughput")
    if isinstance(throughput, dict):
        for kind, amount in throughput.items():
            if kind in _THROUGHPUT:
                at = f"{path}.benchmark.throughput.{kind}"
                metrics[_THROUGHPUT[kind]] = checked(amount, at, float) * 1e9 / time
    try:
        point = {key: value for key, (_, value) in printed.items()}
        summary = Reported(mean=point.get("mean"), p50=point.get("median"),
                           stddev=point.get("stddev"))
        return TrialIn(latency=latency.model_copy(update={"reported": summary}),
                       metrics=metrics)
    except ValidationError as error:
        raise ParseError(f"{path}.estimates: {validation_message(error)}") from error


def _agree(printed: dict[str, tuple[str, float]], per_iteration: list[float],
           iters: list[float], times: list[float]) -> None:
    """Refuses an estimate that is not what Criterion computes from the samples: the mean,
    median and sample standard deviation (n - 1) of the times per iteration, and the slope of
    the least-squares line through the origin of times over iters (`Slope::fit`)."""
    rules = {
        "mean": ("the mean of times[i] / iters[i]", statistics.fmean(per_iteration)),
        "median": ("the median of times[i] / iters[i]", statistics.median(per_iteration)),
        "slope": ("the least-squares slope of times over iters through the origin",
                  math.fsum(x * y for x, y in zip(iters, times, strict=True))
                  / math.fsum(x * x for x in iters)),
    }
    if len(per_iteration) > 1:
        rules["stddev"] = ("the sample standard deviation (n - 1) of times[i] / iters[i]",
                           statistics.stdev(per_iteration))
    for key, (where, value) in printed.items():
        if key not in rules:
            continue  # a standard deviation of one sample
        rule, computed = rules[key]
        if abs(value - computed) > _AGREEMENT * abs(computed) + 1e-9:
            raise ParseError(f"{where}.point_estimate: {value:g} ns contradicts the samples: "
                             f"{rule} is {computed:g} ns")
