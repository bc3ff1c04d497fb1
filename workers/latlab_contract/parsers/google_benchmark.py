"""Google Benchmark's JSON (`--benchmark_format=json`, or `--benchmark_out=FILE
--benchmark_out_format=json`), of every version that writes `run_type` and of the older ones
that do not (every entry a run then).

Each benchmark is a series (label `benchmark`: its `run_name`, else its `name`, which for an
aggregate loses its `_<aggregate_name>` suffix; and `label` when the benchmark set one with
`state.SetLabel` and every trial has the same, as Google Benchmark keeps it for aggregates).
Each of its `"run_type": "iteration"` entries (one per repetition with
`--benchmark_repetitions`) is a trial. Google Benchmark reports a mean time per iteration,
not a distribution: a trial's latency is that one value, its real time per iteration in ns
(one sample), and its metrics are
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
counters: their means; `repetitions`: how many repetitions it summed up), and each other
aggregate is a metric named after what it aggregates, `real_time_median`, `cpu_time_stddev`,
`bytes_per_second_cv`, ...: medians keep the direction of what they aggregate, standard
deviations (Google Benchmark's are the sample form, n - 1) and other statistics have none, and
`cv` (a coefficient of variation, written as a fraction: 0.05 is 5 %) is a `ratio`.

The CI gate's headline is `real_time`. Entries that are no measurement are left out: a
benchmark skipped with `SkipWithMessage` (`"skipped": true`) and the complexity fits
(`_BigO`, `_RMS`). A benchmark that failed (`"error_occurred": true`) is refused, naming it and
its message, rather than dropped from the run.
"""

from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from latlab_contract.parsers.base import ParseContext, Parsed, ParseError, validation_message
from latlab_contract.parsers.harness import (
    checked,
    duration_ns,
    load_json,
    member,
    metric_name,
    samples,
)
from latlab_contract.result import MAX_COUNT, SeriesIn, TrialIn
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


def parse(text: str, context: ParseContext) -> Parsed:
    document = load_json(text)
    benchmarks = member(checked(document, "$", dict), "benchmarks", "$", list)
    if not benchmarks:
        raise ParseError("$.benchmarks: no benchmark results")
    runs: dict[str, list[_Entry]] = {}
    for index, raw in enumerate(benchmarks):
        path = f"$.benchmarks[{index}]"
        read = _entry(checked(raw, path, dict), path)
        if read is not None:
            runs.setdefault(read[0], []).append(read[1])
    info: dict[str, MetricSpec] = dict(TIMES)
    series = []
    for benchmark, entries in runs.items():
        iterations = [entry for entry in entries if entry.aggregate is None]
        trials = ([_trial(entry, entry.values | {"iterations": float(entry.count)}, info)
                   for entry in iterations] if iterations
                  else [_aggregated(benchmark, entries, info)])
        info["iterations" if iterations else "repetitions"] = (
            ITERATIONS if iterations else REPETITIONS)
        labels = {"benchmark": benchmark}
        set_labels = {entry.label for entry in iterations or entries}
        if len(set_labels) == 1 and (label := set_labels.pop()) is not None:
            labels["label"] = label
        try:
            series.append(SeriesIn(labels=labels, trials=trials))
        except ValidationError as error:
            raise ParseError(f"{entries[0].path}: {validation_message(error)}") from error
    if not series:
        raise ParseError("$.benchmarks: no measured benchmark (only skipped runs and "
                         "complexity fits)")
    return Parsed(series=series, metric_info=info, gate=["real_time"])


def _entry(entry: dict[str, Any], path: str) -> tuple[str, _Entry] | None:
    """An entry's benchmark and values; None for one that measured nothing (skipped, a
    complexity fit)."""
    name = member(entry, "name", path, str)
    run_type = checked(entry.get("run_type", "iteration"), f"{path}.run_type", str)
    if run_type not in ("iteration", "aggregate"):
        raise ParseError(f"{path}.run_type: unknown run type '{run_type}'")
    if _flag(entry, "error_occurred", path):
        message = checked(entry.get("error_message", ""), f"{path}.error_message", str)
        raise ParseError(f"{path}: benchmark '{name}' failed: {message!r}")
    if _flag(entry, "skipped", path):
        return None
    aggregate = (member(entry, "aggregate_name", path, str) if run_type == "aggregate"
                 else None)
    if aggregate in _COMPLEXITY or "big_o" in entry or "rms" in entry:
        return None
    run_name = entry.get("run_name")
    if run_name is None:
        run_name = (name.removesuffix(f"_{aggregate}") if aggregate is not None else name)
    label = entry.get("label")
    if label is not None:
        checked(label, f"{path}.label", str)
    unit = checked(entry.get("aggregate_unit", "time"), f"{path}.aggregate_unit", str)
    if unit not in ("time", "percentage"):
        raise ParseError(f"{path}.aggregate_unit: unknown unit '{unit}'")
    read = _Entry(path, label, aggregate, unit == "percentage", _count(entry, path))
    time_unit = member(entry, "time_unit", path, str)
    for key in TIMES:
        value = member(entry, key, path, float)
        read.values[key] = (value if read.percentage
                            else duration_ns(value, time_unit, f"{path}.{key}"))
    for key, value in entry.items():
        if key in _FIELDS or isinstance(value, bool) or not isinstance(value, int | float):
            continue  # not a counter (a field this adapter does not read)
        name_of = metric_name(key)
        if name_of in _RESERVED or name_of in read.values:
            raise ParseError(f"{path}.{key}: the counter's name '{name_of}' is taken")
        read.values[name_of] = checked(value, f"{path}.{key}", float)
    return checked(run_name, f"{path}.run_name", str), read


def _flag(entry: dict[str, Any], key: str, path: str) -> bool:
    value = entry.get(key, False)
    if not isinstance(value, bool):
        raise ParseError(f"{path}.{key}: expected true or false, got {value!r}"[:200])
    return value


def _count(entry: dict[str, Any], path: str) -> int:
    value = member(entry, "iterations", path, float)
    if value != int(value) or not 1 <= value <= MAX_COUNT:
        raise ParseError(f"{path}.iterations: {value} is not a count within 1 .. {MAX_COUNT:,}")
    return int(value)


def _trial(entry: _Entry, metrics: dict[str, float], info: dict[str, MetricSpec]) -> TrialIn:
    """A trial of one value: the entry's real time per iteration."""
    for key in metrics:
        if key not in info and key not in _RESERVED:
            info[key] = _counter_spec(key)
    try:
        return TrialIn(latency=samples([round(entry.values["real_time"])], entry.path),
                       metrics=metrics)
    except ValidationError as error:
        raise ParseError(f"{entry.path}: {validation_message(error)}") from error


def _aggregated(benchmark: str, entries: list[_Entry], info: dict[str, MetricSpec]
                ) -> TrialIn:
    """The one trial of a benchmark reported by its aggregates only: its `mean`, with the
    other aggregates as metrics."""
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
    metrics = {**mean.values, "repetitions": float(mean.count)}
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
