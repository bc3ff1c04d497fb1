"""The microbenchmark adapters against the real tools' output: Google Benchmark
(golden/adapters/google-benchmark), hyperfine (hyperfine/) and JMH of several versions
(jmh/1.21, 1.32, 1.37 and JMH's own upstream golden files). Every golden file found is
parsed, and the result is compared with the tool's JSON and with what the tool itself printed
in the same run (Google Benchmark's console table, hyperfine's report and CSV, JMH's console
output and its text and CSV tables), read here from the golden files: nothing expected is
typed in by hand. Malformed input is refused as a ParseError naming its JSON path."""

import copy
import csv
import functools
import io
import json
import math
import re
import statistics
from collections.abc import Callable, Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hdrh.histogram import HdrHistogram

from latlab_contract.latency import Latency, order_problem
from latlab_contract.parsers import ParseContext, Parsed, ParseError, jmh
from latlab_contract.parsers import google_benchmark as gbench
from latlab_contract.parsers import hyperfine as hfine
from latlab_contract.parsers.harness import metric_name
from latlab_contract.result import SeriesIn, TrialIn
from latlab_contract.vocabulary import SUMMARY_PERCENTILES

GOLDEN = Path(__file__).parent / "golden" / "adapters"
CONTEXT = ParseContext()
# Nanoseconds per unit, as the tools print units.
UNIT_NS = {"ns": 1.0, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9}
Labels = tuple[tuple[str, str], ...]
Parser = Callable[[str, ParseContext], Parsed]
PARSERS: dict[str, Parser] = {"google-benchmark": gbench.parse, "hyperfine": hfine.parse,
                              "jmh": jmh.parse}


@functools.cache
def parsed(adapter: str, path: Path) -> Parsed:
    return PARSERS[adapter](path.read_text(), CONTEXT)


def parse(adapter: str, path: Path) -> dict[Labels, SeriesIn]:
    """The series an adapter reads from a golden file, by labels."""
    found = {tuple(sorted(s.labels.items())): s for s in parsed(adapter, path).series}
    assert len(found) == len(parsed(adapter, path).series)
    return found


def key(labels: dict[str, str]) -> Labels:
    return tuple(sorted(labels.items()))


def same(ours: float | None, theirs: float) -> bool:
    """Equal to 1e-9 relative (a unit's conversion to ns in floating point)."""
    return ours is not None and math.isclose(ours, theirs, rel_tol=1e-9)


def printed_as(ours: float, printed: str) -> str:
    """Our value to the decimals of a number the tool printed."""
    return f"{ours:.{len(printed.partition('.')[2])}f}"


def rounds_to(ours: float, printed: str) -> bool:
    """Our value lies in the rounding interval of a number the tool printed, ends included:
    Java's formatting (JMH) rounds a tie half up on the number's shortest decimal form, so a
    mean that is 20.7445 in the JSON prints as 20.745 while Python's rounding of the binary
    value (20.74449999...) gives 20.744."""
    half = 10.0 ** -len(printed.partition(".")[2]) / 2
    return abs(ours - float(printed)) <= half * (1 + 1e-9) + 1e-12 * abs(ours)


def histogram(trial: TrialIn) -> HdrHistogram:
    assert trial.latency.hdr is not None
    return HdrHistogram.decode(trial.latency.hdr)


def relative(path: Path) -> str:
    return str(path.relative_to(GOLDEN))


# Google Benchmark: runs of 1.7.1 and 1.9.5 (JSON and the console table of the same run), and
# google/benchmark's own JSON inputs of its compare.py tests.

GB = GOLDEN / "google-benchmark"
GB_RUNS = sorted(p for p in GB.glob("*/*.json") if p.parent.name != "upstream")
GB_UPSTREAM = sorted((GB / "upstream").glob("*.json"))
# The upstream inputs that are no Google Benchmark output (hand-made for compare.py's tests),
# and where each is refused.
GB_REFUSED = {
    "test3_run0.json": r"^\$\.benchmarks\[0\]\.aggregate_name: missing$",
    "test3_run1.json": r"^\$\.benchmarks\[1\]\.aggregate_name: missing$",
    "test4_run.json": r"^\$\.benchmarks\[0\]\.iterations: missing$",
    "test4_run0.json": r"^\$\.benchmarks\[0\]: 'whocares' has no repetitions and no mean",
    "test4_run1.json": r"^\$\.benchmarks\[0\]: 'whocares' has no repetitions and no mean",
}
GB_READ = [*GB_RUNS, *(p for p in GB_UPSTREAM if p.name not in GB_REFUSED)]
# The keys of an entry that are not counters (the library's json_reporter.cc).
GB_FIELDS = {"name", "family_index", "per_family_instance_index", "run_name", "run_type",
             "repetitions", "repetition_index", "threads", "aggregate_name", "aggregate_unit",
             "error_occurred", "error_message", "skipped", "skip_message", "iterations",
             "real_time", "cpu_time", "time_unit", "big_o", "cpu_coefficient",
             "real_coefficient", "rms", "label"}


def gb_benchmark(entry: dict[str, Any]) -> str:
    if "run_name" in entry:
        return str(entry["run_name"])
    suffix = f"_{entry['aggregate_name']}" if entry.get("run_type") == "aggregate" else ""
    return str(entry["name"]).removesuffix(suffix)


def gb_values(entry: dict[str, Any]) -> dict[str, float]:
    """An entry's times in ns (a percentage aggregate's as written) and its counters."""
    scale = 1.0 if entry.get("aggregate_unit") == "percentage" else UNIT_NS[entry["time_unit"]]
    counters = {k: float(v) for k, v in entry.items() if k not in GB_FIELDS
                and isinstance(v, int | float) and not isinstance(v, bool)}
    return {"real_time": entry["real_time"] * scale, "cpu_time": entry["cpu_time"] * scale,
            **counters}


def gb_grouped(path: Path) -> dict[str, list[dict[str, Any]]]:
    """The JSON's measured entries (not complexity fits) by benchmark, in order."""
    grouped: dict[str, list[dict[str, Any]]] = {}
    for entry in json.loads(path.read_text())["benchmarks"]:
        if entry.get("aggregate_name") not in ("BigO", "RMS"):
            grouped.setdefault(gb_benchmark(entry), []).append(entry)
    return grouped


def gb_series(path: Path, benchmark: str) -> SeriesIn:
    (found,) = [s for s in parse("google-benchmark", path).values()
                if s.labels["benchmark"] == benchmark]
    return found


@pytest.mark.parametrize("path", GB_READ, ids=relative)
def test_google_benchmark_trials_are_the_json_entries(path: Path) -> None:
    grouped = gb_grouped(path)
    series = parse("google-benchmark", path)
    assert len(series) == len(grouped)
    for benchmark, entries in grouped.items():
        runs = [e for e in entries if e.get("run_type", "iteration") == "iteration"]
        item = gb_series(path, benchmark)
        labels = {e.get("label") for e in runs or entries}
        assert item.labels == {"benchmark": benchmark, **(
            {"label": next(iter(labels))} if len(labels) == 1 and None not in labels else {})}
        if runs:  # every repetition a trial: its real time per iteration
            assert len(item.trials) == len(runs)
            for trial, entry in zip(item.trials, runs, strict=True):
                values = gb_values(entry)
                assert set(trial.metrics) == {*values, "iterations"}
                for name, value in values.items():
                    assert same(trial.metrics[name], value), name
                assert trial.metrics["iterations"] == entry["iterations"]
                assert trial.latency.samples_ns == [round(values["real_time"])]
        else:  # aggregates only: one trial, the mean, the other aggregates as metrics
            (trial,) = item.trials
            by_name = {e["aggregate_name"]: e for e in entries}
            expected = {**gb_values(by_name["mean"]),
                        "repetitions": float(by_name["mean"]["iterations"])}
            for name, entry in by_name.items():
                if name != "mean":
                    expected |= {f"{k}_{name}": v for k, v in gb_values(entry).items()}
            assert set(trial.metrics) == set(expected)
            for name, value in expected.items():
                assert same(trial.metrics[name], value), name
            assert trial.latency.samples_ns == [round(expected["real_time"])]


@pytest.mark.parametrize("path", GB_READ, ids=relative)
def test_google_benchmark_gates_real_time_and_says_units(path: Path) -> None:
    result = parsed("google-benchmark", path)
    assert result.gate == ["real_time"]
    names = {name for s in result.series for t in s.trials for name in t.metrics}
    assert names <= set(result.metric_info)
    info = result.metric_info
    assert (info["real_time"].unit, info["real_time"].direction) == ("ns/iter", "lower")
    assert (info["cpu_time"].unit, info["cpu_time"].direction) == ("ns/iter", "lower")
    for name in names & {"bytes_per_second", "items_per_second"}:
        assert info[name].direction == "higher"
    for name in names:
        if name.endswith("_cv"):
            assert (info[name].unit, info[name].direction) == ("ratio", "none")
        if name.endswith("_stddev"):
            assert info[name].direction == "none"


GB_ROW = re.compile(r"^(\S+)\s+(\S+) (ns|us|ms|s|%)\s+(\S+) (ns|us|ms|s|%)\s+(\d+)(.*)$")
GB_COUNTER = re.compile(r"^([^=\s]+)=([-\d.e+]+)([kKMGTPEZY]?)(i?)(/s)?$")


def gb_table(path: Path) -> list[tuple[str, dict[str, str], dict[str, str]]]:
    """The console table of a run: (name, columns, counters as printed) per row."""
    lines = path.with_suffix(".txt").read_text().splitlines()
    assert lines[1].split()[:4] == ["Benchmark", "Time", "CPU", "Iterations"]
    rows = []
    for line in lines[3:]:
        match = GB_ROW.match(line)
        assert match is not None, line
        name, real, real_unit, cpu, cpu_unit, iterations, rest = match.groups()
        counters = {}
        for text in rest.split():
            counter = GB_COUNTER.match(text)
            assert counter is not None, text
            counters[counter.group(1)] = text.partition("=")[2]
        rows.append((name, {"real_time": real, "cpu_time": cpu, "unit": real_unit,
                            "cpu_unit": cpu_unit, "iterations": iterations}, counters))
    return rows


def gb_counter_as_printed(name: str, ours: float, printed: str) -> str:
    """Our counter value as the console prints it (`HumanReadableNumber`): 6 significant
    digits after a 1000- or 1024-based prefix. The bytes counter of `SetBytesProcessed` is
    1024-based (1.7.1 writes its prefix as `G`, 1.9 as `Gi`), the others 1000-based."""
    match = GB_COUNTER.match(f"{name}={printed}")
    assert match is not None
    _, _, prefix, _, rate = match.groups()
    base = 1024.0 if name == "bytes_per_second" else 1000.0
    power = " kMGTPEZY".index(prefix.lower() if prefix == "K" else prefix) if prefix else 0
    return f"{ours / base ** power:g}{prefix}{match.group(4)}{rate or ''}"


def gb_statistics(values: list[float]) -> dict[str, float]:
    """What Google Benchmark's aggregates are of repetitions (statistics.cc): the mean, the
    median (the middle two averaged), the sample standard deviation and stddev / mean."""
    mean = statistics.fmean(values)
    stddev = statistics.stdev(values)
    return {"mean": mean, "median": statistics.median(values), "stddev": stddev,
            "cv": stddev / mean}


@pytest.mark.parametrize("path", GB_RUNS, ids=relative)
def test_google_benchmark_console_table_is_ours(path: Path) -> None:
    series = {s.labels["benchmark"]: s for s in parse("google-benchmark", path).values()}
    shown = dict.fromkeys(series, 0)  # the repetition rows printed so far, by benchmark
    for name, columns, counters in gb_table(path):
        base, aggregate = (name, "") if name in series else name.rsplit("_", 1)
        item = series[base]
        if not aggregate:  # a repetition: the next trial of its series
            trial = item.trials[shown[base]]
            shown[base] += 1
            values = dict(trial.metrics)
            assert int(columns["iterations"]) == trial.metrics["iterations"]
        elif "repetitions" not in item.trials[0].metrics:  # statistics of our trials
            values = {metric: gb_statistics([t.metrics[metric] for t in item.trials])[aggregate]
                      for metric in item.trials[0].metrics if metric != "iterations"}
            assert int(columns["iterations"]) == len(item.trials)
        else:  # aggregates only: the trial keeps them
            (trial,) = item.trials
            values = dict(trial.metrics) if aggregate == "mean" else {
                m.removesuffix(f"_{aggregate}"): v for m, v in trial.metrics.items()
                if m.endswith(f"_{aggregate}")}
            assert int(columns["iterations"]) == trial.metrics["repetitions"]
        for metric, unit in (("real_time", columns["unit"]), ("cpu_time", columns["cpu_unit"])):
            ours = values[metric] * 100 if unit == "%" else values[metric] / UNIT_NS[unit]
            assert printed_as(ours, columns[metric]) == columns[metric], (name, metric)
        for counter, text in counters.items():
            if columns["unit"] == "%":
                assert printed_as(values[counter] * 100, text.rstrip("%")) == text.rstrip("%")
            else:
                assert gb_counter_as_printed(counter, values[counter], text) == text, counter
    # Every trial of repetitions was printed (aggregates-only ones have their rows above).
    assert shown == {name: 0 if "repetitions" in s.trials[0].metrics else len(s.trials)
                     for name, s in series.items()}


def test_google_benchmark_goldens_cover_repetitions_aggregates_and_counters() -> None:
    kinds = set()
    for path in GB_RUNS:
        for item in parse("google-benchmark", path).values():
            metrics = item.trials[0].metrics
            kinds.add("repetitions" if len(item.trials) > 1 else
                      "aggregates-only" if "repetitions" in metrics else "single")
            kinds |= {"counters" for name in metrics if name.endswith("_per_second")}
    assert kinds == {"repetitions", "aggregates-only", "single", "counters"}


def test_google_benchmark_complexity_fits_are_left_out_and_labels_kept() -> None:
    path = GB / "upstream" / "test1_run1.json"
    entries = json.loads(path.read_text())["benchmarks"]
    fits = {e["run_name"] for e in entries if e.get("aggregate_name") in ("BigO", "RMS")}
    benchmarks = {s.labels["benchmark"] for s in parse("google-benchmark", path).values()}
    assert fits and not fits & benchmarks
    labelled = [e for e in entries if "label" in e]
    assert labelled
    for entry in labelled:
        assert gb_series(path, entry["name"]).labels["label"] == entry["label"]


@pytest.mark.parametrize("name", sorted(GB_REFUSED))
def test_google_benchmark_hand_made_inputs_are_refused_with_their_path(name: str) -> None:
    with pytest.raises(ParseError, match=GB_REFUSED[name]):
        gbench.parse((GB / "upstream" / name).read_text(), CONTEXT)


def gb_document() -> dict[str, Any]:
    return dict(json.loads((GB / "1.9.5" / "counters.json").read_text()))


def test_google_benchmark_failed_benchmark_is_a_failure_and_skipped_one_left_out() -> None:
    # A failed benchmark is the run's failure (test_nanobench_honesty.py reads real ones).
    document = gb_document()
    document["benchmarks"][1] |= {"error_occurred": True, "error_message": "no input"}
    (kept,) = gbench.parse(json.dumps(document), CONTEXT).series
    assert kept.trials[-1].failures is not None
    assert kept.trials[-1].failures.detail.endswith("ERROR OCCURRED: 'no input'")
    document = gb_document()
    document["benchmarks"][1] |= {"skipped": True, "skip_message": "not here"}
    result = gbench.parse(json.dumps(document), CONTEXT)
    assert [s.labels["benchmark"] for s in result.series] == [document["benchmarks"][0]["name"]]


# hyperfine: 1.15.0 and 1.20.0, JSON with the text report and CSV of the same run.

HF = GOLDEN / "hyperfine"
# The runs exported as JSON, CSV and Markdown with their text report (test_loadgen_honesty
# reads the failing, aborted and long-command runs).
HF_RUNS = sorted(p for p in HF.glob("*/*.json") if p.with_suffix(".csv").exists())


def hf_results(path: Path) -> Iterator[tuple[dict[str, Any], TrialIn]]:
    """Each JSON result with our one trial of its series."""
    series = parse("hyperfine", path)
    results = json.loads(path.read_text())["results"]
    assert len(series) == len(results)
    for result in results:
        (trial,) = series[key({"command": result["command"],
                               **result.get("parameters", {})})].trials
        yield result, trial


@pytest.mark.parametrize("path", HF_RUNS, ids=relative)
def test_hyperfine_trials_are_the_json_results(path: Path) -> None:
    for result, trial in hf_results(path):
        assert trial.latency.samples_ns == [round(t * 1e9) for t in result["times"]]
        reported = trial.latency.reported
        assert reported is not None
        for ours, theirs in (("min", "min"), ("max", "max"), ("mean", "mean"),
                             ("p50", "median")):
            assert same(getattr(reported, ours), result[theirs] * 1e9), ours
        assert same(reported.stddev, result["stddev"] * 1e9)
        assert reported.model_dump(exclude_none=True).keys() == {
            "min", "max", "mean", "p50", "stddev"}
        expected = {"user_s": result["user"], "system_s": result["system"]}
        if "exit_codes" in result:  # hyperfine 1.12 and later
            expected["errors"] = sum(code != 0 for code in result["exit_codes"])
        if any(result.get("memory_usage_byte", [])):
            expected["peak_rss_bytes"] = statistics.fmean(result["memory_usage_byte"])
        assert trial.metrics == expected


@pytest.mark.parametrize("path", HF_RUNS, ids=relative)
def test_hyperfine_statistics_are_those_of_its_times(path: Path) -> None:
    """hyperfine's median averages the middle two runs and its stddev is the sample form:
    the JSON's are those of its `times`, and our samples give them to the ns (each and the
    reported statistics rounded to the ns: within 1 ns)."""
    for result, trial in hf_results(path):
        times = result["times"]
        assert math.isclose(statistics.median(times), result["median"], rel_tol=1e-12)
        assert math.isclose(statistics.stdev(times), result["stddev"], rel_tol=1e-9)
        assert math.isclose(statistics.fmean(times), result["mean"], rel_tol=1e-12)
        ours = trial.latency.samples_ns or []
        assert trial.latency.reported is not None
        assert abs(statistics.median(ours) - trial.latency.reported.p50) <= 1.0
        assert abs(statistics.fmean(ours) - trial.latency.reported.mean) <= 1.0
        assert (min(ours), max(ours)) == (round(result["min"] * 1e9), round(result["max"] * 1e9))


HF_TIME = re.compile(r"Time \(mean ± \u03c3\):\s+([\d.]+) (\S+) ±\s+([\d.]+) (\S+)\s+"
                     r"\[User: ([\d.]+) (\S+), System: ([\d.]+) (\S+)\]")
HF_RANGE = re.compile(r"Range \(min … max\):\s+([\d.]+) (\S+) …\s+([\d.]+) (\S+)\s+(\d+) runs")


@pytest.mark.parametrize("path", HF_RUNS, ids=relative)
def test_hyperfine_report_is_what_it_printed(path: Path) -> None:
    blocks = re.split(r"^Benchmark #?\d+: ", path.with_suffix(".txt").read_text(),
                      flags=re.MULTILINE)[1:]
    results = list(hf_results(path))
    assert len(blocks) == len(results)
    for block, (result, trial) in zip(blocks, results, strict=True):
        assert block.splitlines()[0] == result["command"]
        time, range_ = HF_TIME.search(block), HF_RANGE.search(block)
        assert time is not None and range_ is not None
        reported = trial.latency.reported
        assert reported is not None and reported.stddev is not None
        printed = [
            (reported.mean, *time.group(1, 2)), (reported.stddev, *time.group(3, 4)),
            (trial.metrics["user_s"] * 1e9, *time.group(5, 6)),
            (trial.metrics["system_s"] * 1e9, *time.group(7, 8)),
            (reported.min, *range_.group(1, 2)), (reported.max, *range_.group(3, 4))]
        for ours, value, unit in printed:
            assert printed_as(ours / UNIT_NS[unit], value) == value
        assert len(trial.latency.samples_ns or []) == int(range_.group(5))


@pytest.mark.parametrize("path", HF_RUNS, ids=relative)
def test_hyperfine_csv_export_is_ours(path: Path) -> None:
    rows = list(csv.DictReader(io.StringIO(path.with_suffix(".csv").read_text())))
    results = list(hf_results(path))
    assert len(rows) == len(results)
    for row, (result, trial) in zip(rows, results, strict=True):
        assert row["command"] == result["command"]
        reported = trial.latency.reported
        assert reported is not None
        for ours, column in ((reported.mean, "mean"), (reported.p50, "median"),
                             (reported.min, "min"), (reported.max, "max")):
            assert ours is not None and abs(ours - float(row[column]) * 1e9) <= 0.5, column
        assert same(reported.stddev, float(row["stddev"]) * 1e9)
        assert same(trial.metrics["user_s"], float(row["user"]))
        assert same(trial.metrics["system_s"], float(row["system"]))
        for name, value in result.get("parameters", {}).items():
            assert row[f"parameter_{name}"] == value


def summary_problem(latency: Latency) -> str | None:
    """What the lab finds wrong in a trial's summary: the statistics of its samples (nearest
    rank) with the tool's reported ones in their place, out of order."""
    ordered = sorted(latency.samples_ns or [])
    summary: dict[str, float] = {"min": ordered[0], "max": ordered[-1],
                                 "mean": statistics.fmean(ordered)}
    for name, percentile in SUMMARY_PERCENTILES.items():
        rank = max(1, math.ceil(Fraction(repr(percentile)) * len(ordered) / 100))
        summary[name] = ordered[rank - 1]
    assert latency.reported is not None
    return order_problem(summary | latency.reported.model_dump(exclude_none=True))


@pytest.mark.parametrize("path", HF_RUNS, ids=relative)
def test_hyperfine_statistics_agree_with_the_samples(path: Path) -> None:
    for _, trial in hf_results(path):
        assert summary_problem(trial.latency) is None


@pytest.mark.parametrize("seconds", [0.0100000001, 0.0100000004, 0.0100000006])
def test_hyperfine_single_run_statistics_agree_with_its_sample(seconds: float) -> None:
    """One run: its median is its time, a fraction of a ns above the sample (whole ns) the
    lab computes its p90 from; the summary holds together within what rounding moves."""
    document = hf_document()
    document["results"][0] |= {"times": [seconds], "exit_codes": [0],
                               "memory_usage_byte": [1], "stddev": None, "min": seconds,
                               "max": seconds, "mean": seconds, "median": seconds}
    latency = hfine.parse(json.dumps(document), CONTEXT).series[0].trials[0].latency
    assert latency.samples_ns == [round(seconds * 1e9)]
    assert summary_problem(latency) is None


@pytest.mark.parametrize("path", HF_RUNS, ids=relative)
def test_hyperfine_gates_its_mean(path: Path) -> None:
    result = parsed("hyperfine", path)
    assert result.gate == ["mean"]
    names = {name for s in result.series for t in s.trials for name in t.metrics}
    assert names <= set(result.metric_info)
    assert {(result.metric_info[n].unit, result.metric_info[n].direction)
            for n in ("user_s", "system_s")} == {("s", "lower")}


def hf_document() -> dict[str, Any]:
    return dict(json.loads((HF / "1.20.0" / "scan.json").read_text()))


def test_hyperfine_single_run_has_no_stddev_and_failures_are_errors() -> None:
    document = hf_document()
    result = document["results"][0]
    result |= {"times": result["times"][:1], "exit_codes": [None],
               "memory_usage_byte": result["memory_usage_byte"][:1], "stddev": None,
               "min": result["times"][0], "max": result["times"][0],
               "mean": result["times"][0], "median": result["times"][0]}
    document["results"][1]["exit_codes"][3] = 2
    series = hfine.parse(json.dumps(document), CONTEXT).series
    reported = series[0].trials[0].latency.reported
    assert reported is not None and reported.stddev is None and reported.mean is not None
    assert series[0].trials[0].metrics["errors"] == 1  # killed by a signal: no exit code
    assert series[1].trials[0].metrics["errors"] == 1


# Malformed input: every field replaced by a wrong kind, a non-finite or out-of-range number,
# or left out, is read or refused as a ParseError naming where, never another exception.

BAD_VALUES: list[Any] = [None, "x", True, [], {}, float("nan"), float("inf"), -1, 1e300,
                         2**70, 0]


def mutations(document: Any, path: str = "$", steps: tuple[str | int, ...] = ()
              ) -> Iterator[tuple[str, Callable[[Any], None]]]:
    """(path, change) for every field of a document: each bad value in its place, and the
    field removed."""
    if isinstance(document, dict):
        items: list[tuple[Any, Any]] = list(document.items())
    elif isinstance(document, list):
        items = list(enumerate(document))[:3]
    else:
        return
    for field, value in items:
        where = f"{path}[{field}]" if isinstance(field, int) else f"{path}.{field}"
        for bad in BAD_VALUES:
            yield where, functools.partial(_change, (*steps, field), bad)
        yield f"{where} removed", functools.partial(_change, (*steps, field), None, True)
        yield from mutations(value, where, (*steps, field))


def _change(steps: tuple[str | int, ...], value: Any, remove: bool = False,
            document: Any = None) -> None:
    *parents, last = steps
    for step in parents:
        document = document[step]
    if remove:
        del document[last]
    else:
        document[last] = value


def small(path: Path, entries: str) -> Any:
    """A golden document cut to two entries, for mutation."""
    document = json.loads(path.read_text())
    document[entries] = document[entries][:2]
    return document


MUTATED = {
    "google-benchmark": small(GB / "1.9.5" / "repetitions.json", "benchmarks"),
    "google-benchmark-counters": small(GB / "1.9.5" / "counters.json", "benchmarks"),
    "google-benchmark-aggregates": json.loads((GB / "1.9.5" / "aggregates-only.json")
                                              .read_text()),
    "hyperfine": small(HF / "1.20.0" / "scan.json", "results"),
}


@pytest.mark.parametrize("name", sorted(MUTATED))
def test_malformed_fields_are_parse_errors_naming_their_path(name: str) -> None:
    parser = hfine.parse if name == "hyperfine" else gbench.parse
    original = MUTATED[name]
    refused = 0
    for where, change in mutations(original):
        document = copy.deepcopy(original)
        change(document=document)
        try:
            parser(json.dumps(document), CONTEXT)
        except ParseError as error:
            refused += 1
            assert str(error).startswith("$"), (where, str(error))
    assert refused > 100


@pytest.mark.parametrize("parser", [gbench.parse, hfine.parse], ids=["gbench", "hyperfine"])
@pytest.mark.parametrize(("text", "message"), [
    ("{", r"^line 1: not JSON"), ("[]", r"^\$: expected dict"),
    ("{}", r"^\$\.(benchmarks|results): missing"),
    ('{"benchmarks": [], "results": []}', r"^\$\.(benchmarks|results): no benchmark results"),
])
def test_unreadable_documents_are_refused(parser: Parser, text: str, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        parser(text, CONTEXT)


@pytest.mark.parametrize(("name", "change", "message"), [
    ("google-benchmark", lambda d: d["benchmarks"][0].update(real_time=2e12, time_unit="ms"),
     r"^\$\.benchmarks\[0\]\.real_time: latency .* outside 0 \.\. 1 h$"),
    ("google-benchmark", lambda d: d["benchmarks"][0].update(time_unit="fortnight"),
     r"^\$\.benchmarks\[0\]\.real_time: unknown time unit 'fortnight'$"),
    ("google-benchmark", lambda d: d["benchmarks"][0].update(iterations=2**49),
     r"^\$\.benchmarks\[0\]\.iterations: .* not a count within 1 \.\. "),
    ("google-benchmark-counters", lambda d: d["benchmarks"][1].update(text_bytes=math.inf),
     r"^\$\.benchmarks\[1\]\.text_bytes: not a finite number$"),
    ("google-benchmark", lambda d: d["benchmarks"][0].update(real_time=1e300, time_unit="s"),
     r"^\$\.benchmarks\[0\]\.real_time: latency .* outside 0 \.\. 1 h$"),
    ("hyperfine", lambda d: d["results"][0]["times"].append(-0.5),
     r"^\$\.results\[0\]\.times\[10\]: latency -0\.5 s is outside 0 \.\. 1 h$"),
    ("hyperfine", lambda d: d["results"][0]["times"].append(1e300),
     r"^\$\.results\[0\]\.times\[10\]: latency .* is outside 0 \.\. 1 h$"),
    ("hyperfine", lambda d: d["results"][0]["exit_codes"].pop(),
     r"^\$\.results\[0\]\.exit_codes: 9 values for 10 runs$"),
    ("hyperfine", lambda d: d["results"][0].update(mean=1.0),
     r"^\$\.results\[0\]\.mean: 1 s is not the mean of its times .* contradict"),
])
def test_out_of_range_values_are_refused(name: str, change: Callable[[Any], None],
                                         message: str) -> None:
    document = copy.deepcopy(MUTATED[name])
    change(document)
    with pytest.raises(ParseError, match=message):
        PARSERS[name.partition("-counters")[0]](json.dumps(document), CONTEXT)


# JMH: the existing adapter on the runs of JMH 1.21, 1.32 and 1.37 (result.json with the
# console output of the same run) and on JMH's own golden files (JSON, text and CSV tables).

JMH = GOLDEN / "jmh"
JMH_VERSIONS = ["1.21", "1.32", "1.37"]
JMH_FILES = [*(JMH / v / "result.json" for v in JMH_VERSIONS), JMH / "upstream" /
             "output-golden.json"]
# A SampleTime percentile, as JMH names it in each version: `p0.50` (1.37) or
# `checksum·p0.50` (1.21, 1.32; `·` is U+00B7).
JMH_PERCENTILE = re.compile(r"^(?:.*\u00b7)?p(\d(?:\.\d+)?)$")
JMH_MODES = {"Throughput, ops/time": "thrpt", "Average time, time/op": "avgt",
             "Sampling time": "sample", "Single shot invocation time": "ss"}


def jmh_tables(path: Path) -> list[list[dict[str, Any]]]:
    """The score tables JMH printed for a result file: the summary table at the end of the
    run's console output (JMH's own goldens: the text table and the CSV), each row
    {name, params, mode, count, score, unit}."""
    if path.parent.name == "upstream":
        return [jmh_text_table(path.with_name("output-golden.text.us").read_text()),
                jmh_csv_table(path.with_name("output-golden.csv.us").read_text())]
    return [jmh_text_table(path.with_name("stdout.txt").read_text())]


def jmh_text_table(text: str) -> list[dict[str, Any]]:
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines)
              if line.startswith("Benchmark ") and line.split()[-3:] == ["Score", "Error",
                                                                          "Units"])
    params = [h[1:-1] for h in lines[at].split() if h.startswith("(")]
    rows = []
    for line in lines[at + 1:]:
        if not line.strip():
            break
        fields = line.split()
        name, values, (mode, *rest) = (fields[0], fields[1:1 + len(params)],
                                       fields[1 + len(params):])
        if "±" in rest:
            sign = rest.index("±")
            score, count = rest[sign - 1], rest[sign - 2] if sign >= 2 else None
        else:
            score, count = rest[-2], rest[-3] if len(rest) >= 3 else None
        rows.append({"name": name, "params": dict(zip(params, values, strict=True)),
                     "mode": mode, "count": count, "score": score, "unit": rest[-1]})
    return rows


def jmh_csv_table(text: str) -> list[dict[str, Any]]:
    return [{"name": row["Benchmark"], "mode": row["Mode"], "score": row["Score"],
             "count": row["Samples"] or None, "unit": row["Unit"],
             "params": {k.removeprefix("Param: "): v for k, v in row.items()
                        if k.startswith("Param: ")}}
            for row in csv.DictReader(io.StringIO(text))]


def jmh_result(results: list[dict[str, Any]], row: dict[str, Any]) -> dict[str, Any]:
    """The JSON result a printed row is of (JMH prints names without their common
    package)."""
    primary = row["name"].partition(":")[0]
    (found,) = [r for r in results if r["mode"] == row["mode"]
                and (r["benchmark"] == primary or r["benchmark"].endswith(f".{primary}"))
                and {k: str(v) for k, v in (r.get("params") or {}).items()} == row["params"]]
    return found


def jmh_series(path: Path, result: dict[str, Any]) -> SeriesIn:
    return parse("jmh", path)[key({
        "benchmark": result["benchmark"], "mode": result["mode"],
        **{metric_name(k): str(v) for k, v in (result.get("params") or {}).items()}})]


def jmh_count(trial: TrialIn) -> int:
    """How many values JMH's score averages in a trial: its samples (SampleTime) or its
    iterations."""
    if trial.latency.hdr is not None:
        return int(histogram(trial).get_total_count())
    return len(trial.latency.samples_ns or [])


def jmh_score(series: SeriesIn, mode: str, unit: str) -> float:
    """The mean over every fork's iterations (SampleTime: samples) of our trials' headline,
    in the score unit: each fork's mean weighted by how many values it has."""
    headline = "ops_per_s" if mode == "thrpt" else "ns_per_op"
    counts = [jmh_count(t) for t in series.trials]
    mean = sum(t.metrics[headline] * n for t, n in zip(series.trials, counts, strict=True))
    mean /= sum(counts)
    if mode == "thrpt":
        return mean * UNIT_NS[unit.removeprefix("ops/")] / 1e9
    return mean / UNIT_NS[unit.removesuffix("/op")]


@pytest.mark.parametrize("path", JMH_FILES, ids=relative)
def test_jmh_reads_every_version_fork_by_fork(path: Path) -> None:
    results = json.loads(path.read_text())
    series = parse("jmh", path)
    assert len(series) == len(results)
    for result in results:
        primary = result["primaryMetric"]
        item = jmh_series(path, result)
        forks = primary["rawDataHistogram" if result["mode"] == "sample" else "rawData"]
        assert len(item.trials) == len(forks)
        unit = primary["scoreUnit"]
        for trial, fork in zip(item.trials, forks, strict=True):
            if result["mode"] == "sample":
                assert jmh_count(trial) == sum(c for iteration in fork for _, c in iteration)
            elif result["mode"] == "thrpt":
                scale = UNIT_NS[unit.removeprefix("ops/")]
                assert trial.latency.samples_ns == [round(scale / v) for v in fork]
            else:
                scale = UNIT_NS[unit.removesuffix("/op")]
                assert trial.latency.samples_ns == [round(v * scale) for v in fork]


@pytest.mark.parametrize("path", JMH_FILES, ids=relative)
def test_jmh_printed_scores_are_the_mean_of_our_trials(path: Path) -> None:
    results = json.loads(path.read_text())
    for rows in jmh_tables(path):
        primaries = [row for row in rows if ":" not in row["name"]]
        assert len(primaries) == len(results)
        for row in primaries:
            item = jmh_series(path, jmh_result(results, row))
            ours = jmh_score(item, row["mode"], row["unit"])
            assert rounds_to(ours, row["score"]), (ours, row)
            if row["count"] is not None:
                assert sum(jmh_count(t) for t in item.trials) == int(row["count"])


@pytest.mark.parametrize("path", JMH_FILES, ids=relative)
def test_jmh_printed_secondary_scores_are_our_metrics(path: Path) -> None:
    """A secondary metric (not a SampleTime percentile) is the mean of every fork's
    iterations: our per-fork means, weighted by the fork's iterations in the JSON."""
    results = json.loads(path.read_text())
    checked = 0
    for rows in jmh_tables(path):
        for row in rows:
            secondary = row["name"].partition(":")[2]
            if not secondary or JMH_PERCENTILE.match(secondary):
                continue
            result = jmh_result(results, row)
            item = jmh_series(path, result)
            counts = [len(fork) for fork in result["secondaryMetrics"][secondary]["rawData"]]
            ours = sum(t.metrics[metric_name(secondary)] * n
                       for t, n in zip(item.trials, counts, strict=True) if n) / sum(counts)
            assert rounds_to(ours, row["score"]), (ours, row)
            assert all((metric_name(secondary) in t.metrics) == (n > 0)
                       for t, n in zip(item.trials, counts, strict=True))
            if row["count"] is not None:
                assert sum(counts) == int(row["count"])
            checked += 1
    assert checked or path.parent.name != "upstream"


def jmh_runs(path: Path) -> list[dict[str, Any]]:
    """Each benchmark run of a console output: its benchmark, mode and params, and its
    `Result` block's N, mean and p(0.0000) / p(100.0000) (where JMH printed them) as text."""
    runs = []
    for section in path.with_name("stdout.txt").read_text().split("# JMH version: ")[1:]:
        header = dict(re.findall(r"^# ([^:\n]+): (.*)$", section, re.MULTILINE))
        params = dict(re.findall(r"(\w+) = ([^,)]+)", header.get("Parameters", "")))
        result = section.partition("\nResult ")[2]
        found = {name: match.group(1) for name, pattern in (
            ("count", r"^\s+N = (\d+)$"), ("mean", r"^\s+mean =\s+([\d.]+) "),
            ("min", r"p\(0\.0000\) =\s+([\d.]+) "), ("max", r"p\(100\.0000\) =\s+([\d.]+) "))
            if (match := re.search(pattern, result, re.MULTILINE)) is not None}
        unit = re.search(r"^\s+(?:mean =\s+)?[\d.]+ ±\(99\.9%\) [\d.]+ (\S+)", result,
                         re.MULTILINE)
        assert unit is not None
        runs.append({"benchmark": header["Benchmark"], "mode": JMH_MODES[header[
            "Benchmark mode"]], "params": params, "unit": unit.group(1), **found})
    return runs


def jmh_run_series(path: Path, run: dict[str, Any]) -> SeriesIn:
    return parse("jmh", path)[key({"benchmark": run["benchmark"], "mode": run["mode"],
                                   **run["params"]})]


@pytest.mark.parametrize("version", JMH_VERSIONS)
def test_jmh_sample_counts_and_extremes_are_what_jmh_printed(version: str) -> None:
    """SampleTime and SingleShotTime `Result` blocks: N is our trials' total count, the mean
    our score, and p(0) / p(100) our lowest and highest values (a SampleTime histogram's to its
    3 significant digits: within 0.1 %, and half a printed digit)."""
    path = JMH / version / "result.json"
    runs = jmh_runs(path)
    assert len(runs) == len(parse("jmh", path))
    assert {run["mode"] for run in runs if "count" in run} == {"sample", "ss"}
    for run in (r for r in runs if "count" in r):
        item = jmh_run_series(path, run)
        assert sum(jmh_count(t) for t in item.trials) == int(run["count"])
        assert rounds_to(jmh_score(item, run["mode"], run["unit"]), run["mean"])
        scale = UNIT_NS[run["unit"].removesuffix("/op")]
        if run["mode"] == "sample":
            merged = histogram(item.trials[0])
            for trial in item.trials[1:]:
                merged.add(histogram(trial))
            extremes = (merged.get_min_value(), merged.get_max_value())
        else:
            values = [v for t in item.trials for v in t.latency.samples_ns or []]
            extremes = (min(values), max(values))
        for ours, printed in zip(extremes, (run["min"], run["max"]), strict=True):
            digit = 10.0 ** -len(printed.partition(".")[2]) / 2
            assert abs(ours / scale - float(printed)) <= 1e-3 * float(printed) + digit


@pytest.mark.parametrize("version", JMH_VERSIONS)
def test_jmh_printed_sample_extremes_rows_are_our_histograms(version: str) -> None:
    """The table's SampleTime rows `p0.00` / `p1.00` (`checksum·p0.00` before 1.37): our
    histogram's lowest and highest values, to its precision."""
    path = JMH / version / "result.json"
    results = json.loads(path.read_text())
    (rows,) = jmh_tables(path)
    seen = 0
    for row in rows:
        match = JMH_PERCENTILE.match(row["name"].partition(":")[2])
        if match is None or match.group(1) not in ("0.00", "1.00"):
            continue
        item = jmh_series(path, jmh_result(results, row))
        merged = histogram(item.trials[0])
        for trial in item.trials[1:]:
            merged.add(histogram(trial))
        ours = merged.get_min_value() if match.group(1) == "0.00" else merged.get_max_value()
        digit = 10.0 ** -len(row["score"].partition(".")[2]) / 2
        scale = UNIT_NS[row["unit"].removesuffix("/op")]
        assert abs(ours / scale - float(row["score"])) <= 1e-3 * float(row["score"]) + digit
        seen += 1
    assert seen == 2 * sum(r["mode"] == "sample" for r in results)


@pytest.mark.parametrize("version", ["1.21", "1.32", "1.37"])
def test_jmh_sample_time_percentiles_are_left_out_in_every_version(version: str) -> None:
    """The adapter's docstring: SampleTime's per-iteration percentiles are left out (the
    histogram has them), whatever JMH version named them."""
    path = JMH / version / "result.json"
    results = json.loads(path.read_text())
    percentiles = {metric_name(name) for r in results
                   for name in r.get("secondaryMetrics", {}) if JMH_PERCENTILE.match(name)}
    assert percentiles  # the run has SampleTime percentiles to leave out
    metrics = {name for s in parse("jmh", path).values() for t in s.trials
               for name in t.metrics}
    assert not metrics & percentiles
    assert not set(parsed("jmh", path).metric_info) & percentiles
