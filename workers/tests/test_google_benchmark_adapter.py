"""Google Benchmark's adapter against the real tool's output: runs of 1.7.1 and 1.9.5 (JSON and
the console table of the same run) and google/benchmark's own JSON inputs of its compare.py
tests. Every golden file found is parsed and compared with the tool's JSON and with what it
printed in the same run, read here from the golden files: nothing expected is typed in by hand."""

import json
import re
import statistics
from pathlib import Path
from typing import Any

import pytest
from microbenchmark_support import (
    CONTEXT,
    GB,
    UNIT_NS,
    parse,
    parsed,
    printed_as,
    relative,
    same,
)

from latlab_contract.parsers import ParseError
from latlab_contract.parsers import google_benchmark as gbench
from latlab_contract.result import SeriesIn

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
