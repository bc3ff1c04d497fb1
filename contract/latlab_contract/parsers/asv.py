"""airspeed velocity's results (asv): the file `asv run` writes for each commit and
environment, `results/<machine>/<commit>-<env>.json` (results API `version` 2, with
`result_columns`: asv 0.5 and later; 0.5.1 and 0.6.6 read alike).

Each row of `results` is a benchmark, named as asv names it (`benchmarks.TimeSuite.time_x`),
and its kind is the one asv_runner gives its last name part: `time_*` and `timeraw_*` are
timed, `track_*`, `mem_*` and `peakmem_*` are values (so are `Time...`, `Timeraw...`,
`Track...`, `Mem...`, `PeakMem...`). A parameterized benchmark has one result for each
combination of its `params` (their product, in order; each value as asv wrote it, Python's
repr: `10`, `'bytes'`).

A timed result is a series labelled `benchmark` and, when parameterized, `param1`, `param2`,
... (the values by position: the file does not carry `param_names`, which are in asv's
`results/benchmarks.json`); a file is one trial of each. asv times `number` calls at a time,
`repeat` times (over all its rounds), and each sample is their time divided by `number`
(seconds a call). With the samples (`asv run --record-samples`) the trial's latency is the
samples themselves, in whole ns. Without them it is rebuilt (`harness.spectrum`, marked
`rebuilt`) over `repeat` samples from asv's quartiles and median, each at its nearest rank, the
samples below `q_25` at `q_25` and those above `q_75` at `q_75` (asv writes no minimum or
maximum), and a note says how to keep the samples. Either way the trial's summary is asv's
`result` as `p50` (the samples' median, for an even count the middle two averaged: the figure
asv prints and compares runs by): the CI gate judges it. The other percentiles are the lab's,
of the samples (nearest rank) or of the rebuilt histogram (interpolated, never gated unless
asked). Its metrics, asv's own:
- `ci_99_lower_ns`, `ci_99_upper_ns`: the bounds of asv's 99 % confidence interval of the
  median (`stats_ci_99_a`, `_b`; no direction). With one sample (`asv run --quick`) asv has
  no interval (it writes -Infinity, Infinity): none is kept, and a note says so;
- `q_25_ns`, `q_75_ns`: the samples' quartiles (linear interpolation, as asv computes them;
  lower-better). asv prints `result±err` with err = (q_75 - q_25) / 2; err is left out;
- `number` (calls timed together) and `repeat` (samples).
asv writes its statistics with five significant digits: they are kept so, and checked
against the median and samples within that rounding. Left out: each benchmark's `version`
(a hash of its code), `started_at`, `duration`, `profile`, and the file's `durations`.

A `track_*`, `mem_*` or `peakmem_*` result is no latency: it is a metric on every series of
the file (the trial of each timed result), keyed by its name and params
(`benchmarks.track_rounds`, `benchmarks.mem_x.10`; a key longer than 64 characters, or one
two names share, shortened with a hash of the whole), its label the name as asv prints it
(`benchmarks.mem_x(10)`). `mem_` (the size of the object returned) and `peakmem_` (the
process's peak resident memory) are in bytes (`B`); a `track_` value is in its own unit, which
the results file does not carry (it is in `results/benchmarks.json`): its unit is asv's
default name, `unit`. asv judges every benchmark lower-better (`asv compare` flags a rise as
worse): so do they.

A result asv wrote as null failed (the benchmark raised: asv prints "failed"; a row whose
`result` is null failed whole): it measured nothing, and is a failure of the run, on every
series of the file (once, on its last trial: `failed` the failed results, `total` the results
asv attempted, the detail naming them), with a note; a file of failures only is refused naming
them. A result asv wrote as NaN was skipped (its setup raised `NotImplementedError`: asv
prints "n/a"): not attempted, so neither measured nor failed; a note names it. A benchmark of
no kind asv_runner defines (an asv plugin's) is left out with a note. A file without a timed
result is refused: the lab keeps a latency for every series.

The run's context: the machine asv ran on (`params`: `cpu` -> `cpu_model`, `num_cpu` ->
`cpu_count`, `arch` -> `machine`, `os` -> `system`, `ram`, `machine` -> `asv_machine`), its
`python`, `env_name` -> `asv_env` and `commit_hash` -> `asv_commit`.

Refused, naming the JSON path (a row's columns by their `result_columns` names, e.g.
`$.results["benchmarks.time_x"].stats_q_25[2]`): a file that is not asv's results (its
console output, `machine.json` and `benchmarks.json` named as such), another results API
version, no `result_columns` or results, an empty name, results that are not one per
combination of the params, a negative time or size, a timed result without its statistics,
quartiles or a confidence interval that do not hold its median, a count below 1, and
statistics that contradict the samples (their number, median or quartiles).
"""

import hashlib
import itertools
import json
import math
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import ValidationError

from latlab_contract.fields import Scalar
from latlab_contract.latency import Reported
from latlab_contract.parsers.asv_columns import (
    TRUNCATED,
    agree,
    combinations,
    per_combination,
    result_columns,
    timed_stats,
)
from latlab_contract.parsers.base import ParseContext, Parsed, ParseError, validation_message
from latlab_contract.parsers.harness import (
    checked,
    duration_ns,
    fail_every_series,
    load_object,
    member,
    metric_name,
    spectrum,
    timed,
)
from latlab_contract.result import Failures, SeriesIn, TrialIn
from latlab_contract.vocabulary import MetricSpec

_TIME_UNIT = "ns"
METRIC_INFO = {
    "ci_99_lower_ns": MetricSpec(unit=_TIME_UNIT, direction="none",
                                 label="median's 99 % confidence interval, lower bound"),
    "ci_99_upper_ns": MetricSpec(unit=_TIME_UNIT, direction="none",
                                 label="median's 99 % confidence interval, upper bound"),
    "q_25_ns": MetricSpec(unit=_TIME_UNIT, direction="lower",
                          label="25th percentile of the samples (interpolated)"),
    "q_75_ns": MetricSpec(unit=_TIME_UNIT, direction="lower",
                          label="75th percentile of the samples (interpolated)"),
    "number": MetricSpec(unit="count", direction="none", label="calls timed per sample"),
    "repeat": MetricSpec(unit="count", direction="none", label="samples"),
}
Kind = Literal["time", "track", "mem", "peakmem"]
# asv_runner's benchmark types, in its order, by the name's last part (`name_regex`).
_KINDS: tuple[tuple[Kind, re.Pattern[str]], ...] = (
    ("mem", re.compile(r"^(Mem[A-Z_].+)|(mem_.+)$")),
    ("peakmem", re.compile(r"^(PeakMem[A-Z_].+)|(peakmem_.+)$")),
    ("time", re.compile(r"^(Time[A-Z_].+)|(time_.+)$")),
    ("time", re.compile(r"^(Timeraw[A-Z_].+)|(timeraw_.+)$")),
    ("track", re.compile(r"^(Track[A-Z_].+)|(track_.+)$")),
)
_VALUE_UNITS = {"mem": "B", "peakmem": "B", "track": "unit"}
# asv's statistics that are times, by the metric each is.
_BOUNDS = {"q_25": "q_25_ns", "q_75": "q_75_ns", "ci_99_a": "ci_99_lower_ns",
           "ci_99_b": "ci_99_upper_ns"}
_CONTEXT = (("cpu", "cpu_model"), ("arch", "machine"), ("os", "system"), ("ram", "ram"),
            ("machine", "asv_machine"))
_FILE = "results/<machine>/<commit>-<env>.json"


@dataclass
class _Found:
    """What the rows of a file gave: the timed results' series, the other results' values,
    and the results asv failed, skipped or the adapter does not know."""

    series: list[tuple[dict[str, str], TrialIn]] = field(default_factory=list)
    # Each value's key text, its name as asv prints it, its kind and the value.
    values: list[tuple[str, str, Kind, float]] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)  # as asv prints them
    failures: int = 0  # the results that failed (a row failed whole counts each combination)
    skipped: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    rebuilt: list[str] = field(default_factory=list)
    one_sample: list[str] = field(default_factory=list)
    attempted: int = 0


def parse(text: str, context: ParseContext) -> Parsed:
    document = _document(text)
    columns = result_columns(document)
    results = member(document, "results", "$", dict)
    if not results:
        raise ParseError("$.results: no benchmark results")
    found = _Found()
    for name, row in results.items():
        _benchmark(name, row, columns, found)
    if not found.series:
        raise ParseError(_nothing_timed(found))
    metrics, info = _values(found.values)
    trials = [[trial.model_copy(update={"metrics": {**trial.metrics, **metrics}})]
              for _, trial in found.series]
    notes = _notes(found)
    if found.failed:
        detail = f"asv: failed: {', '.join(found.failed)}"[:500]
        fail_every_series(trials, Failures(failed=found.failures, total=found.attempted,
                                           detail=detail))
        notes.insert(0, f"asv wrote no result for {found.failures} of {found.attempted} "
                        f"results (they raised): {', '.join(found.failed)}; the failure is on "
                        "every series of the run"[:500])
    try:
        series = [SeriesIn(labels=labels, trials=items)
                  for (labels, _), items in zip(found.series, trials, strict=True)]
    except ValidationError as error:
        raise ParseError(validation_message(error)) from error
    return Parsed(series=series, metric_info={**METRIC_INFO, **info}, gate=["p50"],
                  context=_context(document), notes=notes[:20])


def _document(text: str) -> dict[str, Any]:
    """The file's object: asv's results, or a refusal saying what was given."""
    start = text.lstrip()
    if not start.startswith("{"):
        if "···" in text or start.startswith(("Commit:", "· ")):
            raise ParseError(f"line 1: asv's console output, not its results JSON: give the "
                             f"file `asv run` wrote, {_FILE}")
        raise ParseError(f"line 1: not asv's results JSON ({_FILE})")
    document = load_object(text)
    if "results" not in document:
        if "arch" in document and "machine" in document:
            raise ParseError(f"$: asv's machine.json, not a results file: give {_FILE}")
        if any(isinstance(value, dict) and "code" in value for value in document.values()):
            raise ParseError(f"$: asv's benchmarks.json (the benchmarks' code and settings), "
                             f"not a results file: give {_FILE}")
    version = member(document, "version", "$", int)
    if version != 2:
        raise ParseError(f"$.version: results API version {version}: the adapter reads "
                         "version 2, which asv 0.5 and later write (`asv update` converts "
                         "older results)")
    return document


def _benchmark(name: str, row: Any, columns: list[str], found: _Found) -> None:
    """One row of `results`: its timed results' series, its values, its failures."""
    path = f"$.results[{json.dumps(name)}]"
    if not name.strip():
        raise ParseError(f"{path}: an empty name (asv names every benchmark)")
    checked(row, path, list)
    if len(row) > len(columns):
        raise ParseError(f"{path}: {len(row)} values for {len(columns)} result_columns")
    fields = dict(itertools.zip_longest(columns, row))  # asv drops trailing nulls
    kind = next((kind for kind, pattern in _KINDS if pattern.match(name.split(".")[-1])),
                None)
    if kind is None:
        found.unknown.append(name)
        return
    combos = combinations(fields["params"], f"{path}.params")
    if fields["result"] is None:
        found.failed.append(name)
        found.failures += len(combos)
        found.attempted += len(combos)
        return
    values = per_combination(fields, "result", len(combos), path)
    for index, (combo, value) in enumerate(zip(combos, values, strict=True)):
        where = f"{path}.result[{index}]"
        shown = f"{name}({', '.join(combo)})" if combo else name
        if value is None:
            found.failed.append(shown)
            found.failures += 1
            found.attempted += 1
            continue
        if isinstance(value, float) and math.isnan(value):
            found.skipped.append(shown)
            continue
        found.attempted += 1
        result = checked(value, where, float)
        if kind == "time":
            labels = {"benchmark": name,
                      **{f"param{i}": item for i, item in enumerate(combo, 1)}}
            found.series.append((labels, _timed(fields, index, len(combos), result, path,
                                                shown, found)))
            continue
        if kind != "track" and result < 0:
            raise ParseError(f"{where}: {result:g} bytes: a size cannot be negative")
        found.values.append((".".join((name, *combo)), shown, kind, float(result)))


def _timed(fields: dict[str, Any], index: int, count: int, result: float, path: str,
           shown: str, found: _Found) -> TrialIn:
    """A timed result's trial: its latency (the samples, or rebuilt) and asv's statistics."""
    where = f"{path}.result[{index}]"
    median = duration_ns(result, "s", where)
    stats = timed_stats(fields, index, count, path)
    metrics = {"number": stats["number"], "repeat": stats["repeat"]}
    for key, name in _BOUNDS.items():
        if key not in stats:  # one sample: asv has no interval
            continue
        at = f"{path}.stats_{key}[{index}]"
        # A quartile is a sample's time; asv's model may put the interval below 0.
        value = duration_ns(stats[key], "s", at) if key.startswith("q_") else stats[key] * 1e9
        below = key in ("q_25", "ci_99_a")
        slack = median * TRUNCATED + 1e-6
        outside = value > median + slack if below else value < median - slack
        if outside:
            raise ParseError(f"{at}: {stats[key]:g} s is {'above' if below else 'below'} the "
                             f"median ({result:g} s): asv's quartiles and confidence interval "
                             "hold its median")
        metrics[name] = value
    if "ci_99_a" not in stats or "ci_99_b" not in stats:
        found.one_sample.append(shown)
    recorded = None if fields.get("samples") is None else per_combination(
        fields, "samples", count, path)[index]
    if recorded is None:
        found.rebuilt.append(shown)
        low, high = min(metrics["q_25_ns"], median), max(metrics["q_75_ns"], median)
        latency = spectrum([(25.0, low), (50.0, median), (75.0, high), (100.0, high)],
                           int(stats["repeat"]), where)
    else:
        times, latency = timed(recorded, f"{path}.samples[{index}]", "s")
        agree(times, result, stats, path, index)
    try:
        return TrialIn(latency=latency.model_copy(update={"reported": Reported(p50=median)}),
                       metrics=metrics)
    except ValidationError as error:
        raise ParseError(f"{where}: {validation_message(error)}") from error


def _values(values: list[tuple[str, str, Kind, float]]
            ) -> tuple[dict[str, float], dict[str, MetricSpec]]:
    """The track_, mem_ and peakmem_ results as metrics, with their specs."""
    metrics: dict[str, float] = {}
    info: dict[str, MetricSpec] = {}
    for text, shown, kind, value in values:
        key = metric_name(text)
        if key in METRIC_INFO or key in metrics or len(key) == 64:
            key = f"{key[:55]}-{hashlib.sha1(text.encode()).hexdigest()[:8]}"
        metrics[key] = value
        info[key] = MetricSpec(unit=_VALUE_UNITS[kind], direction="lower", label=shown[:100])
    return metrics, info


def _nothing_timed(found: _Found) -> str:
    if found.failed:
        return (f"$.results: no benchmark was measured: asv wrote no result for "
                f"{', '.join(found.failed)} (they raised)")[:500]
    if found.values:
        return ("$.results: no timed result (time_*, timeraw_*): the lab keeps a latency for "
                f"every series, and asv's {', '.join(shown for _, shown, _, _ in found.values)}"
                " are values")[:500]
    if found.skipped:
        return f"$.results: every result was skipped: {', '.join(found.skipped)}"[:500]
    return (f"$.results: no benchmark of a kind asv_runner defines: "
            f"{', '.join(found.unknown)}")[:500]


def _notes(found: _Found) -> list[str]:
    notes = []
    if found.skipped:
        notes.append(f"asv skipped {', '.join(found.skipped)} (NaN: its setup raised "
                     "NotImplementedError): not measured, and no failure"[:500])
    if found.rebuilt:
        notes.append(f"asv kept no samples of {len(found.rebuilt)} timed results (run `asv "
                     "run --record-samples` to keep them): their latency is rebuilt from "
                     "asv's median and quartiles"[:500])
    if found.one_sample:
        notes.append(f"asv took one sample of {', '.join(found.one_sample)} (as `asv run "
                     "--quick` does): it has no confidence interval, and none is kept"[:500])
    if found.unknown:
        notes.append(f"{', '.join(found.unknown)}: no benchmark kind asv_runner defines "
                     "(time_, timeraw_, track_, mem_, peakmem_; an asv plugin's?): not "
                     "kept"[:500])
    return notes


def _context(document: dict[str, Any]) -> dict[str, Scalar]:
    machine: dict[str, Scalar] = {}
    params = document.get("params")
    params = params if isinstance(params, dict) else {}
    for key, name in _CONTEXT:
        if isinstance(params.get(key), str) and params[key].strip():
            machine[name] = params[key].strip()[:500]
    cpus = params.get("num_cpu")
    if isinstance(cpus, str) and cpus.strip().isdigit():
        machine["cpu_count"] = int(cpus)
    for key, name in (("python", "python"), ("env_name", "asv_env"),
                      ("commit_hash", "asv_commit")):
        if isinstance(document.get(key), str) and document[key]:
            machine[name] = document[key][:500]
    return machine
