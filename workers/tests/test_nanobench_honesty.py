"""The go-bench and google-benchmark adapters read as honestly as the tools printed
(issue 44): nanobenchmarks keep the exact time the tool printed, failed benchmarks are
failures, different builds in one file are different series, the tools' machine context is
kept, Google Benchmark's pre-2018 JSON is read, and impossible results are refused naming the
line or path and the rule.

Real output only (golden/adapters/go-bench/honesty/, golden/adapters/google-benchmark/
honesty/: the READMEs give the commands); the figures expected are read from what the tool
printed (go test's result lines, Google Benchmark's console table of the same run), never
from the adapter."""

import json
import re
from pathlib import Path
from typing import Any

import pytest

from latlab_contract.parsers import ParseContext, Parsed, ParseError, go_bench
from latlab_contract.parsers import google_benchmark as gbench

GOLDEN = Path(__file__).parent / "golden" / "adapters"
GO = GOLDEN / "go-bench" / "honesty"
GB = GOLDEN / "google-benchmark" / "honesty"
CONTEXT = ParseContext()
GO_RESULT = re.compile(r"^(Benchmark\w+)-(\d+)\s+(\d+)\s+([\d.]+) ns/op$")
# A row of Google Benchmark's console table: name, real time and its unit.
GB_ROW = re.compile(r"^(BM_\w+?)\s+([\d.]+) (ns|us)\s+[\d.]+ (?:ns|us)\s+(\d+)$")


def go(name: str) -> Parsed:
    return go_bench.parse((GO / name).read_text(), CONTEXT)


def go_printed(name: str) -> list[tuple[str, str]]:
    """(benchmark, ns/op as printed) of each result line, in order."""
    return [(m.group(1), m.group(4)) for line in (GO / name).read_text().splitlines()
            if (m := GO_RESULT.match(line))]


def gb(name: str) -> Parsed:
    return gbench.parse((GB / name).read_text(), CONTEXT)


def gb_rows(name: str) -> list[tuple[str, str]]:
    """(name, real time as the console printed it) of each measured row of the table."""
    text = (GB / name).with_suffix(".txt").read_text()
    return [(m.group(1), m.group(2)) for line in text.splitlines() if (m := GB_ROW.match(line))]


def printed_as(value: float, printed: str) -> str:
    """A value with as many decimals as the tool printed."""
    decimals = len(printed.partition(".")[2])
    return f"{value:.{decimals}f}"


# --- go test -bench -------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["fail.txt", "two-arches.txt", "two-builds-tagged.txt"])
def test_go_bench_trial_summary_is_the_printed_ns_per_op_not_whole_ns(name: str) -> None:
    # go printed e.g. "BenchmarkAdd-2  100000000  2.220 ns/op" (fail.txt line 5): the trial's
    # p50, mean, min and max are 2.22, not the whole-ns sample 2.
    trials = [trial for s in go(name).series for trial in s.trials]
    printed = go_printed(name)
    assert sorted(float(value) for _, value in printed) == sorted(
        trial.latency.reported.p50 for trial in trials if trial.latency.reported)
    for trial in trials:
        reported = trial.latency.reported
        assert reported is not None
        value = trial.metrics["ns_per_op"]
        assert (reported.min, reported.max, reported.mean, reported.p50, reported.p99,
                reported.stddev) == (value, value, value, value, value, 0.0)
    sub_5ns = [float(v) for _, v in printed if float(v) < 5 and float(v) != round(float(v))]
    assert sub_5ns, "the golden file has nanobenchmarks under 5 ns"


def test_go_bench_fail_is_a_failure_on_each_series_of_the_failed_package_run() -> None:
    # go printed "--- FAIL: BenchmarkFails-2" three times (-count 3) with the log
    # "honesty_test.go:28: no input file at b.N = 10000", then "FAIL" and
    # "FAIL\tlatlab.example/honesty\t1.514s"; 6 results were printed.
    text = (GO / "fail.txt").read_text()
    fails = re.findall(r"--- FAIL: (\S+)", text)
    assert fails == ["BenchmarkFails-2"] * 3 and "\nFAIL\tlatlab.example/honesty\t" in text
    parsed = go("fail.txt")
    assert {s.labels["benchmark"] for s in parsed.series} == {"BenchmarkAdd", "BenchmarkSum"}
    for series in parsed.series:
        *passed, last = series.trials
        assert all(trial.failures is None for trial in passed)
        assert last.failures is not None
        assert (last.failures.failed, last.failures.total) == (3, len(go_printed("fail.txt"))
                                                               + 3)
        assert "--- FAIL: BenchmarkFails-2 (honesty_test.go:28: no input file at b.N = 10000)" \
            in last.failures.detail
        assert "FAIL latlab.example/honesty" in last.failures.detail


def test_go_bench_failed_run_without_results_is_refused_naming_the_failure() -> None:
    text = "\n".join(line for line in (GO / "fail.txt").read_text().splitlines()
                     if not GO_RESULT.match(line))
    with pytest.raises(ParseError, match=r"^line 1: no benchmark results: go test failed: "
                                         r"--- FAIL: BenchmarkFails-2 \(honesty_test.go:28"):
        go_bench.parse(text, CONTEXT)


def test_go_bench_runs_of_different_goarch_are_different_series() -> None:
    # two-arches.txt: the same benchmarks run for goarch amd64, then for goarch 386.
    parsed = go("two-arches.txt")
    labels = sorted((s.labels["benchmark"], s.labels["goarch"], len(s.trials))
                    for s in parsed.series)
    assert labels == [("BenchmarkAdd", "386", 3), ("BenchmarkAdd", "amd64", 3),
                      ("BenchmarkSum", "386", 3), ("BenchmarkSum", "amd64", 3)]
    # What both runs share is the run's context; goarch, which differs, is not.
    assert parsed.context == {"os": "linux", "cpu_model": "Intel(R) Xeon(R) Processor",
                              "package": "latlab.example/honesty"}
    assert parsed.notes == []


def test_go_bench_identical_headers_are_repetitions_with_a_note_on_tags() -> None:
    # two-builds.txt: `go test` then `go test -tags fast`: go prints the same header twice,
    # so nothing tells the builds apart; they are repetitions, and a note says how to label.
    parsed = go("two-builds.txt")
    assert sorted((s.labels["benchmark"], len(s.trials)) for s in parsed.series) == [
        ("BenchmarkAdd", 6), ("BenchmarkSum", 6)]
    (note,) = parsed.notes
    assert "-tags" in note and "tags: fast" in note
    # With a configuration line before each run (`echo tags: fast`) they are two series.
    tagged = go("two-builds-tagged.txt")
    assert sorted((s.labels["benchmark"], s.labels["tags"], len(s.trials))
                  for s in tagged.series) == [
        ("BenchmarkAdd", "default", 3), ("BenchmarkAdd", "fast", 3),
        ("BenchmarkSum", "default", 3), ("BenchmarkSum", "fast", 3)]
    assert tagged.notes == []


def test_go_bench_context_is_the_header_go_printed() -> None:
    header = dict(line.split(": ", 1) for line in (GO / "fail.txt").read_text().splitlines()[:4])
    assert go("fail.txt").context == {"os": header["goos"], "arch": header["goarch"],
                                      "cpu_model": header["cpu"], "package": header["pkg"]}


def go_mutated(old: str, new: str) -> str:
    text = (GO / "fail.txt").read_text()
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize(("old", "new", "error"), [
    ("BenchmarkAdd-2     \t100000000\t         2.220 ns/op",
     "BenchmarkAdd-2     \t0\t         0 ns/op",
     r"^line 5: 0 iterations: a benchmark result has run at least one"),
    ("2.220 ns/op", "-2.220 ns/op", r"^line 5: ns/op is -2.22: it cannot be negative"),
    ("2.220 ns/op", "2.220 ns/op\t  -16 B/op", r"^line 5: B/op is -16: it cannot be negative"),
])
def test_go_bench_impossible_results_are_refused_naming_line_and_rule(
        old: str, new: str, error: str) -> None:
    with pytest.raises(ParseError, match=error):
        go_bench.parse(go_mutated(old, new), CONTEXT)


# --- Google Benchmark -----------------------------------------------------------------------

GB_MEASURED = ["1.7.1/nano.json", "1.7.1/nano-repetitions.json", "1.1.0/nano.json",
               "1.1.0/nano-repetitions.json"]


@pytest.mark.parametrize("name", GB_MEASURED)
def test_google_benchmark_trial_summary_is_the_exact_real_time(name: str) -> None:
    # 1.7.1/nano.txt printed "BM_Add  1.17 ns": the trial's p50 is the JSON's
    # 1.1651777276421296 (shown 1.17 as printed), not the whole-ns sample 1.
    rows = [(row, value) for row, value in gb_rows(name)
            if not re.search(r"_(mean|median|stddev|cv)$", row)]
    parsed = gb(name)
    trials = {s.labels["benchmark"]: list(s.trials) for s in parsed.series}
    assert sum(len(t) for t in trials.values()) == len(rows)
    shown: dict[str, int] = dict.fromkeys(trials, 0)
    for row, value in rows:
        trial = trials[row][shown[row]]
        shown[row] += 1
        reported = trial.latency.reported
        assert reported is not None
        assert printed_as(reported.p50 or 0.0, value) == value, (row, value)
        assert reported.p50 == reported.mean == reported.min == reported.max \
            == trial.metrics["real_time"]
        assert reported.stddev == 0.0


def test_google_benchmark_nanobenchmarks_keep_sub_nanosecond_digits() -> None:
    entries = json.loads((GB / "1.7.1" / "nano.json").read_text())["benchmarks"]
    real_time = next(e["real_time"] for e in entries if e["name"] == "BM_Add")
    assert real_time < 5 and real_time != round(real_time)
    (add,) = [s for s in gb("1.7.1/nano.json").series if s.labels["benchmark"] == "BM_Add"]
    reported = add.trials[0].latency.reported
    assert reported is not None and reported.p50 == real_time


@pytest.mark.parametrize(("name", "failed", "total"), [
    ("1.7.1/nano.json", 1, 3), ("1.7.1/nano-repetitions.json", 3, 9),
    ("1.1.0/nano.json", 1, 3), ("1.1.0/nano-repetitions.json", 3, 9)])
def test_google_benchmark_error_occurred_is_a_failure_in_its_words(
        name: str, failed: int, total: int) -> None:
    # The console printed "BM_NeedsInput ERROR OCCURRED: 'no input file'" (once a
    # repetition); the other benchmarks ran once a repetition each.
    console = (GB / name).with_suffix(".txt").read_text()
    errors = re.findall(r"^(BM_\w+)\s+ERROR OCCURRED: '([^']*)'$", console, re.M)
    assert errors == [("BM_NeedsInput", "no input file")] * failed
    parsed = gb(name)
    assert {s.labels["benchmark"] for s in parsed.series} == {"BM_Add", "BM_MulAdd"}
    for series in parsed.series:
        *passed, last = series.trials
        assert all(trial.failures is None for trial in passed)
        assert last.failures is not None
        assert (last.failures.failed, last.failures.total) == (failed, total)
        assert last.failures.detail.startswith("BM_NeedsInput ERROR OCCURRED: 'no input file'")
    assert any("BM_NeedsInput" in note for note in parsed.notes)


def test_google_benchmark_only_failures_are_refused_naming_them() -> None:
    document = json.loads((GB / "1.7.1" / "nano.json").read_text())
    document["benchmarks"] = [e for e in document["benchmarks"] if e.get("error_occurred")]
    with pytest.raises(ParseError, match=r"^\$\.benchmarks: no measured benchmark: "
                                         r"BM_NeedsInput ERROR OCCURRED: 'no input file'"):
        gbench.parse(json.dumps(document), CONTEXT)


def test_google_benchmark_old_schema_aggregates_are_told_by_their_suffix() -> None:
    # Google Benchmark 1.1.0 (2016) writes no run_type: "BM_Add_mean" and "BM_Add_stddev"
    # (iterations 0) are aggregates of BM_Add's three repetitions, as its console shows.
    document = json.loads((GB / "1.1.0" / "nano-repetitions.json").read_text())
    assert not any("run_type" in entry for entry in document["benchmarks"])
    parsed = gb("1.1.0/nano-repetitions.json")
    assert sorted((s.labels["benchmark"], len(s.trials)) for s in parsed.series) == [
        ("BM_Add", 3), ("BM_MulAdd", 3)]
    assert any("rounded to whole units" in note for note in parsed.notes)


def test_google_benchmark_old_schema_aggregates_only_keep_their_statistics() -> None:
    rows = dict(gb_rows("1.1.0/nano-aggregates-only.json"))  # BM_Add_mean 2 ns, _stddev 1 ns
    parsed = gb("1.1.0/nano-aggregates-only.json")
    assert sorted(s.labels["benchmark"] for s in parsed.series) == ["BM_Add", "BM_MulAdd"]
    for series in parsed.series:
        (trial,) = series.trials
        name = series.labels["benchmark"]
        assert trial.metrics["real_time"] == float(rows[f"{name}_mean"])
        assert trial.metrics["real_time_stddev"] == float(rows[f"{name}_stddev"])
        assert "repetitions" not in trial.metrics  # the old schema does not say


@pytest.mark.parametrize(("name", "build_type"), [("1.7.1/nano.json", "debug"),
                                                   ("1.1.0/nano.json", "release")])
def test_google_benchmark_context_reaches_the_run(name: str, build_type: str) -> None:
    context = json.loads((GB / name).read_text())["context"]
    parsed = gb(name)
    assert parsed.context["cpu_count"] == context["num_cpus"] == 2
    assert parsed.context["mhz_per_cpu"] == context["mhz_per_cpu"]
    assert parsed.context["build_type"] == context["library_build_type"] == build_type
    assert parsed.context["cpu_scaling_enabled"] is False
    debug_notes = [note for note in parsed.notes if "built as debug" in note]
    # The 1.7.1 run warned "***WARNING*** Library was built as DEBUG. Timings may be affected."
    warned = "Library was built as DEBUG" in (GB / name).with_suffix(".stderr.txt").read_text()
    assert bool(debug_notes) == warned == (build_type == "debug")


def gb_mutated(change: Any) -> str:
    document = json.loads((GB / "1.7.1" / "nano.json").read_text())
    change(document["benchmarks"][0])
    return json.dumps(document)


@pytest.mark.parametrize(("change", "error"), [
    (lambda e: e.update(name="", run_name=""), r"^\$\.benchmarks\[0\]\.name: empty"),
    (lambda e: e.update(iterations=0),
     r"^\$\.benchmarks\[0\]\.iterations: 0: a measured run ran at least one iteration"),
    (lambda e: e.update(real_time=-28490.0),
     r"^\$\.benchmarks\[0\]\.real_time: -28490: a time cannot be negative"),
    (lambda e: e.update(bytes_per_second=-5.0),
     r"^\$\.benchmarks\[0\]\.bytes_per_second: -5: bytes per second cannot be negative"),
])
def test_google_benchmark_impossible_entries_are_refused_naming_path_and_rule(
        change: Any, error: str) -> None:
    with pytest.raises(ParseError, match=error):
        gbench.parse(gb_mutated(change), CONTEXT)
