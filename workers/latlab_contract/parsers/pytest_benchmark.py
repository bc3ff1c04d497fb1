"""pytest-benchmark's JSON (`pytest --benchmark-json=FILE`).

Each benchmark is a series (label `benchmark`: its full test id, and `group` when it has one)
with one trial per file: submit several files (several pytest runs) for several trials. The
trial's latency is the time per iteration of every round (`stats.data`: always in
`--benchmark-json` files, in saved runs only with `--benchmark-save-data`); without the data,
it is rebuilt from the min, quartiles, median and max over the rounds
(`harness.spectrum_hdr`). `ops_per_s` is the tool's own operations per second (1 / mean).
"""

from typing import Any

from pydantic import ValidationError

from latlab_contract.parsers import ParseContext, Parsed, ParseError, validation_message
from latlab_contract.parsers.harness import (
    OPS_PER_S,
    checked,
    load_json,
    member,
    ns,
    samples,
    spectrum_hdr,
)
from latlab_contract.result import Latency, MetricSpec, SeriesIn, TrialIn

METRIC_INFO = {
    "ops_per_s": OPS_PER_S,
    "rounds": MetricSpec(unit="count", direction="none", label="rounds"),
    "iterations": MetricSpec(unit="count", direction="none", label="iterations per round"),
}
_QUANTILES = {"min": 0.0, "q1": 25.0, "median": 50.0, "q3": 75.0, "max": 100.0}


def parse(text: str, context: ParseContext) -> Parsed:
    document = load_json(text)
    benchmarks = member(checked(document, "$", dict), "benchmarks", "$", list)
    if not benchmarks:
        raise ParseError("$.benchmarks: empty")
    series = []
    for index, benchmark in enumerate(benchmarks):
        path = f"$.benchmarks[{index}]"
        checked(benchmark, path, dict)
        labels = {"benchmark": member(benchmark, "fullname", path, str)}
        if benchmark.get("group") is not None:
            labels["group"] = str(benchmark["group"])
        stats = member(benchmark, "stats", path, dict)
        where = f"{path}.stats"
        metrics = {"ops_per_s": member(stats, "ops", where, float),
                   "rounds": member(stats, "rounds", where, float),
                   "iterations": member(stats, "iterations", where, float)}
        try:
            series.append(SeriesIn(labels=labels, trials=[
                TrialIn(latency=_latency(stats, where), metrics=metrics)]))
        except ValidationError as error:
            raise ParseError(f"{path}: {validation_message(error)}") from error
    return Parsed(series=series, metric_info=METRIC_INFO, gate=["ops_per_s"])


def _latency(stats: dict[str, Any], where: str) -> Latency:
    data = stats.get("data")
    if data is not None:
        checked(data, f"{where}.data", list)
        return samples((ns(checked(value, f"{where}.data[{i}]", float), "s",
                           f"{where}.data[{i}]") for i, value in enumerate(data)),
                       f"{where}.data")
    rounds = int(member(stats, "rounds", where, float))
    return spectrum_hdr(((q, ns(member(stats, key, where, float), "s", f"{where}.{key}"))
                         for key, q in _QUANTILES.items()), rounds, where)
