"""JMH's adapter on runs of JMH 1.21, 1.32 and 1.37 (result.json with the console output of the
same run) and on JMH's own golden files (JSON, text and CSV tables), compared with what JMH
printed, read here from the golden files."""

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest
from microbenchmark_support import (
    GOLDEN,
    UNIT_NS,
    histogram,
    key,
    parse,
    parsed,
    relative,
    rounds_to,
)

from latlab_contract.parsers.harness import metric_name
from latlab_contract.result import SeriesIn, TrialIn

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
