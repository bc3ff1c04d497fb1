"""The BenchmarkDotNet adapter against the tool's own JSON exports (golden/adapters/
benchmarkdotnet/, whose README says which repository and commit each comes from). Every export
is compared with what BenchmarkDotNet computed and printed of the same run: its `Statistics` of
the iterations the file holds, and its markdown (`*-report-github.md`) and CSV (`*-report.csv`)
tables where the run left them, read here cell by cell, to the digits printed. The lab's
percentiles of the stored latency are checked against numpy's of BenchmarkDotNet's
measurements, never against the parser. Malformed input: test_benchmarkdotnet_malformed.py."""

import csv
import io
import math
import re
from datetime import UTC, datetime
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from benchmarkdotnet_support import FAILING, GOLDEN, V0_15_1, document, parsed, relative

from latlab_contract import hdr
from latlab_contract.parsers import adapt
from latlab_contract.result import SeriesIn, SourceIn, TrialIn

EXPORTS = sorted(path for path in GOLDEN.glob("*/*.json") if path.parent.name != "edited")
FULL = [path for path in EXPORTS if "-report-full" in path.name]
UNIT_NS = {"ns": 1.0, "μs": 1e3, "µs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}
SIZE_B = {"B": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3}
# The export file's suffixes, and the reports BenchmarkDotNet wrote beside it.
EXPORT_SUFFIX = re.compile(r"-report-(full|full-compressed|brief)\.json$")
REPORTS = ("-report-github.md", "-report.csv")


def measured(path: Path) -> list[tuple[dict[str, Any], TrialIn]]:
    """Each benchmark BenchmarkDotNet measured (it has statistics), with its trial: the
    series are in the file's order."""
    return [(bench, item.trials[0]) for bench, item in series_of(path)]


def series_of(path: Path) -> list[tuple[dict[str, Any], SeriesIn]]:
    benches = [bench for bench in document(path)["Benchmarks"] if bench["Statistics"]]
    result = parsed(path)
    assert len(result.series) == len(benches)
    for bench, item in zip(benches, result.series, strict=True):
        assert (item.labels["type"], item.labels["method"]) == (bench["Type"], bench["Method"])
    return list(zip(benches, result.series, strict=True))


def iterations(bench: dict[str, Any]) -> list[float]:
    """BenchmarkDotNet's times per operation, ns: its Workload Result iterations, or in a brief
    export the values its statistics were computed from."""
    if "Measurements" in bench:
        return [m["Nanoseconds"] / m["Operations"] for m in bench["Measurements"]
                if (m["IterationMode"], m["IterationStage"]) == ("Workload", "Result")]
    return list(bench["Statistics"]["OriginalValues"])


def nearest_rank(samples: list[int], q: float) -> int:
    """The lab's percentile of samples: the one of rank ceil(q/100 n)."""
    return sorted(samples)[max(1, math.ceil(Fraction(str(q)) * len(samples) / 100)) - 1]


# Figures --------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", [p for p in EXPORTS if "-report-brief" not in p.name
                                  or "OriginalValues" in p.read_text()], ids=relative)
def test_latency_is_each_iterations_time_per_operation(path: Path) -> None:
    """One sample per iteration BenchmarkDotNet kept, its Nanoseconds / Operations in whole
    ns; and BenchmarkDotNet's own statistics are those of the same iterations."""
    for bench, trial in measured(path):
        times = iterations(bench)
        stats = bench["Statistics"]
        assert trial.latency.samples_ns == [round(time) for time in times]
        assert not trial.latency.rebuilt
        assert trial.metrics["iterations"] == stats["N"] == len(times)
        assert stats["Mean"] == pytest.approx(np.mean(times), rel=1e-12)
        assert stats["StandardDeviation"] == pytest.approx(
            np.std(times, ddof=1) if len(times) > 1 else 0.0, rel=1e-9, abs=1e-12)
        assert (stats["Min"], stats["Max"]) == (min(times), max(times))
        assert stats["Median"] == pytest.approx(np.median(times), rel=1e-12)
        if "Measurements" in bench:
            operations = {m["Operations"] for m in bench["Measurements"]
                          if (m["IterationMode"], m["IterationStage"]) == ("Workload", "Result")}
            assert trial.metrics["operations_per_iteration"] == operations.pop()


@pytest.mark.parametrize("path", EXPORTS, ids=relative)
def test_summary_is_its_statistics_and_its_percentiles_are_metrics(path: Path) -> None:
    """Min, Max, Mean, StandardDeviation and Median are the summary, as written; its linear
    P25 .. P95 are metrics and never the summary's nearest-rank p90 or p95."""
    result = parsed(path)
    assert result.gate == ["mean"]
    for bench, trial in measured(path):
        stats = bench["Statistics"]
        reported = trial.latency.reported
        assert reported is not None
        assert reported.model_dump(exclude_none=True) == {
            "min": stats["Min"], "max": stats["Max"], "mean": stats["Mean"],
            "stddev": stats["StandardDeviation"], "p50": stats["Median"]}
        for q in (25, 67, 80, 85, 90, 95):
            assert trial.metrics[f"p{q}_linear"] == stats["Percentiles"][f"P{q}"]
        assert set(trial.metrics) <= set(result.metric_info)


@pytest.mark.parametrize("path", FULL, ids=relative)
def test_lab_percentiles_are_nearest_ranks_of_its_measurements(path: Path) -> None:
    """The stored latency's percentiles are numpy's inverted_cdf of BenchmarkDotNet's
    measurements (to the ns), while its own P90 and P95 are numpy's linear ones: two
    definitions, which is why the summary does not take BenchmarkDotNet's."""
    for bench, trial in measured(path):
        times = np.asarray(iterations(bench))
        ordered = np.sort(times)
        samples = trial.latency.samples_ns
        assert samples is not None
        for q in (50.0, 90.0, 95.0, 99.0):
            theirs = round(float(np.percentile(times, q, method="inverted_cdf")))
            # numpy computes q n in floating point and may land one rank high on a whole rank
            on_a_rank = (Fraction(str(q)) * len(times) / 100).denominator == 1
            higher = round(float(ordered[min(len(times) - 1, math.ceil(q * len(times) / 100))]))
            assert nearest_rank(samples, q) == theirs or (on_a_rank and theirs == higher), q
        for q in (90, 95):
            assert bench["Statistics"]["Percentiles"][f"P{q}"] == pytest.approx(
                np.percentile(times, q, method="linear"), rel=1e-9, abs=1e-9)


def report(path: Path) -> tuple[Path, list[dict[str, str]]] | None:
    """BenchmarkDotNet's table of the same run (its markdown, else its CSV), row by row with
    bold markers removed and separator rows left out."""
    for suffix in REPORTS:
        found = path.with_name(EXPORT_SUFFIX.sub(suffix, path.name))
        if found.exists():
            text = found.read_text()
            if suffix.endswith(".csv"):
                return found, list(csv.DictReader(io.StringIO(text)))
            lines = [line for line in text.splitlines() if line.startswith("|")]
            header = [cell.strip() for cell in lines[0].strip("|").split("|")]
            rows = []
            for line in lines[2:]:
                cells = [cell.strip().replace("**", "") for cell in line.strip("|").split("|")]
                if any(cells):
                    rows.append(dict(zip(header, cells, strict=True)))
            return found, rows
    return None


def as_printed(ours: float, printed: str, units: dict[str, float]) -> str:
    """Our value written as BenchmarkDotNet wrote `printed`: in its unit, with its digits."""
    number, _, unit = printed.partition(" ")
    digits = len(number.partition(".")[2])
    return f"{ours / units[unit] if unit else ours:,.{digits}f}" + (f" {unit}" if unit else "")


def printed_size(ours: float, printed: str) -> str:
    """Our bytes as BenchmarkDotNet writes a size: in the printed unit, `0.##`."""
    unit = printed.partition(" ")[2]
    text = f"{ours / SIZE_B[unit]:.2f}".rstrip("0").rstrip(".")
    return f"{text} {unit}"


TIMES = {"Mean": lambda t: t.latency.reported.mean, "StdDev": lambda t: t.latency.reported.stddev,
         "Median": lambda t: t.latency.reported.p50, "Min": lambda t: t.latency.reported.min,
         "Max": lambda t: t.latency.reported.max, "Error": lambda t: t.metrics["error_ns"],
         "P67": lambda t: t.metrics["p67_linear"]}
GC_COLUMNS = {f"Gen{g}": f"gen{g}_per_1000_ops" for g in (0, 1, 2)} | {
    f"Gen {g}": f"gen{g}_per_1000_ops" for g in (0, 1, 2)}


@pytest.mark.parametrize("path", [p for p in EXPORTS if report(p)], ids=relative)
def test_figures_are_what_its_tables_printed(path: Path) -> None:
    found = report(path)
    assert found is not None
    table, rows = found
    benches = document(path)["Benchmarks"]
    assert len(rows) == len(benches)
    measured_series = iter(series_of(path))
    jobs = {s.labels.get("job") for s in parsed(path).series}
    compared = 0
    for bench, row in zip(benches, rows, strict=True):
        assert row["Method"] == bench["MethodTitle"]
        if bench["Statistics"] is None:
            assert row["Mean"] == "NA"
            continue
        _, item = next(measured_series)
        trial, labels = item.trials[0], item.labels
        for name, value in (pair.split("=", 1) for pair in bench["Parameters"].split("&")
                            if pair):
            if name in row:
                assert row[name] == value == labels[name]
        if jobs != {None}:
            assert row["Job"] == labels["job"]
        for column, ours in TIMES.items():
            if column in row:
                assert as_printed(ours(trial), row[column], UNIT_NS) == row[column], column
                compared += 1
        for column, metric in GC_COLUMNS.items():
            if column in row:
                value = trial.metrics[metric]
                assert row[column] == ("-" if value == 0 and table.suffix == ".md"
                                       else f"{value:.4f}"), column
        if "Allocated" in row:
            allocated = trial.metrics["B_per_op"]
            assert row["Allocated"] == ("-" if allocated == 0 and table.suffix == ".md"
                                        else printed_size(allocated, row["Allocated"]))
        if "CacheMisses" in row and "Metrics" in bench:  # the brief export has no Metrics
            assert row["CacheMisses"] == f"{trial.metrics['CacheMisses']:.0f}"
    assert compared


@pytest.mark.parametrize("path", [p for p in EXPORTS if report(p)], ids=relative)
def test_context_is_its_host_environment(path: Path) -> None:
    host = document(path)["HostEnvironmentInfo"]
    context = parsed(path).context
    assert context["tool_version"] == host["BenchmarkDotNetVersion"]
    assert context["cpu_count"] == host["LogicalCoreCount"]
    assert context["os"] == host["OsVersion"]
    found = report(path)
    assert found is not None
    if found[0].suffix == ".md":  # the version BenchmarkDotNet printed atop its table
        assert f"BenchmarkDotNet v{context['tool_version']}," in found[0].read_text()


# Failures, jobs, brief and old exports -------------------------------------------------------

@pytest.mark.parametrize("path", [GOLDEN / "0.14.0" / "AI.Benchmarks.ModelPerformance-report"
                                  "-full.json", FAILING], ids=relative)
def test_a_benchmark_without_statistics_is_a_failure_in_its_words(path: Path) -> None:
    """What BenchmarkDotNet listed under "Benchmarks with issues" is the run's failure, on
    every series (once, on its last trial)."""
    table = path.with_name(EXPORT_SUFFIX.sub("-report-github.md", path.name)).read_text()
    issues = [line.strip() for line in table.split("Benchmarks with issues:")[1].splitlines()
              if line.strip()]
    result = parsed(path)
    total = len(document(path)["Benchmarks"])
    assert len(result.series) == total - len(issues)
    for item in result.series:
        failures = item.trials[-1].failures
        assert failures is not None and (failures.failed, failures.total) == (len(issues),
                                                                             total)
        for issue in issues:
            assert issue in failures.detail
    assert any("failure is on every series" in note for note in result.notes)


def test_several_jobs_are_labelled_by_the_job_column() -> None:
    several = parsed(GOLDEN / "0.15.2" / "DotNetBenchmarks.IndexOfAnyBenchmarks-report-full"
                     "-compressed.json")
    assert sorted({s.labels["job"] for s in several.series}) == [".NET 8.0", ".NET 9.0"]
    assert len(several.series) == 6
    for path in FULL:
        if "IndexOfAny" not in path.name:
            assert all("job" not in s.labels for s in parsed(path).series), path


def test_labels_are_type_method_namespace_and_each_parameter() -> None:
    result = parsed(GOLDEN / "0.14.0" / "AI.Benchmarks.ModelPerformance-report-full.json")
    assert result.series[0].labels == {"type": "ModelPerformance", "method": "Chat",
                                       "namespace": "AI.Benchmarks", "Client": "aai-gpt-4o"}


def test_the_brief_and_the_full_export_of_one_run_agree() -> None:
    """The brief export's OriginalValues are the full export's Workload Result iterations."""
    full = parsed(V0_15_1)
    brief = parsed(V0_15_1.with_name(V0_15_1.name.replace("-full", "-brief")))
    ((full_trial,), (brief_trial,)) = (full.series[0].trials, brief.series[0].trials)
    assert full.series[0].labels == brief.series[0].labels
    assert full_trial.latency == brief_trial.latency
    assert full_trial.metrics == brief_trial.metrics | {
        "operations_per_iteration": full_trial.metrics["operations_per_iteration"]}


def test_the_old_brief_export_is_rebuilt_from_its_percentiles() -> None:
    """BenchmarkDotNet 0.9.9's brief export has no iteration at all: the latency is rebuilt
    over its N iterations through its percentiles, keeping its mean; the summary is its
    statistics, without its linear P90 and P95."""
    path = GOLDEN / "upstream" / "IntroJsonExport-report-brief.json"
    for bench, trial in measured(path):
        stats = bench["Statistics"]
        latency = trial.latency
        assert latency.rebuilt and latency.hdr is not None and latency.samples_ns is None
        histogram = hdr.decode(latency.hdr)
        assert histogram.get_total_count() == stats["N"]
        assert histogram.get_mean_value() == pytest.approx(stats["Mean"], rel=1e-3)
        assert latency.reported is not None
        assert latency.reported.p90 is None and latency.reported.p95 is None
        assert latency.reported.mean == stats["Mean"]
        assert trial.metrics["error_ns"] == stats["ConfidenceInterval"]["Margin"]


def test_sub_nanosecond_benchmarks_are_noted_and_summarized_unrounded() -> None:
    path = GOLDEN / "0.13.12" / ("BenchmarkDotNetAnalyser.SampleBenchmarks.Benchmarks."
                                 "BaselinedBenchmark-report-full.json")
    result = parsed(path)
    assert any("whole nanoseconds" in note for note in result.notes)
    for bench, trial in measured(path):
        assert trial.latency.reported is not None
        assert trial.latency.reported.mean == bench["Statistics"]["Mean"] < 0.1
    assert not any("whole nanoseconds" in note for note in parsed(V0_15_1).notes)


def test_the_approval_files_mock_counter_is_a_metric() -> None:
    result = parsed(GOLDEN / "upstream" / "MockSummary-report-full.json")
    for item in result.series:
        assert item.trials[0].metrics["CacheMisses"] == 7
    spec = result.metric_info["CacheMisses"]
    assert spec.direction == "lower"  # "TheGreaterTheBetter": false
    assert spec.label == "Hardware counter 'CacheMisses' per single operation"


# Through the registry: a `latlab.result/v1` run, several files several trials.

def test_the_registry_makes_a_run_of_two_versions_exports() -> None:
    name = ("BenchmarkDotNetAnalyser.SampleBenchmarks.Benchmarks.Md5VsSha256Benchmark"
            "-report-full.json")
    files = [GOLDEN / "0.12.1" / name, GOLDEN / "0.15.8" / name]
    run = adapt("benchmarkdotnet", [(relative(path), path.read_text()) for path in files],
                suite="s", scenario="ci", started_at=datetime(2026, 1, 1, tzinfo=UTC),
                source=SourceIn(kind="ci"))
    assert run.params == {"adapter": "benchmarkdotnet"}
    assert run.gate == ["mean"]
    assert len(run.series) == 6
    for item in run.series:
        assert set(item.labels) == {"type", "method", "namespace", "N"}
        assert len(item.trials) == 2
        means = [trial.latency.reported.mean for trial in item.trials if trial.latency.reported]
        assert len(means) == 2
    assert run.metric_info["B_per_op"].unit == "B/op"
    assert run.harness is not None and run.harness.context["tool_version"] == "0.15.8"
