"""`go test -bench` output (the text benchstat reads).

Every benchmark line is one trial of the series named by the benchmark, its package and its
GOMAXPROCS suffix, so `-count 5` gives five trials. Go reports a mean time per operation, not
a distribution: a trial's latency is that one value (`ns/op`, one sample), and every
`value unit` pair becomes a metric (`ns/op` -> `ns_per_op`, `B/op` -> `B_per_op`,
`allocs/op`, `MB/s`, and units reported with `b.ReportMetric`).
"""

import re

from pydantic import ValidationError

from latlab_contract.parsers.base import ParseContext, Parsed, ParseError, validation_message
from latlab_contract.parsers.harness import BYTES_PER_OP, NS_PER_OP, metric_name, ns, spec_for_unit
from latlab_contract.result import SeriesIn, TrialIn
from latlab_contract.vocabulary import MetricSpec

_BENCHMARK = re.compile(r"^(Benchmark\S*?)(?:-(\d+))?(?:\s+(\d+)\s+(.*))?$")
_RESULTS = re.compile(r"^\s*(\d+)\s+(\d.*)$")
# A benchmark's name followed by what the benchmark printed itself: its results come later.
_NAME_THEN_OUTPUT = re.compile(r"^(Benchmark\S*?)(?:-(\d+))?\s+\D")
_SPECS = {
    "ns/op": NS_PER_OP,
    "B/op": BYTES_PER_OP,
    "allocs/op": MetricSpec(unit="allocs/op", direction="lower", label="allocations per op"),
    "MB/s": MetricSpec(unit="MB/s", direction="higher", label="MB per second"),
}


def parse(text: str, context: ParseContext) -> Parsed:
    trials: dict[tuple[tuple[str, str], ...], list[TrialIn]] = {}
    info: dict[str, MetricSpec] = {}
    package = ""
    pending: tuple[str, str | None] | None = None  # a name whose results follow its logs
    for number, line in enumerate(text.splitlines(), start=1):
        if line.startswith("pkg: "):
            package = line.removeprefix("pkg: ").strip()
            continue
        name, procs, results = _benchmark_line(line, pending)
        if name is None:
            continue
        if results is None:
            pending = (name, procs)
            continue
        pending = None
        iterations, pairs = results
        labels = {"benchmark": name, **({"package": package} if package else {}),
                  **({"procs": procs} if procs else {})}
        metrics = {"iterations": float(iterations)}
        for unit, value in _pairs(pairs, number):
            metrics[metric_name(unit)] = value
            info[metric_name(unit)] = _SPECS.get(unit) or spec_for_unit(unit)
        if "ns/op" not in pairs.split():
            raise ParseError(f"line {number}: no ns/op in {line.strip()!r}")
        latency = {"samples_ns": [ns(metrics["ns_per_op"], "ns", f"line {number}")]}
        try:
            trial = TrialIn.model_validate({"latency": latency, "metrics": metrics})
        except ValidationError as error:
            raise ParseError(f"line {number}: {validation_message(error)}") from error
        trials.setdefault(tuple(labels.items()), []).append(trial)
    if not trials:
        raise ParseError("line 1: no benchmark results (expected lines like "
                         "'BenchmarkName-8  1000  1234 ns/op')")
    info["iterations"] = MetricSpec(unit="count", direction="none", label="iterations")
    return Parsed(series=[SeriesIn(labels=dict(key), trials=items)
                          for key, items in trials.items()], metric_info=info,
                  gate=["ns_per_op"])


def _benchmark_line(
    line: str, pending: tuple[str, str | None] | None
) -> tuple[str | None, str | None, tuple[int, str] | None]:
    """(name, procs, (iterations, 'value unit ...')) of a result line; results None for a
    name printed alone (its results come on a later line); name None for other lines."""
    match = _BENCHMARK.match(line.rstrip())
    if match is not None:
        name, procs, iterations, pairs = match.groups()
        return name, procs, None if iterations is None else (int(iterations), pairs)
    continued = _RESULTS.match(line)
    if pending is not None and continued is not None:
        return pending[0], pending[1], (int(continued.group(1)), continued.group(2))
    named = _NAME_THEN_OUTPUT.match(line)
    if named is not None:
        return named.group(1), named.group(2), None
    return None, None, None


def _pairs(text: str, number: int) -> list[tuple[str, float]]:
    fields = text.split()
    if len(fields) % 2:
        raise ParseError(f"line {number}: expected 'value unit' pairs, got {text!r}")
    pairs = []
    for value, unit in zip(fields[::2], fields[1::2], strict=True):
        try:
            pairs.append((unit, float(value)))
        except ValueError:
            raise ParseError(f"line {number}: {value!r} is not a number (unit {unit})") from None
    return pairs
