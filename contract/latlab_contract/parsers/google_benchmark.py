"""Google Benchmark's JSON (`--benchmark_format=json`, or `--benchmark_out=FILE
--benchmark_out_format=json`), of every version that writes `run_type` and of the older ones
that do not (before 1.4.1, 2018: every entry a run then, its aggregates told by their names'
`_mean`, `_median` and `_stddev` suffixes; before 1.2, 2017, times are rounded to whole units,
before 1.1 there is no `time_unit`: nanoseconds).

Each benchmark is a series (label `benchmark`: its `run_name`, else its `name`, which for an
aggregate loses its `_<aggregate_name>` suffix; and `label` when the benchmark set one with
`state.SetLabel` and every trial has the same, as Google Benchmark keeps it for aggregates).
Each of its `"run_type": "iteration"` entries (one per repetition with
`--benchmark_repetitions`) is a trial. Google Benchmark reports a mean time per iteration,
not a distribution: a trial's latency is that one value, its real time per iteration (one
sample, in whole ns), and the trial's summary is that value exactly as the JSON has it (min =
max = mean = every percentile, stddev 0: a 1.17 ns benchmark shows 1.17, not 1). Its metrics
are
- `real_time` and `cpu_time`: the time per iteration in ns (`ns/iter`, lower is better),
  converted from the entry's `time_unit`, unrounded;
- `iterations`: how many iterations the repetition ran;
- every counter (the entry's other numeric keys): `bytes_per_second` (B/s) and
  `items_per_second` (items/s) are higher-better, the memory manager's `allocs_per_iter`
  (lower-better), `max_bytes_used`, `total_allocated_bytes` and `net_heap_growth` (B), and a
  user counter, kept as written, carries no unit or direction (the JSON says neither, nor
  whether the program made it a rate).

The aggregates Google Benchmark adds after the repetitions (`"run_type": "aggregate"`:
`mean`, `median`, `stddev`, `cv`, and statistics the program added) are its own statistics of
those trials, so they are read and checked but not kept when the repetitions are there. With
`--benchmark_report_aggregates_only` only they are left: the benchmark is then one trial,
built from its `mean` aggregate (latency: the mean real time; `real_time`, `cpu_time` and the
counters: their means; `repetitions`: how many repetitions it summed up, which the old schema
does not say: its mean's `iterations` is the iterations of a repetition, kept as such), and
each other aggregate is a metric named after what it aggregates, `real_time_median`,
`cpu_time_stddev`, `bytes_per_second_cv`, ...: medians keep the direction of what they
aggregate, standard deviations (Google Benchmark's are the sample form, n - 1) and other
statistics have none, and `cv` (a coefficient of variation, written as a fraction: 0.05 is
5 %) is a `ratio`.

The CI gate's headline is `real_time`. Entries that are no measurement are left out: a
benchmark skipped with `SkipWithMessage` (`"skipped": true`) and the complexity fits
(`_BigO`, `_RMS`). A benchmark that failed (`"error_occurred": true`, `SkipWithError`) printed
no measurement: its entries are failures of the executable's run, on every series of the file
(once, on its last trial: `failed` the failed entries, `total` the runs of the file, `detail`
the benchmarks and their `error_message`s), and a note names them; a file of failures only is
refused, naming them. The `context` is the run's context (`num_cpus` -> `cpu_count`,
`mhz_per_cpu`, `library_build_type` -> `build_type`, `library_version` -> `tool_version`,
`host_name`, `cpu_scaling_enabled`, the caches and load average as the console prints them);
a debug build of the library and CPU scaling, which Google Benchmark warns of, are notes.
Refused, naming the path: an empty name, a measured run of 0 iterations, a negative time or
a negative known counter.
"""

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from latlab_contract.fields import MAX_COUNT, Scalar
from latlab_contract.latency import Latency, Reported
from latlab_contract.parsers.base import ParseContext, Parsed, ParseError, validation_message
from latlab_contract.parsers.harness import (
    benchmark_results,
    checked,
    duration_ns,
    fail_every_series,
    list_of,
    load_object,
    member,
    metric_name,
)
from latlab_contract.result import Failures, SeriesIn, TrialIn
from latlab_contract.vocabulary import MetricSpec

TIMES = {
    "real_time": MetricSpec(unit="ns/iter", direction="lower", label="real time per iteration"),
    "cpu_time": MetricSpec(unit="ns/iter", direction="lower", label="CPU time per iteration"),
}
ITERATIONS = MetricSpec(unit="count", direction="none", label="iterations")
REPETITIONS = MetricSpec(unit="count", direction="none", label="repetitions aggregated")
COUNTERS = {
    "bytes_per_second": MetricSpec(unit="B/s", direction="higher", label="bytes per second"),
    "items_per_second": MetricSpec(unit="items/s", direction="higher", label="items per second"),
    "allocs_per_iter": MetricSpec(unit="allocs/iter", direction="lower",
                                  label="allocations per iteration"),
    "max_bytes_used": MetricSpec(unit="B", direction="none", label="most bytes in use"),
    "total_allocated_bytes": MetricSpec(unit="B", direction="none",
                                        label="bytes allocated in the memory run"),
    "net_heap_growth": MetricSpec(unit="B", direction="none", label="net heap growth"),
}
# The keys an entry has besides its counters (json_reporter.cc).
_FIELDS = frozenset({
    "name", "family_index", "per_family_instance_index", "run_name", "run_type", "repetitions",
    "repetition_index", "threads", "aggregate_name", "aggregate_unit", "error_occurred",
    "error_message", "skipped", "skip_message", "iterations", "real_time", "cpu_time",
    "time_unit", "big_o", "cpu_coefficient", "real_coefficient", "rms", "label",
})
_COMPLEXITY = ("BigO", "RMS")
_RESERVED = frozenset({*TIMES, "iterations", "repetitions"})
# The context keys read, under the lab's shared names.
_CONTEXT = {"num_cpus": "cpu_count", "mhz_per_cpu": "mhz_per_cpu",
            "library_build_type": "build_type", "library_version": "tool_version",
            "host_name": "host_name", "cpu_scaling_enabled": "cpu_scaling_enabled",
            "executable": "executable",
            "json_schema_version": "json_schema_version"}


# The aggregates the old schema (no `run_type`) told by a name's suffix.
_OLD_AGGREGATES = ("mean", "median", "stddev")
# Counters that are rates, sizes or counts: never negative.
_NON_NEGATIVE = frozenset(COUNTERS)


@dataclass
class _Entry:
    """One entry of `benchmarks[]`, checked: its values (times in ns, counters as written,
    a percentage aggregate's values as the fractions they are) and its count."""

    path: str
    label: str | None
    aggregate: str | None
    percentage: bool
    count: int
    values: dict[str, float] = field(default_factory=dict)


@dataclass
class _Failed:
    """An entry of a benchmark that failed (`error_occurred`): its name and message."""

    name: str
    message: str


def parse(text: str, context: ParseContext) -> Parsed:
    document = load_object(text)
    entries = list_of(benchmark_results(document, "benchmarks"), "$.benchmarks", dict)
    old = _old_aggregates(entries)
    runs: dict[str, list[_Entry]] = {}
    failed: list[_Failed] = []
    for index, entry in enumerate(entries):
        read = _entry(entry, f"$.benchmarks[{index}]", old.get(index))
        if isinstance(read, _Failed):
            failed.append(read)
        elif read is not None:
            runs.setdefault(read[0], []).append(read[1])
    info: dict[str, MetricSpec] = dict(TIMES)
    trials: dict[str, list[TrialIn]] = {}
    for benchmark, items in runs.items():
        iterations = [entry for entry in items if entry.aggregate is None]
        trials[benchmark] = ([_trial(entry, entry.values | {"iterations": float(entry.count)},
                                     info) for entry in iterations] if iterations
                             else [_aggregated(benchmark, items, info, old_schema=bool(old))])
        if iterations:
            info["iterations"] = ITERATIONS
    if not trials:
        if failed:
            raise ParseError(f"$.benchmarks: no measured benchmark: {_failures(failed)}"[:500])
        raise ParseError("$.benchmarks: no measured benchmark (only skipped runs and "
                         "complexity fits)")
    notes = []
    if failed:
        ran = len(failed) + sum(int(t.metrics.get("repetitions", 1))
                                for made in trials.values() for t in made)
        failures = Failures(failed=len(failed), total=ran, detail=_failures(failed)[:500])
        fail_every_series(trials.values(), failures)
        notes.append(f"Google Benchmark: {_failures(failed)}: no measurement of "
                     f"{'it' if len({f.name for f in failed}) == 1 else 'them'} is stored; "
                     f"the failure is on every series of the run"[:500])
    series = []
    for benchmark, items in runs.items():
        labels = {"benchmark": benchmark}
        set_labels = {entry.label for entry in
                      [e for e in items if e.aggregate is None] or items}
        if len(set_labels) == 1 and (label := set_labels.pop()) is not None:
            labels["label"] = label
        try:
            series.append(SeriesIn(labels=labels, trials=trials[benchmark]))
        except ValidationError as error:
            raise ParseError(f"{items[0].path}: {validation_message(error)}") from error
    machine, warnings = _context(document.get("context"))
    if old and all(isinstance(entry.get("real_time", 0), int) for entry in entries):
        notes.append("Google Benchmark before 1.2 writes times rounded to whole units "
                     "(2 ns for 2.47 ns): the trials are those whole values; a newer "
                     "version writes them exactly")
    return Parsed(series=series, metric_info=info, gate=["real_time"], context=machine,
                  notes=notes + warnings)


def _old_aggregates(entries: list[dict[str, Any]]) -> dict[int, str]:
    """The aggregates of a file of the old schema (no entry has a `run_type`), by index: an
    entry named `<benchmark>_mean`, `_median` or `_stddev` whose benchmark has runs in the
    file, or another aggregate of the same suffix family (aggregates only)."""
    if any("run_type" in entry for entry in entries):
        return {}
    names = [str(entry.get("name", "")) for entry in entries]
    split = {index: (name[:-len(suffix) - 1], suffix) for index, name in enumerate(names)
             for suffix in _OLD_AGGREGATES if name.endswith(f"_{suffix}")}
    bases: dict[str, int] = {}
    for base, _ in split.values():
        bases[base] = bases.get(base, 0) + 1
    plain = {name for index, name in enumerate(names) if index not in split}
    return {index: suffix for index, (base, suffix) in split.items()
            if base in plain or bases[base] > 1}


def _entry(entry: dict[str, Any], path: str, old_aggregate: str | None
           ) -> tuple[str, _Entry] | _Failed | None:
    """An entry's benchmark and values; a failed benchmark's name and message; None for one
    that measured nothing (skipped, a complexity fit)."""
    name = member(entry, "name", path, str)
    if not name.strip():
        raise ParseError(f"{path}.name: empty: every benchmark has a name")
    run_type = checked(entry.get("run_type", "iteration"), f"{path}.run_type", str)
    if run_type not in ("iteration", "aggregate"):
        raise ParseError(f"{path}.run_type: unknown run type '{run_type}'")
    if _flag(entry, "error_occurred", path):
        message = checked(entry.get("error_message", ""), f"{path}.error_message", str)
        run_name = entry.get("run_name")
        return _Failed(run_name if isinstance(run_name, str) else name, message)
    if _flag(entry, "skipped", path):
        return None
    aggregate = (member(entry, "aggregate_name", path, str) if run_type == "aggregate"
                 else old_aggregate)
    if aggregate in _COMPLEXITY or "big_o" in entry or "rms" in entry:
        return None
    run_name = entry.get("run_name")
    if run_name is None:
        run_name = (name.removesuffix(f"_{aggregate}") if aggregate is not None else name)
    if not checked(run_name, f"{path}.run_name", str).strip():
        raise ParseError(f"{path}.run_name: empty: every benchmark has a name")
    label = entry.get("label")
    if label is not None:
        checked(label, f"{path}.label", str)
    unit = checked(entry.get("aggregate_unit", "time"), f"{path}.aggregate_unit", str)
    if unit not in ("time", "percentage"):
        raise ParseError(f"{path}.aggregate_unit: unknown unit '{unit}'")
    read = _Entry(path, label, aggregate, unit == "percentage",
                  _count(entry, path, aggregate is not None))
    # Before 1.1 (2016) the JSON had no time unit: its times were nanoseconds.
    time_unit = (member(entry, "time_unit", path, str)
                 if "time_unit" in entry or "run_type" in entry else "ns")
    for key in TIMES:
        value = member(entry, key, path, float)
        if value < 0:
            raise ParseError(f"{path}.{key}: {value:g}: a time cannot be negative")
        read.values[key] = (value if read.percentage
                            else duration_ns(value, time_unit, f"{path}.{key}"))
    for key, value in entry.items():
        if key in _FIELDS or isinstance(value, bool) or not isinstance(value, int | float):
            continue  # not a counter (a field this adapter does not read)
        name_of = metric_name(key)
        if name_of in _RESERVED or name_of in read.values:
            raise ParseError(f"{path}.{key}: the counter's name '{name_of}' is taken")
        read.values[name_of] = checked(value, f"{path}.{key}", float)
        if key in _NON_NEGATIVE and value < 0:
            raise ParseError(f"{path}.{key}: {value:g}: {COUNTERS[key].label} cannot be "
                             f"negative")
    return run_name, read


def _flag(entry: dict[str, Any], key: str, path: str) -> bool:
    value = entry.get(key, False)
    if not isinstance(value, bool):
        raise ParseError(f"{path}.{key}: expected true or false, got {value!r}"[:200])
    return value


def _count(entry: dict[str, Any], path: str, aggregate: bool) -> int:
    """A run's iterations (at least one); an aggregate's (its repetitions, or in the old
    schema a repetition's iterations, 0 for its stddev) may be 0."""
    value = member(entry, "iterations", path, float)
    least = 0 if aggregate else 1
    if value != int(value) or not least <= value <= MAX_COUNT:
        rule = ("a measured run ran at least one iteration" if value == 0 and not aggregate
                else f"not a count within {least} .. {MAX_COUNT:,}")
        raise ParseError(f"{path}.iterations: {value:g}: {rule}")
    return int(value)


def _trial(entry: _Entry, metrics: dict[str, float], info: dict[str, MetricSpec]) -> TrialIn:
    """A trial of one value: the entry's real time per iteration, exactly as written in its
    summary."""
    for key in metrics:
        if key not in info and key not in _RESERVED:
            info[key] = _counter_spec(key)
    value = entry.values["real_time"]
    try:
        exact = Reported(min=value, max=value, mean=value, stddev=0.0, p50=value, p90=value,
                         p95=value, p99=value, p999=value, p9999=value)
        return TrialIn(latency=Latency(samples_ns=[round(value)], reported=exact),
                       metrics=metrics)
    except ValidationError as error:
        raise ParseError(f"{entry.path}: {validation_message(error)}") from error


def _failures(failed: list[_Failed]) -> str:
    """Failed benchmarks in Google Benchmark's words: `BM_X ERROR OCCURRED: 'message'`."""
    counted = Counter((item.name, item.message) for item in failed)
    return "; ".join(f"{name} ERROR OCCURRED: '{message}'" + (f" x{times}" if times > 1 else "")
                     for (name, message), times in counted.items())


def _context(context: Any) -> tuple[dict[str, Scalar], list[str]]:
    """The run context Google Benchmark printed, under the lab's shared keys, and notes on
    what it warns of (a debug build of the library, CPU scaling)."""
    if not isinstance(context, dict):
        return {}, []
    machine: dict[str, Scalar] = {}
    for key, name in _CONTEXT.items():
        value = context.get(key)
        if isinstance(value, bool) or (isinstance(value, int | float)
                                       and not isinstance(value, bool)
                                       and math.isfinite(value) and abs(value) < 2**53):
            machine[name] = value
        elif isinstance(value, str) and value and "\x00" not in value:
            machine[name] = value[:500]
    caches = context.get("caches")
    if isinstance(caches, list) and caches:
        machine["caches"] = ", ".join(_cache(cache) for cache in caches)[:500]
    load = context.get("load_avg")
    if isinstance(load, list) and load and all(isinstance(v, int | float) for v in load):
        machine["load_avg"] = ", ".join(f"{value:.2f}" for value in load)
    notes = []
    if machine.get("build_type") == "debug":
        notes.append("Google Benchmark's library was built as debug (library_build_type "
                     "\"debug\"; it warns that timings may be affected): build it with "
                     "-DCMAKE_BUILD_TYPE=Release to measure with the release library")
    if machine.get("cpu_scaling_enabled") is True:
        notes.append("CPU frequency scaling was enabled (cpu_scaling_enabled): Google "
                     "Benchmark warns that real time measurements will be noisy")
    return machine, notes


def _cache(cache: Any) -> str:
    """A cache as the console prints it: `L1 Data 48 KiB (x2)`."""
    if not isinstance(cache, dict):
        return "?"
    size = cache.get("size")
    size_text = (f"{size // 1024} KiB" if isinstance(size, int) and size % 1024 == 0
                 else f"{size} B")
    sharing = cache.get("num_sharing")
    return (f"L{cache.get('level')} {cache.get('type')} {size_text}"
            + (f" (num_sharing {sharing})" if isinstance(sharing, int) else ""))


def _aggregated(benchmark: str, entries: list[_Entry], info: dict[str, MetricSpec], *,
                old_schema: bool) -> TrialIn:
    """The one trial of a benchmark reported by its aggregates only: its `mean`, with the
    other aggregates as metrics (and how many repetitions it sums up; in the old schema, the
    iterations of a repetition)."""
    by_name: dict[str, _Entry] = {}
    for entry in entries:
        assert entry.aggregate is not None
        if entry.aggregate in by_name:
            raise ParseError(f"{entry.path}: a second '{entry.aggregate}' aggregate of "
                             f"'{benchmark}'")
        by_name[entry.aggregate] = entry
    mean = by_name.get("mean")
    if mean is None or mean.percentage:
        raise ParseError(f"{entries[0].path}: '{benchmark}' has no repetitions and no mean "
                         f"aggregate (only {', '.join(sorted(by_name))}): nothing to make a "
                         f"trial of")
    counted = "iterations" if old_schema else "repetitions"
    metrics = {**mean.values, counted: float(mean.count)}
    info[counted] = ITERATIONS if old_schema else REPETITIONS
    for name, entry in by_name.items():
        if name == "mean":
            continue
        for key, value in entry.values.items():
            derived = metric_name(f"{key}_{name}")
            if derived in metrics:
                raise ParseError(f"{entry.path}: the metric name '{derived}' is taken")
            metrics[derived] = value
            info[derived] = _aggregate_spec(TIMES.get(key) or _counter_spec(key), name,
                                            entry.percentage)
    return _trial(mean, metrics, info)


def _counter_spec(key: str) -> MetricSpec:
    return COUNTERS.get(key) or MetricSpec(unit="", direction="none",
                                           label=f"user counter {key}"[:100])


def _aggregate_spec(spec: MetricSpec, aggregate: str, percentage: bool) -> MetricSpec:
    label = f"{spec.label or 'value'}, {aggregate} of the repetitions"[:100]
    if percentage:
        return MetricSpec(unit="ratio", direction="none", label=label)
    direction = spec.direction if aggregate == "median" else "none"
    return MetricSpec(unit=spec.unit, direction=direction, label=label)
