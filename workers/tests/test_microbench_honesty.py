"""Criterion, JMH and pytest-benchmark read as honestly as the tools printed them (issue 44):
the summary carries each tool's own statistics in its own convention (Criterion's and
pytest-benchmark's standard deviation divide by n - 1), the harness's machine context reaches
the run, JMH's failed forks are failures, and files no tool can write (a negative slope, an
empty id, statistics that contradict their own samples) are refused naming the JSON path and
the rule. Golden files: golden/adapters/{criterion,jmh,pytest-benchmark}/, each folder's
README says how the tool made them and what it printed."""

import json
import math
import statistics
from pathlib import Path
from typing import Any

import pytest

from latlab_contract.parsers import ParseContext, Parsed, ParseError, get_parser, read_output

GOLDEN = Path(__file__).parent / "golden" / "adapters"
CONTEXT = ParseContext()


def parsed(adapter: str, path: Path) -> Parsed:
    return get_parser(adapter)(read_output(adapter, path), CONTEXT)


def load(path: Path) -> Any:
    return json.loads(path.read_text())


# Criterion ------------------------------------------------------------------------------------

CRITERION = GOLDEN / "criterion"
TEN_SAMPLES = CRITERION / "samples-10" / "criterion"


@pytest.mark.parametrize("benchmark", ["checksum/10", "checksum/1000"])
def test_criterion_summary_is_its_estimates_with_its_n_minus_1_stddev(benchmark: str) -> None:
    """Criterion 0.7.0 wrote for checksum/10 (estimates.json, ns): mean 586.1290507483859,
    median 599.3566887971143, std_dev 44.35368877563528, the sample form (n - 1) of its 10
    times per iteration; the same values divided by n give 42.0776 (-5.13 %)."""
    folder = TEN_SAMPLES / benchmark / "new"
    estimates = load(folder / "estimates.json")
    sample = load(folder / "sample.json")
    per_iteration = [t / i for i, t in zip(sample["iters"], sample["times"], strict=True)]
    series = {s.labels["benchmark"]: s for s in parsed("criterion", TEN_SAMPLES).series}
    (trial,) = series[benchmark].trials
    summary = trial.latency.reported
    assert summary is not None
    assert summary.stddev == estimates["std_dev"]["point_estimate"]
    assert summary.mean == estimates["mean"]["point_estimate"]
    assert summary.p50 == estimates["median"]["point_estimate"]
    assert len(per_iteration) == 10
    assert math.isclose(summary.stddev, statistics.stdev(per_iteration), rel_tol=1e-12)
    # dividing by n instead: 5.13 % less at 10 samples
    assert math.isclose(statistics.pstdev(per_iteration) / summary.stddev, math.sqrt(9 / 10),
                        rel_tol=1e-9)
    if benchmark == "checksum/10":
        assert f"{summary.stddev:.4f}" == "44.3537"


@pytest.mark.parametrize(("case", "message"), [
    ("negative-slope", r"^\$\[0\]\.estimates\.slope\.point_estimate: a time per iteration of "
                       r"-28490 ns is not positive$"),
    ("empty-id", r"^\$\[0\]\.benchmark\.full_id: empty"),
    ("stddev-by-n", r"^\$\[0\]\.estimates\.std_dev\.point_estimate: 42\.0776 ns contradicts the "
                    r"samples: the sample standard deviation \(n - 1\) of times\[i\] / iters\[i\]"
                    r" is 44\.3537 ns$"),
])
def test_criterion_refuses_what_criterion_cannot_write(case: str, message: str) -> None:
    """Each case is Criterion 0.7.0's checksum/10 with one field changed (refused/README.md)."""
    with pytest.raises(ParseError, match=message):
        parsed("criterion", CRITERION / "refused" / case / "criterion")


def test_criterion_every_real_run_agrees_with_its_own_samples() -> None:
    """Every real Criterion tree (0.2 upstream to 0.7) passes the estimates-vs-samples rule,
    and its summary is its estimates.json."""
    runs = sorted(path for path in CRITERION.glob("*/criterion") if path.is_dir())
    assert len(runs) >= 10
    for run in runs:
        for item in parsed("criterion", run).series:
            summary = item.trials[0].latency.reported
            assert summary is not None and summary.mean is not None and summary.stddev


# JMH ------------------------------------------------------------------------------------------

JMH = GOLDEN / "jmh"
JMH_FAILURES = JMH / "failures" / "result.json"


def jmh_series(path: Path) -> dict[tuple[str, str], Any]:
    """Series by (benchmark's method, its one param's value)."""
    return {(s.labels["benchmark"].rsplit(".", 1)[-1], s.labels.get("kind") or s.labels["n"]): s
            for s in parsed("jmh", path).series}


def test_jmh_a_failed_fork_is_a_failure_of_its_benchmark() -> None:
    """JMH 1.37 printed `<failure>` in fork 2 of 2 of FailingBenchmark.work (kind =
    second-fork), went on and exited 0; its table says `15.422 ± 49.991 ops/us` with Cnt 3
    (one fork's 3 iterations); the JSON keeps `"forks" : 2` and one fork of raw data."""
    series = jmh_series(JMH_FAILURES)
    failed = series[("work", "second-fork")]
    (trial,) = failed.trials
    assert trial.failures is not None
    assert (trial.failures.failed, trial.failures.total) == (1, 2)
    assert "1 of 2 JMH forks failed" in trial.failures.detail
    assert f"{trial.metrics['ops_per_s'] / 1e6:.3f}" == "15.422"
    # the benchmarks that ran every fork carry no failure
    for key in (("work", "ok"), ("checksum", "10"), ("checksum", "1000")):
        assert [t.failures for t in series[key].trials] == [None, None]
    # kind = fail failed in both forks: JMH left it out of the JSON as out of its table
    assert ("work", "fail") not in series


def test_jmh_an_empty_result_file_is_refused_saying_why() -> None:
    """With -foe true JMH stopped at the failure ("Benchmark had encountered error, and fail
    on error was requested"), exited 1 and left result.json empty (0 bytes)."""
    path = JMH / "fail-on-error" / "result.json"
    assert path.read_text() == ""
    assert "fail on error was requested" in (JMH / "fail-on-error" / "stdout.txt").read_text()
    with pytest.raises(ParseError, match=r"^line 1: empty: JMH leaves its result file empty "
                                         r"when a benchmark fails and -foe true"):
        parsed("jmh", path)


def test_jmh_score_error_is_a_metric_in_the_headlines_unit() -> None:
    """JMH 1.37's table: ChecksumBenchmark.checksum n=10 `1.367 ± 2.359 ops/us`, n=1000
    `0.025 ± 0.046 ops/us`; ops_per_s_error is JMH's scoreError in ops/s on every fork."""
    results = load(JMH_FAILURES)
    result = parsed("jmh", JMH_FAILURES)
    assert result.metric_info["ops_per_s_error"].unit == "ops/s"
    assert result.metric_info["ops_per_s_error"].direction == "none"
    series = jmh_series(JMH_FAILURES)
    for entry in results:
        key = (entry["benchmark"].rsplit(".", 1)[-1], next(iter(entry["params"].values())))
        error = entry["primaryMetric"]["scoreError"]
        for trial in series[key].trials:
            assert math.isclose(trial.metrics["ops_per_s_error"], error * 1e6, rel_tol=1e-12)
    (n10,) = [s for k, s in series.items() if k == ("checksum", "10")]
    assert f"{n10.trials[0].metrics['ops_per_s_error'] / 1e6:.3f}" == "2.359"
    # a time mode's error is in ns/op (1.37: avgt checksum n=10, scoreUnit us/op)
    timed = parsed("jmh", JMH / "1.37" / "result.json")
    assert timed.metric_info["ns_per_op_error"].unit == "ns/op"
    avgt = next(r for r in load(JMH / "1.37" / "result.json") if r["mode"] == "avgt")
    trial = next(s for s in timed.series if s.labels["mode"] == "avgt"
                 and s.labels["n"] == avgt["params"]["n"]).trials[0]
    assert math.isclose(trial.metrics["ns_per_op_error"],
                        avgt["primaryMetric"]["scoreError"] * 1e3, rel_tol=1e-12)


def test_jmh_nan_score_error_is_left_out() -> None:
    """JMH writes `"scoreError" : "NaN"` when it has too few iterations (upstream's
    single-fork entries of 1 iteration)."""
    upstream = JMH / "upstream" / "output-golden.json"
    entries = load(upstream)
    assert any(entry["primaryMetric"]["scoreError"] == "NaN" for entry in entries)
    for entry, item in zip(entries, parsed("jmh", upstream).series, strict=True):
        for trial in item.trials:
            assert ("ops_per_s_error" in trial.metrics) == (
                entry["primaryMetric"]["scoreError"] != "NaN")


def test_jmh_jvm_is_the_runs_context() -> None:
    """Every entry JMH 1.37 wrote: vmName "OpenJDK 64-Bit Server VM", jdkVersion "17.0.15",
    vmVersion "17.0.15+6-Debian-1deb12u1", jvmArgs ["-Xmx256m"]."""
    entry = load(JMH_FAILURES)[0]
    result = parsed("jmh", JMH_FAILURES)
    assert result.context == {
        "jvm": entry["vmName"], "jvm_version": entry["jdkVersion"],
        "vm_version": entry["vmVersion"], "jvm_path": entry["jvm"], "jvm_args": "-Xmx256m",
        "tool_version": entry["jmhVersion"]}
    assert result.context["jvm"] == "OpenJDK 64-Bit Server VM"
    assert result.notes == []


def test_jmh_jvm_args_that_differ_between_benchmarks_are_noted() -> None:
    """`@Fork(jvmArgsAppend = ...)` gives benchmarks their own JVM arguments: JMH 1.37's file
    with one entry's jvmArgs changed."""
    entries = load(JMH_FAILURES)
    entries[1]["jvmArgs"] = ["-Xmx1g"]
    result = get_parser("jmh")(json.dumps(entries), CONTEXT)
    assert "jvm_args" not in result.context and result.context["jvm_version"] == "17.0.15"
    assert result.notes == ["JMH's jvmArgs differs between benchmarks ('-Xmx256m', '-Xmx1g'): "
                            "not in the run's context"]


def mutated(path: Path, change: Any) -> str:
    entries = load(path)
    change(entries)
    return json.dumps(entries)


def _score(entries: list[Any]) -> None:
    entries[0]["primaryMetric"]["score"] *= 2


def _sample_score(entries: list[Any]) -> None:
    next(e for e in entries if e["mode"] == "sample")["primaryMetric"]["score"] = 1.0


def _zero_iterations(entries: list[Any]) -> None:
    entries[0]["primaryMetric"]["rawData"][0] = []


def _negative_time(entries: list[Any]) -> None:
    avgt = next(e for e in entries if e["mode"] == "avgt")["primaryMetric"]
    avgt["rawData"][0][0] = -avgt["rawData"][0][0]


def _negative_error(entries: list[Any]) -> None:
    entries[0]["primaryMetric"]["scoreError"] = -1.0


@pytest.mark.parametrize(("change", "message"), [
    (_score, r"^\$\[0\]\.primaryMetric\.score: \S+ ops/us contradicts its raw data: the mean "
             r"of rawData is \S+ ops/us$"),
    (_sample_score, r"^\$\[\d\]\.primaryMetric\.score: 1 us/op contradicts its raw data: the "
                    r"mean of rawDataHistogram is"),
    (_zero_iterations, r"^\$\[0\]\.primaryMetric\.rawData\[0\]: no iterations$"),
    (_negative_time, r"^\$\[\d\]\.primaryMetric\.rawData\[0\]: latency -\S+ us is outside"),
    (_negative_error, r"^\$\[0\]\.primaryMetric\.scoreError: -1 is negative"),
], ids=["score", "sample-score", "zero-iterations", "negative-time", "negative-error"])
def test_jmh_refuses_what_jmh_cannot_write(change: Any, message: str) -> None:
    """JMH 1.37's run of every mode (1.37/result.json), one field changed."""
    with pytest.raises(ParseError, match=message):
        get_parser("jmh")(mutated(JMH / "1.37" / "result.json", change), CONTEXT)


# pytest-benchmark ---------------------------------------------------------------------------

PYTEST_BENCHMARK = GOLDEN / "pytest-benchmark"
HONESTY = PYTEST_BENCHMARK / "honesty-5.3.1"


def test_pytest_benchmark_machine_info_is_the_runs_context() -> None:
    """pytest-benchmark 5.3.1 wrote machine_info: cpu.brand_raw "Intel(R) Xeon(R) Processor",
    cpu.count 2, python_version "3.11.7", machine "x86_64", system "Linux"."""
    for path in (PYTEST_BENCHMARK / "5.3.1" / "out.json", HONESTY / "out.json"):
        document = load(path)
        info = document["machine_info"]
        hz, power = info["cpu"]["hz_actual"]
        assert parsed("pytest-benchmark", path).context == {
            "cpu_model": info["cpu"]["brand_raw"], "cpu_count": info["cpu"]["count"],
            "mhz_per_cpu": hz * 10 ** power / 1e6, "python_version": info["python_version"],
            "arch": info["machine"], "os": info["system"], "os_release": info["release"],
            "python_implementation": info["python_implementation"],
            "tool_version": document["version"]}
    context = parsed("pytest-benchmark", HONESTY / "out.json").context
    assert (context["cpu_model"], context["cpu_count"]) == ("Intel(R) Xeon(R) Processor", 2)
    assert (context["python_version"], context["arch"], context["os"]) == (
        "3.11.7", "x86_64", "Linux")


def test_pytest_benchmark_an_unknown_cpu_is_no_cpu_model() -> None:
    """pytest-benchmark 3.1.1 wrote cpu {"vendor_id": "unknown", "brand": "unknown", ...}
    (its own cpu reader found nothing); 3.0.0 wrote no cpu at all."""
    for version in ("3.0.0", "3.1.1"):
        context = parsed("pytest-benchmark", PYTEST_BENCHMARK / version / "out.json").context
        assert "cpu_model" not in context and "cpu_count" not in context
        assert context["python_version"] == "3.11.7" and context["tool_version"] == version


def test_pytest_benchmark_commit_info_is_not_context_but_a_dirty_tree_is_noted() -> None:
    """pytest-benchmark 2.5.0's saved run (upstream) says commit_info {"dirty": true, "id":
    "5b78858e..."}; 5.3.1's says "dirty": false."""
    upstream = sorted((PYTEST_BENCHMARK / "upstream").glob("*.json"))[0]
    commit = load(upstream)["commit_info"]
    assert commit["dirty"] is True
    result = parsed("pytest-benchmark", upstream)
    assert not any("commit" in key for key in result.context)
    assert result.notes == [f"pytest-benchmark ran on {commit['id']} with uncommitted changes "
                            "(commit_info.dirty): the code measured may not be the run's source "
                            "commit"]
    assert parsed("pytest-benchmark", HONESTY / "out.json").notes == []


def test_pytest_benchmark_stddev_is_its_own_n_minus_1_figure() -> None:
    """pytest-benchmark 5.3.1 printed StdDev 0.0186 (ms) for test_five_rounds, 5 rounds:
    stats.stddev 1.85530760235625e-05 s, statistics.stdev of its data (n - 1); dividing by n
    gives 10.6 % less."""
    (benchmark,) = load(HONESTY / "out.json")["benchmarks"]
    data = benchmark["stats"]["data"]
    (item,) = parsed("pytest-benchmark", HONESTY / "out.json").series
    summary = item.trials[0].latency.reported
    assert summary is not None and summary.stddev is not None
    assert summary.stddev == benchmark["stats"]["stddev"] * 1e9
    assert f"{summary.stddev / 1e6:.4f}" == "0.0186"
    assert math.isclose(summary.stddev, statistics.stdev(data) * 1e9, rel_tol=1e-12)
    assert math.isclose(statistics.pstdev(data) / statistics.stdev(data), math.sqrt(4 / 5))


def test_pytest_benchmark_a_benchmark_that_raised_is_not_in_its_json() -> None:
    """pytest-benchmark 5.3.1 printed test_fails_in_round_3 in its table (2 rounds) and pytest
    ended "1 failed, 1 passed", but --benchmark-json left it out: the file cannot say."""
    printed = (HONESTY / "stdout.txt").read_text()
    assert "test_fails_in_round_3" in printed and "1 failed, 1 passed" in printed
    assert [s.labels["benchmark"] for s in parsed("pytest-benchmark", HONESTY / "out.json")
            .series] == ["test_honesty.py::test_five_rounds"]


def _stats(change: Any) -> str:
    document = load(HONESTY / "out.json")
    change(document["benchmarks"][0]["stats"])
    return json.dumps(document)


@pytest.mark.parametrize(("change", "message"), [
    (lambda s: s.update(stddev=statistics.pstdev(s["data"])),
     r"^\$\.benchmarks\[0\]\.stats\.stddev: 1\.65944e-05 s contradicts the data: the sample "
     r"standard deviation \(n - 1\) of the rounds is 1\.85531e-05 s$"),
    (lambda s: s.update(mean=s["mean"] * 1.01, ops=1 / (s["mean"] * 1.01)),
     r"^\$\.benchmarks\[0\]\.stats\.mean: \S+ s contradicts the data: the mean of the rounds"),
    (lambda s: s.update(median=s["max"]),
     r"^\$\.benchmarks\[0\]\.stats\.median: \S+ s contradicts the data: the median"),
    (lambda s: s.update(rounds=4),
     r"^\$\.benchmarks\[0\]\.stats\.rounds: 4 contradicts the data: 5 rounds$"),
    (lambda s: s.update(ops=s["ops"] * 2),
     r"^\$\.benchmarks\[0\]\.stats\.ops: \S+ contradicts the mean: 1 / mean is 477\.345$"),
    (lambda s: s.update(iterations=0),
     r"^\$\.benchmarks\[0\]\.stats\.iterations: 0, not at least 1$"),
    (lambda s: s["data"].__setitem__(0, -s["data"][0]),
     r"^\$\.benchmarks\[0\]\.stats\.data\[0\]: latency -\S+ s is outside 0 \.\. 1 h$"),
], ids=["stddev-by-n", "mean", "median", "rounds", "ops", "zero-iterations", "negative-round"])
def test_pytest_benchmark_refuses_statistics_that_contradict_its_rounds(
        change: Any, message: str) -> None:
    """pytest-benchmark 5.3.1's test_five_rounds (honesty-5.3.1/out.json), one field
    changed."""
    with pytest.raises(ParseError, match=message):
        get_parser("pytest-benchmark")(_stats(change), CONTEXT)
