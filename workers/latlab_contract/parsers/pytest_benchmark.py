"""pytest-benchmark's JSON (`pytest --benchmark-json=FILE`).

Each benchmark is a series (label `benchmark`: its full test id, and `group` when it has one)
with one trial per file: submit several files (several pytest runs) for several trials. The
trial's latency is the time per iteration of every round (`stats.data`: always in
`--benchmark-json` files, in saved runs only with `--benchmark-save-data`); without the data,
it is rebuilt from the min, quartiles, median and max over the rounds (`harness.spectrum`).
Either way the trial's summary is the tool's own: its min, max, mean, median (the middle two
rounds averaged, as `statistics.median`) and stddev (the sample form, n - 1). `ops_per_s` is
the tool's own operations per second (1 / mean; versions before 3.1 do not write it, and it
is 1 / mean then too). Files of every version from 2.5's saved runs to 5.x are read alike.
"""

from typing import Any

from pydantic import ValidationError

from latlab_contract.parsers.base import ParseContext, Parsed, ParseError, validation_message
from latlab_contract.parsers.harness import (
    OPS_PER_S,
    checked,
    duration_ns,
    load_json,
    member,
    ns,
    reported,
    samples,
    spectrum,
)
from latlab_contract.result import Latency, SeriesIn, TrialIn
from latlab_contract.vocabulary import MetricSpec

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
        metrics = {"ops_per_s": member(stats, "ops", where, float) if "ops" in stats
                   else _per_second(member(stats, "mean", where, float), f"{where}.mean"),
                   "rounds": member(stats, "rounds", where, float),
                   "iterations": member(stats, "iterations", where, float)}
        try:
            series.append(SeriesIn(labels=labels, trials=[
                TrialIn(latency=_latency(stats, where), metrics=metrics)]))
        except ValidationError as error:
            raise ParseError(f"{path}: {validation_message(error)}") from error
    return Parsed(series=series, metric_info=METRIC_INFO, gate=["ops_per_s"])


def _per_second(mean: float, where: str) -> float:
    if mean <= 0:
        raise ParseError(f"{where}: a mean of {mean} s has no operations per second")
    return 1.0 / mean


def _latency(stats: dict[str, Any], where: str) -> Latency:
    printed = {key: duration_ns(member(stats, key, where, float), "s", f"{where}.{key}")
               for key in (*_QUANTILES, "mean", "stddev")}
    data = stats.get("data")
    if data is None:
        rounds = int(member(stats, "rounds", where, float))
        return spectrum(((q, printed[key]) for key, q in _QUANTILES.items()), rounds,
                        where, mean=printed["mean"], stddev=printed["stddev"])
    checked(data, f"{where}.data", list)
    latency = samples((ns(checked(value, f"{where}.data[{i}]", float), "s",
                          f"{where}.data[{i}]") for i, value in enumerate(data)),
                      f"{where}.data")
    return latency.model_copy(update={"reported": reported(
        [(0.0, printed["min"]), (50.0, printed["median"]), (100.0, printed["max"])],
        mean=printed["mean"], stddev=printed["stddev"])})
