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
`elements_per_s` at that typical time.
"""

import json
from pathlib import Path
from typing import Any

from pydantic import ValidationError

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
        trial = _trial(item, described, path)
        try:
            series.append(SeriesIn(
                labels={"benchmark": member(described, "full_id", f"{path}.benchmark", str)},
                trials=[trial]))
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
    per_iteration = []
    for i, (count, total) in enumerate(zip(iters, times, strict=True)):
        where = f"{path}.sample.times[{i}]"
        if checked(count, f"{path}.sample.iters[{i}]", float) <= 0:
            raise ParseError(f"{path}.sample.iters[{i}]: not a positive count")
        per_iteration.append(ns(checked(total, where, float) / count, "ns", where))
    # Criterion 0.2 capitalises the estimates' names (Slope, Mean).
    estimates = {key.lower(): value for key, value in
                 member(item, "estimates", path, dict).items()}
    typical = estimates.get("slope") or member(estimates, "mean", f"{path}.estimates", dict)
    where = f"{path}.estimates.{'slope' if estimates.get('slope') else 'mean'}"
    time = checked(member(typical, "point_estimate", where, float), where, float)
    metrics = {"ns_per_iter": time}
    throughput = described.get("throughput")
    if isinstance(throughput, dict) and time > 0:
        for kind, amount in throughput.items():
            if kind in _THROUGHPUT:
                at = f"{path}.benchmark.throughput.{kind}"
                metrics[_THROUGHPUT[kind]] = checked(amount, at, float) * 1e9 / time
    try:
        return TrialIn(latency=samples(per_iteration, f"{path}.sample"), metrics=metrics)
    except ValidationError as error:
        raise ParseError(f"{path}: {validation_message(error)}") from error
