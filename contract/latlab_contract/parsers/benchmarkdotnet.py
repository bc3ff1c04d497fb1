"""BenchmarkDotNet's JSON export: the full export (`*-report-full.json` or
`*-report-full-compressed.json`, from `[JsonExporterAttribute.Full]` or `--exporters json`),
which holds every measurement, and the brief one (`*-report-brief.json`), which does not;
BenchmarkDotNet 0.9.9 to 0.15.x.

Each benchmark is a series labelled `type` (its class, as BenchmarkDotNet writes `Type`),
`method` (`Method`), `namespace` (when the class has one) and one label per parameter
(`Parameters`, "Size=256&Mode=Fast": `[Params]` and `[Arguments]`, the value as BenchmarkDotNet
prints it; a parameter named like one of those labels is `param_<name>`); `job` is added when
the file holds several jobs (the job's id, the table's Job column, ".NET 8.0", taken from
`DisplayInfo`). A file is one trial of each: submit several files for several trials.

BenchmarkDotNet times iterations, not calls: an iteration runs the benchmark `Operations`
times, and the time per operation is the iteration's `Nanoseconds / Operations`. A trial's
latency is those times of the iterations BenchmarkDotNet kept (`IterationMode` "Workload",
`IterationStage` "Result": the actual iterations less the overhead it measured, upper outliers
removed; every launch's), one sample each, in whole nanoseconds: the count is the iterations,
and each sample is one iteration's mean per operation, not one call. Without `Measurements`
(the brief export) the same values are `Statistics.OriginalValues`; the 0.9.x brief export
has neither, and the latency is then rebuilt (`harness.spectrum`, marked `rebuilt`) over `N`
iterations through its `Percentiles` (`P0` .. `P100`), keeping its mean.

The trial's summary is BenchmarkDotNet's own (`Statistics`, of those per-operation times,
unrounded): `Min`, `Max`, `Mean`, `StandardDeviation` (the sample form, n - 1) as stddev and
`Median` (the middle two averaged) as p50. Its other percentiles interpolate linearly between
iterations (Excel's PERCENTILE, numpy's "linear"), which is not the lab's nearest rank: they
are metrics, never the summary's p90 and p95 (which the lab takes from the samples, or from the
rebuilt histogram). Its metrics:
- `p25_linear`, `p67_linear`, `p80_linear`, `p85_linear`, `p90_linear`, `p95_linear` (ns,
  lower-better): BenchmarkDotNet's `Percentiles`;
- `error_ns`: its Error column, the half-width of its confidence interval of the mean (99.9 %
  since 0.10: `ConfidenceInterval.Margin`; no direction);
- `iterations`: the iterations measured (`N`), and `operations_per_iteration` when every
  measured iteration ran as many (full export only);
- with `[MemoryDiagnoser]` (`Memory`): `B_per_op` (bytes allocated per operation,
  `BytesAllocatedPerOperation`, lower-better; absent when BenchmarkDotNet could not measure it)
  and `gen0_per_1000_ops`, `gen1_per_1000_ops`, `gen2_per_1000_ops` (garbage collections per
  1000 operations, lower-better), derived as BenchmarkDotNet derives its Gen0 .. Gen2 columns:
  `GenNCollections / TotalOperations * 1000`;
- each other diagnoser's metric of the full export (`Metrics`: hardware counters, threading,
  exceptions ...), named after its `Id`, in its `Unit` (or ns / B by its `UnitType`),
  higher-better when `TheGreaterTheBetter`, else lower-better.
Left out, as they follow from the iterations or describe them: `Q1`, `Q3`, the fences, the
outliers, `Variance`, `StandardError`, `Skewness`, `Kurtosis`, the other iterations
(jitting, pilot, warmup, overhead, and the actual ones before BenchmarkDotNet's correction).
The CI gate's headline is `mean`, the figure BenchmarkDotNet prints first.

The lab stores latency in whole nanoseconds: a benchmark under 100 ns per operation has its
iterations rounded by up to 0.5 ns (a 0.6 ns benchmark's iterations are all 1 ns), said in a
note; its summary and metrics above are BenchmarkDotNet's, unrounded.

A benchmark whose `Statistics` is null (it threw, or did not build: BenchmarkDotNet prints NA
and lists it under "Benchmarks with issues") measured nothing, and is a failure of the run, on
every series of the file (once, on its last trial: `failed` those benchmarks, `total` all, the
detail naming them), with a note; a file of failures only is refused naming them. The run's
context is `HostEnvironmentInfo`: `BenchmarkDotNetVersion` -> `tool_version`, `OsVersion`,
`ProcessorName`, `LogicalCoreCount`, `RuntimeVersion`, `Architecture`, `Configuration` ->
`build_type`, `DotNetCliVersion`, the timer's frequency and kind; a DEBUG build or an attached
debugger is a note.

Refused, naming the JSON path: a file that is not BenchmarkDotNet's JSON (its markdown and CSV
reports are named as such), no benchmarks, an empty `Type` or `Method`, `Parameters` not in
BenchmarkDotNet's `Name=Value&...` form, two benchmarks with the same labels, a measurement
with a negative or non-finite time or fewer than one operation, a time per operation outside
0 .. 1 h, `Measurements` without a Workload Result iteration where there are statistics (the
list was cut), statistics that are not those of the iterations (their count `N`, `Min`,
`Max`, `Mean`, `Median`, `StandardDeviation`; the confidence interval's `Mean`), percentiles
out of order, negative GC counts or
allocations.
"""

import math
import re
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from latlab_contract.fields import Scalar
from latlab_contract.parsers.base import ParseContext, Parsed, ParseError, validation_message
from latlab_contract.parsers.benchmarkdotnet_statistics import measured_latency, stat_ns
from latlab_contract.parsers.harness import (
    BYTES_PER_OP,
    benchmark_results,
    checked,
    fail_every_series,
    load_object,
    member,
    metric_name,
    named,
)
from latlab_contract.result import Failures, SeriesIn, TrialIn
from latlab_contract.vocabulary import MetricSpec

_PER_1000 = "per 1000 ops"
# BenchmarkDotNet's Percentiles kept as metrics (P0, P50 and P100 are Min, Median and Max).
_PERCENTILES = (25, 67, 80, 85, 90, 95)
METRIC_INFO = {
    **{f"p{q}_linear": MetricSpec(unit="ns", direction="lower",
                                  label=f"BenchmarkDotNet's P{q} (linear interpolation)")
       for q in _PERCENTILES},
    "error_ns": MetricSpec(unit="ns", direction="none",
                           label="BenchmarkDotNet's Error (confidence half-width of the mean)"),
    "iterations": MetricSpec(unit="count", direction="none",
                             label="iterations measured (a sample each: its time per operation)"),
    "operations_per_iteration": MetricSpec(unit="count", direction="none",
                                           label="operations per iteration"),
    "B_per_op": BYTES_PER_OP,
    **{f"gen{g}_per_1000_ops": MetricSpec(unit=_PER_1000, direction="lower",
                                          label=f"Gen{g} collections per 1000 operations")
       for g in (0, 1, 2)},
}
# The `Metrics` of MemoryDiagnoser, the same figures as `Memory` (which the brief export has
# too): read from `Memory` when it is there.
_MEMORY_METRICS = {"Gen0Collects": "gen0_per_1000_ops", "Gen1Collects": "gen1_per_1000_ops",
                   "Gen2Collects": "gen2_per_1000_ops", "Allocated Memory": "B_per_op"}
# A descriptor's `UnitType` (BenchmarkDotNet.Columns.UnitType): Time (ns), Size, CodeSize (B).
_UNIT_TYPES = {1: "ns", 2: "B", 3: "B"}
_RESERVED = ("type", "method", "namespace", "job")
_IDENTIFIER = r"[^\W\d]\w*"
_PARAMETER_START = re.compile(rf"&(?={_IDENTIFIER}=)")
# Under this mean per operation, rounding an iteration to whole nanoseconds (by up to 0.5 ns)
# may move it by over 0.5 %.
_ROUNDED_BELOW_NS = 100.0


@dataclass
class _Case:
    """One benchmark of the file: where it is, its labels and job, and its trial (None: it
    measured nothing)."""

    path: str
    name: str
    labels: dict[str, str]
    job: str | None
    trial: TrialIn | None
    rounded: bool = False


def parse(text: str, context: ParseContext) -> Parsed:
    text = text.lstrip("\ufeff")
    if not text.lstrip().startswith("{"):
        _refuse_text(text)
    document = load_object(text)
    benchmarks = benchmark_results(document, "Benchmarks")
    info = dict(METRIC_INFO)
    cases = [_case(bench, f"$.Benchmarks[{index}]", info)
             for index, bench in enumerate(benchmarks)]
    _label_jobs(cases)
    measured = [case for case in cases if case.trial is not None]
    failed = [case.name for case in cases if case.trial is None]
    if not measured:
        raise ParseError(f"$.Benchmarks: no benchmark was measured: BenchmarkDotNet has no "
                         f"statistics for {'; '.join(failed)}"[:500])
    seen: dict[tuple[tuple[str, str], ...], str] = {}
    for case in measured:
        key = tuple(sorted(case.labels.items()))
        if key in seen:
            raise ParseError(f"{case.path}: the same labels as {seen[key]} "
                             f"({', '.join(f'{k}={v}' for k, v in key)})"[:500])
        seen[key] = case.path
    trials = [[case.trial] for case in measured if case.trial is not None]
    machine, notes = _context(document.get("HostEnvironmentInfo"))
    if failed:
        detail = (f"BenchmarkDotNet measured nothing for {len(failed)} of {len(cases)} "
                  f"benchmarks (no statistics; it lists them under 'Benchmarks with issues'): "
                  f"{'; '.join(failed)}")[:500]
        fail_every_series(trials, Failures(failed=len(failed), total=len(cases),
                                           detail=detail))
        notes.append(f"{detail}; the failure is on every series of the run"[:500])
    rounded = sum(case.rounded for case in measured)
    if rounded:
        notes.append(f"{rounded} of {len(measured)} benchmarks took under "
                     f"{_ROUNDED_BELOW_NS:g} ns per operation: the lab stores latency in whole "
                     "nanoseconds, so their iterations are rounded by up to 0.5 ns; their "
                     "summary (mean, median, min, max, stddev) is BenchmarkDotNet's, unrounded")
    try:
        series = [SeriesIn(labels=case.labels, trials=items)
                  for case, items in zip(measured, trials, strict=True)]
    except ValidationError as error:
        raise ParseError(validation_message(error)) from error
    used = {name for items in trials for trial in items for name in trial.metrics}
    return Parsed(series=series, metric_info={k: v for k, v in info.items() if k in used},
                  gate=["mean"], context=machine, notes=notes)


def _refuse_text(text: str) -> None:
    start = text.lstrip()
    if start.startswith("```") or ("| Method" in text and "|---" in text):
        raise ParseError("line 1: BenchmarkDotNet's markdown report, not its JSON: run with "
                         "--exporters json (or [JsonExporterAttribute.Full]) and give "
                         "BenchmarkDotNet.Artifacts/results/*-report-full.json")
    if start.startswith(("Method,", "Method;", "Type,", "Type;")):
        raise ParseError("line 1: BenchmarkDotNet's CSV report, not its JSON: run with "
                         "--exporters json (or [JsonExporterAttribute.Full]) and give "
                         "BenchmarkDotNet.Artifacts/results/*-report-full.json")
    raise ParseError("line 1: not BenchmarkDotNet's JSON export (give "
                     "BenchmarkDotNet.Artifacts/results/*-report-full.json)")


def _case(bench: Any, path: str, info: dict[str, MetricSpec]) -> _Case:
    checked(bench, path, dict)
    type_name = named(bench, "Type", path)
    method = named(bench, "Method", path)
    labels = {"type": type_name, "method": method}
    namespace = bench.get("Namespace")
    if namespace is not None and checked(namespace, f"{path}.Namespace", str).strip():
        labels["namespace"] = namespace
    parameters = _parameters(bench, path)
    for name, value in parameters:
        key = metric_name(name)
        labels[f"param_{key}" if key in _RESERVED else key] = value
    name = bench.get("DisplayInfo")
    if not isinstance(name, str) or not name.strip():
        name = f"{type_name}.{method}" + (
            f" [{', '.join(f'{k}={v}' for k, v in parameters)}]" if parameters else "")
    job = _job(bench, parameters)
    if "Statistics" not in bench:
        raise ParseError(f"{path}.Statistics: missing (null when the benchmark failed)")
    stats = bench["Statistics"]
    if stats is None:
        return _Case(path, name, labels, job, None)
    where = f"{path}.Statistics"
    checked(stats, where, dict)
    latency, operations = measured_latency(bench, stats, path)
    metrics = _metrics(bench, stats, path, info)
    if operations is not None:
        metrics["operations_per_iteration"] = operations
    try:
        trial = TrialIn(latency=latency, metrics=metrics)
    except ValidationError as error:
        raise ParseError(f"{path}: {validation_message(error)}") from error
    mean = latency.reported.mean if latency.reported else None
    return _Case(path, name, labels, job, trial,
                 rounded=mean is not None and mean < _ROUNDED_BELOW_NS)


def _parameters(bench: dict[str, Any], path: str) -> list[tuple[str, str]]:
    """`Parameters` ("Size=256&Mode=Fast") as (name, value) pairs, in order."""
    text = bench.get("Parameters")
    if text is None or not checked(text, f"{path}.Parameters", str):
        return []
    pairs = []
    for piece in _PARAMETER_START.split(text):
        name, equals, value = piece.partition("=")
        if not equals or not re.fullmatch(_IDENTIFIER, name):
            raise ParseError(f"{path}.Parameters: {text[:80]!r} is not BenchmarkDotNet's "
                             "Name=Value&Name=Value")
        pairs.append((name, value))
    return pairs


def _job(bench: dict[str, Any], parameters: list[tuple[str, str]]) -> str | None:
    """The job's display text from `DisplayInfo` ("Type.Method: Job-ABC(Runtime=.NET 8.0)
    [Size=256]"), or None where the file does not say (0.9.x writes no DisplayInfo)."""
    display = bench.get("DisplayInfo")
    if not isinstance(display, str):
        return None
    title = bench.get("MethodTitle")
    marker = f".{title if isinstance(title, str) else bench['Method']}: "
    at = display.find(marker)
    rest = display[at + len(marker):] if at >= 0 else display.partition(": ")[2]
    if parameters:
        rest = rest.removesuffix(" [" + ", ".join(f"{k}={v}" for k, v in parameters) + "]")
    return rest.strip() or None


def _label_jobs(cases: list[_Case]) -> None:
    """With several jobs in the file, each benchmark's job as a label: the job's id (the
    display text before its characteristics), or the whole text where ids repeat."""
    jobs = sorted({case.job for case in cases if case.job is not None})
    if len(jobs) < 2:
        return
    ids = {job: job.split("(", 1)[0].strip() if job.endswith(")") else job for job in jobs}
    if len(set(ids.values())) < len(ids):
        ids = {job: job for job in jobs}
    for case in cases:
        if case.job is not None:
            case.labels["job"] = ids[case.job]


def _metrics(bench: dict[str, Any], stats: dict[str, Any], path: str,
             info: dict[str, MetricSpec]) -> dict[str, float]:
    where = f"{path}.Statistics"
    metrics: dict[str, float] = {"iterations": float(stats["N"])}
    percentiles = stats.get("Percentiles")
    if percentiles is not None:
        checked(percentiles, f"{where}.Percentiles", dict)
        for q in _PERCENTILES:
            if f"P{q}" in percentiles:
                metrics[f"p{q}_linear"] = stat_ns(percentiles, f"P{q}", f"{where}.Percentiles")
    interval = stats.get("ConfidenceInterval")
    if isinstance(interval, dict):
        if "Mean" in interval and interval["Mean"] != stats["Mean"]:
            raise ParseError(f"{where}.ConfidenceInterval.Mean: {interval['Mean']!r} is not the "
                             f"Mean ({stats['Mean']!r}), whose interval it is")
        margin = interval.get("Margin")
        # BenchmarkDotNet writes NaN (too few iterations) as a string.
        if isinstance(margin, int | float) and not isinstance(margin, bool) and (
                math.isfinite(margin)):
            metrics["error_ns"] = stat_ns(interval, "Margin", f"{where}.ConfidenceInterval")
    memory = bench.get("Memory")
    if memory is not None:
        metrics |= _memory(checked(memory, f"{path}.Memory", dict), f"{path}.Memory")
    if bench.get("Metrics") is not None:
        metrics |= _diagnosed(bench["Metrics"], f"{path}.Metrics", info,
                              skip=_MEMORY_METRICS if memory is not None else {})
    return metrics


def _memory(memory: dict[str, Any], where: str) -> dict[str, float]:
    """MemoryDiagnoser's figures as BenchmarkDotNet's columns show them."""
    found: dict[str, float] = {}
    total = member(memory, "TotalOperations", where, float)
    counts = {g: member(memory, f"Gen{g}Collections", where, float) for g in (0, 1, 2)}
    for key, value in (("TotalOperations", total),
                       *((f"Gen{g}Collections", counts[g]) for g in counts)):
        if value < 0 or value != int(value):
            raise ParseError(f"{where}.{key}: {value:g} is not a count")
    if total > 0:
        for g, collections in counts.items():
            found[f"gen{g}_per_1000_ops"] = collections / total * 1000
    allocated = memory.get("BytesAllocatedPerOperation")
    if allocated is not None:  # null: BenchmarkDotNet could not measure it
        if checked(allocated, f"{where}.BytesAllocatedPerOperation", float) < 0:
            raise ParseError(f"{where}.BytesAllocatedPerOperation: {allocated:g} is negative")
        found["B_per_op"] = float(allocated)
    return found


def _diagnosed(entries: Any, where: str, info: dict[str, MetricSpec],
               skip: dict[str, str]) -> dict[str, float]:
    """The full export's diagnoser metrics, each named after its descriptor's Id."""
    found: dict[str, float] = {}
    for index, entry in enumerate(checked(entries, where, list)):
        at = f"{where}[{index}]"
        descriptor = member(checked(entry, at, dict), "Descriptor", at, dict)
        identity = named(descriptor, "Id", f"{at}.Descriptor")
        value = entry.get("Value")
        if identity in skip or not (isinstance(value, int | float)
                                    and not isinstance(value, bool) and math.isfinite(value)):
            continue  # MemoryDiagnoser's again, or a value BenchmarkDotNet could not compute
        name = _MEMORY_METRICS.get(identity) or metric_name(identity)
        if name in METRIC_INFO and identity not in _MEMORY_METRICS:
            name = f"metric_{name}"[:64]
        if name not in METRIC_INFO:
            unit = descriptor.get("Unit")
            if not isinstance(unit, str) or not unit:
                unit_type = descriptor.get("UnitType")
                unit = _UNIT_TYPES.get(unit_type, "") if isinstance(unit_type, int) else ""
            legend = descriptor.get("Legend") or descriptor.get("DisplayName") or identity
            info[name] = MetricSpec(
                unit=unit[:32], direction="higher" if descriptor.get("TheGreaterTheBetter") is True
                else "lower", label=str(legend)[:100])
        found[name] = float(value)
    return found


def _context(host: Any) -> tuple[dict[str, Scalar], list[str]]:
    """The machine and build BenchmarkDotNet says it ran on, and notes on what makes its
    figures doubtful (a DEBUG build, an attached debugger)."""
    machine: dict[str, Scalar] = {}
    notes: list[str] = []
    if not isinstance(host, dict):
        return machine, notes
    processor = host.get("ProcessorName")
    if isinstance(processor, dict):  # 0.9.x: a serialized Lazy<string>
        processor = processor.get("Value")
    texts = (("tool_version", host.get("BenchmarkDotNetVersion")), ("os", host.get("OsVersion")),
             ("cpu_model", processor),
             ("runtime", host.get("RuntimeVersion") or host.get("ClrVersion")),
             ("arch", host.get("Architecture")), ("build_type", host.get("Configuration")),
             ("dotnet_sdk", host.get("DotNetCliVersion")),
             ("timer", host.get("HardwareTimerKind")))
    for key, value in texts:
        if isinstance(value, str) and value.strip():
            machine[key] = value.strip()[:500]
    cores = host.get("LogicalCoreCount", host.get("ProcessorCount"))
    if isinstance(cores, int) and not isinstance(cores, bool) and cores > 0:
        machine["cpu_count"] = cores
    frequency = host.get("ChronometerFrequency")
    if isinstance(frequency, dict):  # {"Hertz": ...}; 0.9.x writes the number
        frequency = frequency.get("Hertz")
    if isinstance(frequency, int | float) and not isinstance(frequency, bool) and (
            math.isfinite(frequency) and frequency > 0):
        machine["timer_frequency_hz"] = float(frequency)
    if str(host.get("Configuration", "")).upper() == "DEBUG":
        notes.append("BenchmarkDotNet measured a DEBUG build (HostEnvironmentInfo.Configuration)"
                     ": its figures are not those of the optimized code")
    if host.get("HasAttachedDebugger") is True:
        notes.append("BenchmarkDotNet ran with a debugger attached "
                     "(HostEnvironmentInfo.HasAttachedDebugger): its figures are disturbed")
    return machine, notes
