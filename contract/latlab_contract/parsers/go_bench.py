"""`go test -bench` output (the text benchstat reads).

Every benchmark line is one trial of the series named by the benchmark, its package and its
GOMAXPROCS suffix, so `-count 5` gives five trials. Go reports a mean time per operation, not
a distribution: a trial's latency is that one value (`ns/op`, one sample in whole ns, and the
value exactly as printed as the trial's summary: a 0.7798 ns/op trial shows p50 0.7798, not 1),
and every `value unit` pair becomes a metric (`ns/op` -> `ns_per_op`, `B/op` -> `B_per_op`,
`allocs/op`, `MB/s`, and units reported with `b.ReportMetric`).

Configuration lines (`key: value`, the key lower case without spaces: go test's `goos:`,
`goarch:`, `pkg:`, `cpu:`, or a user's `note: before`) apply to the results after them, as
benchstat reads them. `pkg` is the `package` label. A key whose value changes within the file
(two runs with different `goarch`, a `tags: fast` line a user printed before a second run) is
a label of its own, so different builds are different series, never repetitions of one; the
keys that hold one value throughout are the run's context (`goos` -> `os`, `goarch` -> `arch`,
`cpu` -> `cpu_model`, `pkg` -> `package`). go test does not print build tags: several runs
with identical headers are read as repetitions (as benchstat does), with a note on printing a
configuration line to tell builds apart.

A package whose run failed (`--- FAIL: BenchmarkX` and its log, `FAIL`, `FAIL <pkg>`, a
`panic:`) has its failure on each of that run's series (once, on its last trial of the run):
go prints no results for a failed benchmark, so it has no series of its own, and go's own
verdict is the package's. `failed` counts the `--- FAIL:` lines, `total` the benchmark runs of
that package run (results and failures); a failed package run without results is named in a
note. Refused, naming the line: zero iterations, a negative `ns/op`, `B/op`, `allocs/op` or
`MB/s` (a `b.ReportMetric` unit is kept as written, its sign its own).
"""

import re
from collections import Counter
from dataclasses import dataclass, field

from pydantic import ValidationError

from latlab_contract.fields import Scalar
from latlab_contract.parsers.base import ParseContext, Parsed, ParseError, validation_message
from latlab_contract.parsers.harness import (
    BYTES_PER_OP,
    MB_PER_S,
    NS_PER_OP,
    metric_name,
    one_figure,
    spec_for_unit,
)
from latlab_contract.result import Failures, SeriesIn, TrialIn
from latlab_contract.vocabulary import MetricSpec

_BENCHMARK = re.compile(r"^(Benchmark\S*?)(?:-(\d+))?(?:\s+(\d+)\s+(.*))?$")
_RESULTS = re.compile(r"^\s*(\d+)\s+(\d.*)$")
# A benchmark's name followed by what the benchmark printed itself: its results come later.
_NAME_THEN_OUTPUT = re.compile(r"^(Benchmark\S*?)(?:-(\d+))?\s+\D")
# A configuration line (golang.org/design/14313-benchmark-format).
_CONFIGURATION = re.compile(r"^([a-z][^\sA-Z:]*):(?:[ \t]+(.*))?$")
_FAILED = re.compile(r"--- FAIL: (\S+)")
# The end of a package's run: `ok  \tpkg\t0.5s`, `FAIL\tpkg\t0.7s`, `FAIL\tpkg [build failed]`.
_PACKAGE_DONE = re.compile(r"^(ok|FAIL)\s+(\S+)")
_SPECS = {
    "ns/op": NS_PER_OP,
    "B/op": BYTES_PER_OP,
    "allocs/op": MetricSpec(unit="allocs/op", direction="lower", label="allocations per op"),
    "MB/s": MB_PER_S,
}
# The configuration keys go test prints, as the run context's shared keys.
_CONTEXT_KEYS = {"goos": "os", "goarch": "arch", "cpu": "cpu_model", "pkg": "package"}
_LABELS = ("benchmark", "package", "procs")


@dataclass
class _Result:
    labels: dict[str, str]
    trial: dict[str, object]
    run: int  # which package run (go test's output for one package) it belongs to


@dataclass
class _PackageRun:
    """One package's run: its results and what go said failed."""

    package: str = ""
    results: int = 0
    failed: list[str] = field(default_factory=list)  # `--- FAIL: name` with its first log
    verdict: str | None = None  # `FAIL`, `FAIL pkg`, a panic: the run failed
    done: bool = False  # its `ok` or `FAIL pkg` line was read


def parse(text: str, context: ParseContext) -> Parsed:
    results: list[_Result] = []
    runs = [_PackageRun()]
    info: dict[str, MetricSpec] = {}
    configuration: dict[str, str] = {}
    # The configuration of each package run with results, as printed before its first.
    headers: dict[int, tuple[tuple[str, str], ...]] = {}
    pending: tuple[str, str | None] | None = None  # a name whose results follow its logs
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        run = runs[-1]
        configured = _CONFIGURATION.match(line)
        if configured is not None:
            if run.done or run.results or run.failed:
                runs.append(run := _PackageRun())
            configuration[configured.group(1)] = (configured.group(2) or "").strip()
            continue
        failed = _FAILED.search(line)
        if failed is not None:
            pending = None
            log = lines[number].strip() if number < len(lines) and lines[number].startswith(
                "    ") and not _FAILED.search(lines[number]) else ""
            run.failed.append(f"--- FAIL: {failed.group(1)}" + (f" ({log})" if log else ""))
            continue
        done = _PACKAGE_DONE.match(line)
        if done is not None and not line.startswith("Benchmark"):
            run.package, run.done = done.group(2), True
            if done.group(1) == "FAIL":
                run.verdict = " ".join(line.split())
            continue
        if line.strip() == "FAIL" or line.startswith("panic: "):
            run.verdict = run.verdict or " ".join(line.split())
            continue
        name, procs, printed = _benchmark_line(line, pending)
        if name is None:
            continue
        if printed is None:
            pending = (name, procs)
            continue
        pending = None
        headers.setdefault(len(runs) - 1, tuple(sorted(configuration.items())))
        run.results += 1
        labels = {"benchmark": name, **({"package": configuration["pkg"]}
                                         if configuration.get("pkg") else {}),
                  **({"procs": procs} if procs else {})}
        labels |= {f"_{key}": value for key, value in configuration.items() if key != "pkg"}
        results.append(_Result(labels, _trial(printed, number, line, info), len(runs) - 1))
    if not results:
        said = [item for run in runs for item in run.failed] or [
            run.verdict for run in runs if run.verdict]
        if said:
            raise ParseError(f"line 1: no benchmark results: go test failed: "
                             f"{'; '.join(str(item) for item in said)}"[:500])
        raise ParseError("line 1: no benchmark results (expected lines like "
                         "'BenchmarkName-8  1000  1234 ns/op')")
    info["iterations"] = MetricSpec(unit="count", direction="none", label="iterations")
    machine, varying = _configuration(results)
    series, notes = _series(results, runs, varying)
    if len(headers) > 1 and len(set(headers.values())) < len(headers):
        notes.append(f"{len(headers)} go test runs with the same configuration lines were "
                     f"read as repetitions of the same benchmarks. go test does not print "
                     f"build tags: if the runs were built differently (-tags, flags), print a "
                     f"configuration line before each, e.g. 'echo tags: fast', and they "
                     f"become series labelled tags.")
    return Parsed(series=series, metric_info=info, gate=["ns_per_op"], context=machine,
                  notes=notes)


def _trial(printed: tuple[int, str], number: int, line: str, info: dict[str, MetricSpec]
           ) -> dict[str, object]:
    """A result line's trial: its metrics, and its ns/op as one sample, exactly as printed in
    its summary."""
    iterations, pairs = printed
    if iterations < 1:
        raise ParseError(f"line {number}: {iterations} iterations: a benchmark result has "
                         f"run at least one ({line.strip()!r})"[:300])
    metrics = {"iterations": float(iterations)}
    for unit, value in _pairs(pairs, number):
        if unit in _SPECS and value < 0:
            raise ParseError(f"line {number}: {unit} is {value:g}: it cannot be negative")
        metrics[metric_name(unit)] = value
        info[metric_name(unit)] = _SPECS.get(unit) or spec_for_unit(unit)
    if "ns/op" not in pairs.split():
        raise ParseError(f"line {number}: no ns/op in {line.strip()!r}")
    return {"latency": one_figure(metrics["ns_per_op"], f"line {number}"), "metrics": metrics,
            "line": number}


def _configuration(results: list[_Result]) -> tuple[dict[str, Scalar], set[str]]:
    """The run context (configuration keys with one value for every result) and the keys
    whose value changes within the file (labels)."""
    keys = {key for result in results for key in result.labels if key.startswith("_")}
    values: dict[str, set[str | None]] = {key: set() for key in keys}
    for result in results:
        for key in keys:
            values[key].add(result.labels.get(key))
    varying = {key for key, seen in values.items() if len(seen) > 1}
    machine: dict[str, Scalar] = {}
    for key, seen in values.items():
        (value,) = seen if len(seen) == 1 else (None,)
        if value and key not in varying and len(machine) < 40:
            name = key.removeprefix("_")
            machine[_CONTEXT_KEYS.get(name, metric_name(name))] = value[:500]
    packages = {r.labels.get("package") for r in results}
    if len(packages) == 1 and (package := packages.pop()):
        machine["package"] = package[:500]
    return machine, varying


def _series(results: list[_Result], runs: list[_PackageRun], varying: set[str]
            ) -> tuple[list[SeriesIn], list[str]]:
    """The results as series (labelled by the configuration keys that vary), each failed
    package run's failure on the last trial of each of its series."""
    grouped: dict[tuple[tuple[str, str], ...], list[_Result]] = {}
    for result in results:
        labels = {k: v for k, v in result.labels.items() if not k.startswith("_")}
        for key in sorted(varying):
            if (value := result.labels.get(key)) is not None:
                label = metric_name(key.removeprefix("_"))
                labels[f"config_{label}" if label in _LABELS else label] = value
        grouped.setdefault(tuple(labels.items()), []).append(result)
    notes = []
    failures: dict[int, Failures] = {}
    for index, run in enumerate(runs):
        if not run.failed and run.verdict is None:
            continue
        counted = Counter(run.failed)
        words = "; ".join([*(f"{text} x{times}" if times > 1 else text
                             for text, times in list(counted.items())[:5]),
                           run.verdict or "FAIL"])
        failed = len(run.failed) or 1
        total = run.results + len(run.failed) if run.failed else None
        failures[index] = Failures(failed=failed, total=total, detail=f"go test: {words}"[:500])
        if not run.results:
            notes.append(f"go test failed with no results: {words} (nothing of that "
                         f"package run is stored)"[:500])
    series = []
    for group, items in grouped.items():
        last = {result.run: position for position, result in enumerate(items)}
        trials = []
        for position, result in enumerate(items):
            trial = {k: v for k, v in result.trial.items() if k != "line"}
            if result.run in failures and last[result.run] == position:
                trial["failures"] = failures[result.run]
            try:
                trials.append(TrialIn.model_validate(trial))
            except ValidationError as error:
                raise ParseError(f"line {result.trial['line']}: "
                                 f"{validation_message(error)}") from error
        try:
            series.append(SeriesIn(labels=dict(group), trials=trials))
        except ValidationError as error:
            raise ParseError(f"line {items[0].trial['line']}: "
                             f"{validation_message(error)}") from error
    return series, notes


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
