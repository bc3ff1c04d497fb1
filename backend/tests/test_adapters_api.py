"""Harness output submitted as CI would (`latlab submit --adapter`), judged against a slower
build, reported as Markdown and JUnit XML. Inputs are the golden files of the real tools
(workers/tests/golden/adapters); the reports are read back by a real Markdown parser and
checked against the JUnit XSD."""

import json
import statistics
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
import xmlschema
from hdrh.histogram import HdrHistogram
from sqlalchemy import func, select

from latlab.models import Run, Scope
from tests.adapters_support import (
    GOLDEN,
    markdown_rows,
)
from tests.factories import Actors

JUNIT_XSD = xmlschema.XMLSchema(Path(__file__).parent / "golden" / "junit" / "JUnit.xsd")


def _cli(live_server: str, token: str, *args: str, stdin: str | None = None
         ) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "latlab_cli", "submit", "--url", live_server, *args],
        env={"LATLAB_TOKEN": token, "PATH": "/usr/bin:/bin"}, capture_output=True, text=True,
        timeout=120, check=False, input=stdin,
    )


def _token(committed_db) -> str:
    token = Actors(committed_db).token(Scope.runs_write, Scope.read)
    committed_db.commit()
    return token["Authorization"].split()[1]


def _get(live_server: str, token: str, path: str, **params: Any) -> Any:
    response = httpx.get(f"{live_server}/api/v1{path}", params=params, timeout=30,
                         headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200, response.text
    return response.json() if "json" in response.headers["content-type"] else response.text


# The tool's own numbers for each adapter's fast build, read from the golden files here.

def _go_bench(run: dict[str, Any]) -> None:
    lines = [line.split() for line in (GOLDEN / "go-bench" / "fast.txt").read_text().splitlines()
             if line.startswith("Benchmark")]
    for series in run["series"]:
        ns_per_op = [float(f[2]) for f in lines if f[0] == f"{series['labels']['benchmark']}-2"]
        assert [t["metrics"]["ns_per_op"] for t in series["trials"]] == ns_per_op
        assert series["metrics"]["ns_per_op"] == statistics.median(ns_per_op)
        # Each trial's latency is its ns/op, one sample; its summary is the value go printed.
        assert [t["summary"]["p50"] for t in series["trials"]] == ns_per_op


def _criterion(run: dict[str, Any]) -> None:
    for series in run["series"]:
        name = series["labels"]["benchmark"]
        estimates = [json.loads((GOLDEN / "criterion" / f"fast-{i}" / "criterion" / name / "new"
                                 / "estimates.json").read_text()) for i in (1, 2, 3)]
        assert [t["metrics"]["ns_per_iter"] for t in series["trials"]] == [
            e["slope"]["point_estimate"] for e in estimates]
        for i, trial in enumerate(series["trials"], start=1):
            sample = json.loads((GOLDEN / "criterion" / f"fast-{i}" / "criterion" / name / "new"
                                 / "sample.json").read_text())
            per_iteration = sorted(round(t / n) for t, n in zip(sample["times"], sample["iters"],
                                                                strict=True))
            assert trial["exact"] and trial["summary"]["count"] == len(per_iteration) == 50
            # The summary is Criterion's own estimates: its median, mean and standard deviation
            # (n - 1); the maximum is the samples'.
            printed = estimates[i - 1]
            assert trial["summary"]["p50"] == printed["median"]["point_estimate"]
            assert trial["summary"]["mean"] == printed["mean"]["point_estimate"]
            assert trial["summary"]["stddev"] == printed["std_dev"]["point_estimate"]
            assert trial["summary"]["max"] == per_iteration[-1]


def _jmh(run: dict[str, Any]) -> None:
    results = json.loads((GOLDEN / "jmh" / "fast.json").read_text())
    for result_ in results:
        labels = {"benchmark": result_["benchmark"], "mode": result_["mode"],
                  **result_["params"]}
        (series,) = [s for s in run["series"] if s["labels"] == labels]
        primary = result_["primaryMetric"]
        if result_["mode"] == "avgt":
            assert statistics.fmean(t["metrics"]["ns_per_op"] for t in series["trials"]) == (
                pytest.approx(primary["score"] * 1e3))
        if result_["mode"] == "sample":
            total = sum(c for fork in primary["rawDataHistogram"] for it in fork for _, c in it)
            assert series["summary"]["count"] == total


def _pytest_benchmark(run: dict[str, Any]) -> None:
    files = [json.loads((GOLDEN / "pytest-benchmark" / f"fast-{i}.json").read_text())
             for i in (1, 2, 3)]
    for series in run["series"]:
        stats = [next(b["stats"] for b in f["benchmarks"]
                      if b["fullname"] == series["labels"]["benchmark"]) for f in files]
        for trial, stat in zip(series["trials"], stats, strict=True):
            assert trial["metrics"]["ops_per_s"] == stat["ops"]
            assert trial["summary"]["count"] == stat["rounds"]
            # The summary is the tool's own: its median averages the middle two rounds, its
            # stddev is the sample form.
            for ours, theirs in (("min", "min"), ("max", "max"), ("mean", "mean"),
                                 ("p50", "median"), ("stddev", "stddev")):
                assert trial["summary"][ours] == pytest.approx(stat[theirs] * 1e9, rel=1e-12)
            assert sorted(trial["reported"]) == ["max", "mean", "min", "p50", "stddev"]
            assert trial["interpolated"] == []


def _k6(run: dict[str, Any]) -> None:
    # All requests; k6's sub-metrics (`{expected_response:true}`) are series of their own.
    series = next(s for s in run["series"] if not s["labels"])
    assert {tuple(s["labels"].items()) for s in run["series"]} == {
        (), (("submetric", "expected_response:true"),)}
    for trial, i in zip(series["trials"], (1, 2, 3), strict=True):
        metrics = json.loads((GOLDEN / "k6" / f"summary-fast-{i}.json").read_text())["metrics"]
        assert trial["summary"]["count"] == metrics["http_reqs"]["count"]
        assert trial["metrics"]["throughput"] == metrics["http_reqs"]["rate"]
        assert trial["metrics"]["http_req_duration_p99"] == metrics["http_req_duration"]["p(99)"]


def _wrk2(run: dict[str, Any]) -> None:
    (series,) = run["series"]
    for trial, name in zip(series["trials"], ("latency.txt", "u-latency-quiet.txt"),
                           strict=True):
        text = (GOLDEN / "wrk2" / name).read_text()
        total = next(line for line in text.splitlines() if "Total count" in line)
        assert trial["summary"]["count"] == int(total.split("=")[-1].strip(" ]"))
        rate = next(line for line in text.splitlines() if line.startswith("Requests/sec"))
        assert trial["metrics"]["throughput"] == float(rate.split()[1])


def _hlog(run: dict[str, Any]) -> None:
    assert {s["labels"]["tag"] for s in run["series"]} == {"compress", "checksum"}
    for series in run["series"]:
        for trial, i in zip(series["trials"], (1, 2, 3), strict=True):
            lines = (GOLDEN / "hlog" / f"java-fast-{i}.hlog").read_text().splitlines()
            counts = [HdrHistogram.decode(line.rsplit(",", 1)[1]).get_total_count()
                      for line in lines if line.startswith(f"Tag={series['labels']['tag']},")]
            assert trial["summary"]["count"] == sum(counts)
            assert [i["count"] for i in trial["intervals"]] == counts
            assert all("hdr" not in interval for interval in trial["intervals"])


ADAPTERS: dict[str, tuple[list[str], list[str], Callable[[dict[str, Any]], None]]] = {
    "go-bench": (["go-bench/fast.txt"], ["go-bench/slow.txt"], _go_bench),
    "criterion": ([f"criterion/fast-{i}/criterion" for i in (1, 2, 3)],
                  [f"criterion/slow-{i}/criterion" for i in (1, 2, 3)], _criterion),
    "jmh": (["jmh/fast.json"], ["jmh/slow.json"], _jmh),
    "pytest-benchmark": ([f"pytest-benchmark/fast-{i}.json" for i in (1, 2, 3)],
                         [f"pytest-benchmark/slow-{i}.json" for i in (1, 2, 3)],
                         _pytest_benchmark),
    "k6": ([f"k6/summary-fast-{i}.json" for i in (1, 2, 3)],
           [f"k6/summary-slow-{i}.json" for i in (1, 2, 3)], _k6),
    # wrk2's README publishes two quiet runs and one with a 1.4 s stall.
    "wrk2": (["wrk2/latency.txt", "wrk2/u-latency-quiet.txt"], ["wrk2/u-latency-stall.txt"],
             _wrk2),
    "hlog": ([f"hlog/java-fast-{i}.hlog" for i in (1, 2, 3)],
             [f"hlog/java-slow-{i}.hlog" for i in (1, 2, 3)], _hlog),
}


@pytest.mark.parametrize("adapter", sorted(ADAPTERS))
def test_harness_output_is_stored_judged_and_reported(adapter: str, committed_db, live_server,
                                                      tmp_path: Path) -> None:
    fast, slow, tools_numbers = ADAPTERS[adapter]
    token = _token(committed_db)
    common = ["--adapter", adapter, "--suite", f"{adapter}-demo", "--scenario", "ci"]
    first = _cli(live_server, token, *common, "--branch", "main", "--commit", "aaaa1111",
                 *(str(GOLDEN / f) for f in fast))
    assert first.returncode == 0, first.stderr
    baseline_id = int(first.stdout.strip().rsplit("/", 1)[1])
    baseline = _get(live_server, token, f"/runs/{baseline_id}")
    assert baseline["params"] == {"adapter": adapter} and baseline["verdict"] == "no-baseline"
    tools_numbers(baseline)

    summary, junit = tmp_path / "summary.md", tmp_path / "junit.xml"
    second = _cli(live_server, token, *common, "--branch", "feature", "--commit", "bbbb2222",
                  "--summary", str(summary), "--junit", str(junit),
                  *(str(GOLDEN / f) for f in slow))
    assert second.returncode == 0, second.stderr
    candidate_id = int(second.stdout.strip().rsplit("/", 1)[1])
    candidate = _get(live_server, token, f"/runs/{candidate_id}")
    assert candidate["baseline_run_id"] == baseline_id
    assert candidate["verdict"] == VERDICTS[adapter], candidate["verdict_reasons"]
    # The comparison sees the slower build in the harness's headline metric, in the
    # direction the adapter declared.
    compare = _get(live_server, token, "/compare", baseline=baseline_id,
                   candidate=candidate_id)
    headline = [m for s in compare["series"] for m in s["metrics"]
                if m["metric"] == HEADLINES[adapter]]
    assert headline and all(m["direction"] != "none" for m in headline)
    assert any((m["delta_pct"] or 0) * (1 if m["direction"] == "lower" else -1) > 20
               for m in headline)
    _check_reports(candidate, compare, summary, junit, GATES.get(adapter, DEFAULT_GATE))
    # The plain output names the series and the metric of every reason.
    for reason in candidate["verdict_reasons"]:
        named = ", ".join(f"{k}={v}" for k, v in sorted(reason["series"].items())) or "(all)"
        assert f"{reason['kind']}: {named} / {reason['metric']}: " in second.stderr


# The gate judges the metrics the adapter names as its harness's headline (a suite the lab
# does not know), else p99 and throughput, reliable ones only, and fails only on a regression
# from >= 10 candidate trials: fewer make a tested slowdown a suspicion (inconclusive).
DEFAULT_GATE = ("p99", "throughput")


GATES = {"go-bench": ("ns_per_op",), "criterion": ("ns_per_iter",),
         "pytest-benchmark": ("ops_per_s",), "jmh": ("ops_per_s", "ns_per_op")}


VERDICTS = {
    "go-bench": "inconclusive",  # ns/op 3 runs a side: a slowdown from too few trials
    "criterion": "inconclusive",  # ns/iter, 3 runs a side
    "pytest-benchmark": "inconclusive",  # ops/s, 3 runs a side
    "jmh": "inconclusive",  # SampleTime's p99 regressed, from 3 forks
    "k6": "inconclusive",  # 3 runs a side
    "wrk2": "inconclusive",  # one stalled run against two quiet ones
    "hlog": "inconclusive",  # 3 logs a side
}


HEADLINES = {"go-bench": "ns_per_op", "criterion": "ns_per_iter", "jmh": "ns_per_op",
             "pytest-benchmark": "ops_per_s", "k6": "p50", "wrk2": "p99", "hlog": "p50"}


def test_enough_trials_of_a_slower_build_fail_the_gate(committed_db, live_server,
                                                        tmp_path: Path) -> None:
    token = _token(committed_db)
    common = ["--adapter", "hlog", "--suite", "zlib", "--scenario", "ci"]
    logs = GOLDEN / "hlog"
    first = _cli(live_server, token, *common, "--branch", "main",
                 *(str(logs / f"python-fast-{i}.hlog") for i in range(1, 11)))
    assert first.returncode == 0, first.stderr
    summary, junit = tmp_path / "summary.md", tmp_path / "junit.xml"
    second = _cli(live_server, token, *common, "--branch", "feature", "--fail-on", "regression",
                  "--summary", str(summary), "--junit", str(junit),
                  *(str(logs / f"python-slow-{i}.hlog") for i in range(1, 11)))
    assert second.returncode == 1, second.stderr
    candidate = _get(live_server, token, f"/runs/{second.stdout.strip().rsplit('/', 1)[1]}")
    assert candidate["verdict"] == "fail"
    assert [(r["kind"], r["metric"]) for r in candidate["verdict_reasons"]] == [
        ("regression", "p99")]
    compare = _get(live_server, token, "/compare", baseline=candidate["baseline_run_id"],
                   candidate=candidate["id"])
    _check_reports(candidate, compare, summary, junit)
    assert "regression: (all) / p99: rose" in second.stderr


def _check_reports(candidate: dict[str, Any], compare: dict[str, Any], summary: Path,
                   junit: Path, gate: tuple[str, ...] = DEFAULT_GATE) -> None:
    """The Markdown summary as a Markdown parser reads it, and the JUnit XML against its XSD,
    both agreeing with the gate's answer."""
    reasons = candidate["verdict_reasons"]
    gated = [(s["labels"], m["metric"]) for s in compare["series"] for m in s["metrics"]
             if m["metric"] in gate and m["reliable"]]
    text = summary.read_text()
    assert text.startswith(f"### latlab: {candidate['verdict']}")
    rows = markdown_rows(text)
    if gated:
        assert rows[0] == ["series", "metric", "baseline", "candidate", "delta", "verdict",
                           "details"]
        assert len(rows) - 1 == len(gated)
    else:
        assert rows == []

    def named(reason: dict[str, Any]) -> tuple[str, str]:
        labels = sorted(reason["series"].items())
        return ", ".join(f"{k}={v}" for k, v in labels) or "(all)", reason["metric"]

    assert {(r[0], r[1]) for r in rows[1:] if r[5].startswith("fail:")} == {
        named(r) for r in reasons if r["kind"] == "regression"}
    doubted = {named(r) for r in reasons if r["kind"] in ("suspected-regression",
                                                           "too-few-trials")}
    assert {(r[0], r[1]) for r in rows[1:] if r[5].startswith("inconclusive:")} == doubted

    JUNIT_XSD.validate(str(junit))
    suite = JUNIT_XSD.to_dict(str(junit))
    cases = suite.get("testcase", [])
    assert int(suite["@tests"]) == len(cases) == max(len(gated), 1)
    assert int(suite["@failures"]) == sum("failure" in case for case in cases) == sum(
        r["kind"] == "regression" for r in reasons)
    if gated:
        assert int(suite["@skipped"]) == sum("skipped" in case for case in cases) == len(
            doubted)


def test_first_run_reports_no_baseline(committed_db, live_server, tmp_path: Path) -> None:
    token = _token(committed_db)
    summary, junit = tmp_path / "s.md", tmp_path / "j.xml"
    done = _cli(live_server, token, "--adapter", "go-bench", "--suite", "go", "--summary",
                str(summary), "--junit", str(junit), str(GOLDEN / "go-bench" / "fast.txt"))
    assert done.returncode == 0, done.stderr
    text = summary.read_text()
    assert text.startswith("### latlab: no-baseline\n") and text.endswith("\n")
    assert "\n- no baseline: the first run of its suite, scenario and branch\n" in text
    # The values of the first run, each series' gated metric, as a table.
    lines = [line.split() for line in (GOLDEN / "go-bench" / "fast.txt").read_text().splitlines()
             if line.startswith("Benchmark")]
    rows = markdown_rows(text)
    assert rows[0][:4] == ["series", "metric", "baseline", "candidate"] and len(rows) == 1 + 2
    for row in rows[1:]:
        name = row[0].split("benchmark=")[1].split(",")[0]
        values = [float(fields[2]) for fields in lines if fields[0].startswith(name + "-")]
        assert row[1] == "ns_per_op" and row[2] == "" and row[5] == "first"
        assert row[3] == f"{statistics.median(values):,.4g} ns/op"
    JUNIT_XSD.validate(str(junit))
    suite = JUNIT_XSD.to_dict(str(junit))
    assert suite["@skipped"] == 1 and "skipped" in suite["testcase"][0]


def test_cli_reads_harness_output_from_standard_input(committed_db, live_server) -> None:
    token = _token(committed_db)
    text = (GOLDEN / "wrk2" / "latency.txt").read_text()
    done = _cli(live_server, token, "--adapter", "wrk2", "--suite", "web", "-", stdin=text)
    assert done.returncode == 0, done.stderr
    run = _get(live_server, token, f"/runs/{done.stdout.strip().rsplit('/', 1)[1]}")
    assert run["trial_count"] == 1 and run["series"][0]["metrics"]["throughput"] == 2000.28


def test_cli_refuses_unreadable_input_and_sends_nothing(committed_db, live_server,
                                                        tmp_path: Path) -> None:
    token = _token(committed_db)
    bad = tmp_path / "bench.txt"
    bad.write_text("goos: linux\nBenchmarkX-2   100   12.5 ns/op   7\n")
    refused = _cli(live_server, token, "--adapter", "go-bench", "--suite", "go", str(bad))
    assert refused.returncode == 1 and "line 2: expected 'value unit' pairs" in refused.stderr
    # A count near 2^63 used to abort the CLI in HdrHistogram's encoder (exit 134).
    huge = tmp_path / "jmh.json"
    huge.write_text(json.dumps([{"benchmark": "b.B.x", "mode": "sample", "primaryMetric": {
        "scoreUnit": "ns/op", "rawDataHistogram": [[[[10.0, 2**63 - 1]]]]}}]))
    aborted = _cli(live_server, token, "--adapter", "jmh", "--suite", "j", str(huge))
    assert aborted.returncode == 1, aborted.stderr
    assert "$[0].primaryMetric.rawDataHistogram[0]: the counts add up to more than" in (
        aborted.stderr)
    unknown = _cli(live_server, token, "--adapter", "nope", "--suite", "go", str(bad))
    assert unknown.returncode == 2 and "unknown output format 'nope'" in unknown.stderr
    no_suite = _cli(live_server, token, "--adapter", "go-bench", str(bad))
    assert no_suite.returncode == 2 and "--suite is required" in no_suite.stderr
    assert committed_db.scalar(select(func.count()).select_from(Run)) == 0
