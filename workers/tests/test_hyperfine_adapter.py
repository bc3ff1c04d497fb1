"""hyperfine's adapter against its 1.15.0 and 1.20.0 runs: the JSON export, compared with the
text report and the CSV export of the same run, read here from the golden files."""

import csv
import io
import json
import math
import re
import statistics
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from microbenchmark_support import (
    CONTEXT,
    HF,
    UNIT_NS,
    key,
    parse,
    parsed,
    printed_as,
    relative,
    same,
)

from latlab_contract.latency import Latency, order_problem
from latlab_contract.parsers import hyperfine as hfine
from latlab_contract.result import TrialIn
from latlab_contract.vocabulary import SUMMARY_PERCENTILES

# The runs exported as JSON, CSV and Markdown with their text report (test_hyperfine_honesty
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
