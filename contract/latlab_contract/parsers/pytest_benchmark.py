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

`machine_info` is the run's context: the CPU py-cpuinfo named (`cpu.brand_raw`, or `brand`
before 3.4), its count and clock, Python's version and implementation, the machine (arch) and
system (os); `version` is the tool's. `commit_info` is not: the run's source is what the
submission says, and a dirty working tree is noted. A benchmark that raised is in the printed
table but not in the JSON (pytest fails the test): the file cannot say it failed.

Refused, naming the JSON path: statistics that contradict the rounds they were computed from
(min, max, mean, median, stddev of `stats.data`, its `rounds`, `ops` = 1 / mean), no rounds or
iterations, negative times.
"""

import math
from typing import Any

from pydantic import ValidationError

from latlab_contract.fields import Scalar
from latlab_contract.latency import Latency
from latlab_contract.parsers.base import ParseContext, Parsed, ParseError, validation_message
from latlab_contract.parsers.harness import (
    OPS_PER_S,
    SAMPLE_STATISTICS,
    checked,
    duration_ns,
    load_json,
    member,
    named,
    reported,
    spectrum,
    statistics_agree,
    timed,
)
from latlab_contract.result import SeriesIn, TrialIn
from latlab_contract.vocabulary import MetricSpec

METRIC_INFO = {
    "ops_per_s": OPS_PER_S,
    "rounds": MetricSpec(unit="count", direction="none", label="rounds"),
    "iterations": MetricSpec(unit="count", direction="none", label="iterations per round"),
}
_QUANTILES = {"min": 0.0, "q1": 25.0, "median": 50.0, "q3": 75.0, "max": 100.0}
# How far a statistic may be from the lab's computation of it from the same rounds: both are
# float sums of the same values.
_AGREEMENT = 1e-6


def parse(text: str, context: ParseContext) -> Parsed:
    document = load_json(text)
    benchmarks = member(checked(document, "$", dict), "benchmarks", "$", list)
    if not benchmarks:
        raise ParseError("$.benchmarks: empty")
    series = []
    machine, notes = _machine(document)
    for index, benchmark in enumerate(benchmarks):
        path = f"$.benchmarks[{index}]"
        checked(benchmark, path, dict)
        labels = {"benchmark": named(benchmark, "fullname", path)}
        if benchmark.get("group") is not None:
            labels["group"] = str(benchmark["group"])
        stats = member(benchmark, "stats", path, dict)
        where = f"{path}.stats"
        printed_ops = member(stats, "ops", where, float) if "ops" in stats else None
        metrics = {"rounds": member(stats, "rounds", where, float),
                   "iterations": member(stats, "iterations", where, float)}
        for key in ("rounds", "iterations"):
            if metrics[key] < 1:
                raise ParseError(f"{where}.{key}: {metrics[key]:g}, not at least 1")
        per_second = _per_second(member(stats, "mean", where, float), f"{where}.mean")
        metrics["ops_per_s"] = per_second if printed_ops is None else printed_ops
        if not math.isclose(metrics["ops_per_s"], per_second, rel_tol=_AGREEMENT):
            raise ParseError(f"{where}.ops: {metrics['ops_per_s']:g} contradicts the mean: "
                             f"1 / mean is {per_second:g}")
        try:
            series.append(SeriesIn(labels=labels, trials=[
                TrialIn(latency=_latency(stats, where), metrics=metrics)]))
        except ValidationError as error:
            raise ParseError(f"{path}: {validation_message(error)}") from error
    return Parsed(series=series, metric_info=METRIC_INFO, gate=["ops_per_s"],
                  context=machine, notes=notes)


def _machine(document: dict[str, Any]) -> tuple[dict[str, Scalar], list[str]]:
    """The machine pytest-benchmark says it ran on (`machine_info`), and a note when its
    `commit_info` says the working tree had uncommitted changes."""
    info = document.get("machine_info")
    info = info if isinstance(info, dict) else {}
    cpu = info.get("cpu")
    cpu = cpu if isinstance(cpu, dict) else {}
    machine: dict[str, Scalar] = {}
    brand = cpu.get("brand_raw") or cpu.get("brand")
    if isinstance(brand, str) and brand.strip() and brand != "unknown":
        machine["cpu_model"] = brand.strip()[:500]
    if isinstance(cpu.get("count"), int) and not isinstance(cpu["count"], bool):
        machine["cpu_count"] = cpu["count"]
    hz = cpu.get("hz_actual")  # py-cpuinfo: [value, power of ten]
    if (isinstance(hz, list) and len(hz) == 2 and all(isinstance(v, int) for v in hz)
            and hz[0] > 0):
        machine["mhz_per_cpu"] = hz[0] * 10.0 ** hz[1] / 1e6
    for key, field_name in (("python_version", "python_version"), ("arch", "machine"),
                            ("os", "system"), ("os_release", "release"),
                            ("python_implementation", "python_implementation")):
        if isinstance(info.get(field_name), str) and info[field_name]:
            machine[key] = info[field_name][:500]
    if isinstance(document.get("version"), str):
        machine["tool_version"] = document["version"][:500]
    commit = document.get("commit_info")
    notes = []
    if isinstance(commit, dict) and commit.get("dirty") is True:
        notes.append(f"pytest-benchmark ran on {str(commit.get('id') or 'a commit')[:80]} with "
                     "uncommitted changes (commit_info.dirty): the code measured may not be "
                     "the run's source commit")
    return machine, notes


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
    times, latency = timed(data, f"{where}.data", "s")
    _agree(stats, times, where)
    return latency.model_copy(update={"reported": reported(
        [(0.0, printed["min"]), (50.0, printed["median"]), (100.0, printed["max"])],
        mean=printed["mean"], stddev=printed["stddev"])})


def _agree(stats: dict[str, Any], rounds: list[float], where: str) -> None:
    """Refuses statistics that are not what pytest-benchmark computes from its rounds
    (`stats.data`, in s): their count, min, max, mean, median and sample standard deviation."""
    if len(rounds) != stats["rounds"]:
        raise ParseError(f"{where}.rounds: {stats['rounds']:g} contradicts the data: "
                         f"{len(rounds)} rounds")
    statistics_agree({name: (f"{where}.{name}", stats[name]) for name in SAMPLE_STATISTICS},
                     rounds, of="the rounds", unit="s", source="the data",
                     tolerance=_AGREEMENT, floor=1e-15)
