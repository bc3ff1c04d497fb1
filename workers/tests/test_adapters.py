"""The harness adapters, on the harnesses' own output (golden files, see golden/adapters/).
Each result is checked against the tool's own numbers, read from the golden file by the test
itself, or against an independent reader (hdrh's log reader, numpy)."""

import json
import math
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pytest
from hdrh.histogram import HdrHistogram
from hdrh.log import HistogramLogReader

from latlab_contract.parsers import ParseContext, ParseError, adapt, get_parser, read_output
from latlab_contract.result import SeriesIn, SourceIn, TrialIn

GOLDEN = Path(__file__).parent / "golden" / "adapters"
CONTEXT = ParseContext()
HDR_PRECISION = 1e-3  # 3 significant digits


def parse(adapter: str, path: Path) -> dict[tuple[tuple[str, str], ...], SeriesIn]:
    parsed = get_parser(adapter)(read_output(adapter, path), CONTEXT)
    return {tuple(sorted(s.labels.items())): s for s in parsed.series}


def histogram(trial: TrialIn) -> HdrHistogram:
    assert trial.latency.hdr is not None
    return HdrHistogram.decode(trial.latency.hdr)


def close(ours: float, theirs: float, relative: float = HDR_PRECISION, absolute: float = 0.0
          ) -> bool:
    return abs(ours - theirs) <= relative * abs(theirs) + absolute


def test_go_bench_lines_are_trials_with_the_tools_numbers() -> None:
    text = (GOLDEN / "go-bench" / "fast.txt").read_text()
    series = parse("go-bench", GOLDEN / "go-bench" / "fast.txt")
    lines = [line.split() for line in text.splitlines() if line.startswith("Benchmark")]
    assert len(series) == 2 and sum(len(s.trials) for s in series.values()) == len(lines) == 10
    for fields in lines:
        name, procs = fields[0].rsplit("-", 1)
        item = series[(("benchmark", name), ("package", "latlab.example/gobench"),
                       ("procs", procs))]
        values = dict(zip(fields[3::2], (float(v) for v in fields[2::2]), strict=True))
        trial = next(t for t in item.trials if t.metrics["iterations"] == float(fields[1]))
        assert trial.metrics["ns_per_op"] == values["ns/op"]
        assert trial.metrics["B_per_op"] == values["B/op"]
        assert trial.metrics["allocs_per_op"] == values["allocs/op"]
        assert trial.metrics["MB_per_s"] == values["MB/s"]
        assert trial.latency.samples_ns == [round(values["ns/op"])]


@pytest.mark.parametrize("run", ["fast-1", "slow-3"])
def test_criterion_samples_are_the_time_per_iteration_of_each_sample(run: str) -> None:
    root = GOLDEN / "criterion" / run / "criterion"
    series = parse("criterion", root)
    for n in ("10", "1000"):
        folder = root / "checksum" / n / "new"
        sample = json.loads((folder / "sample.json").read_text())
        estimates = json.loads((folder / "estimates.json").read_text())
        per_iteration = np.asarray(sample["times"]) / np.asarray(sample["iters"])
        (trial,) = series[(("benchmark", f"checksum/{n}"),)].trials
        assert trial.latency.samples_ns == [round(v) for v in per_iteration]
        # Criterion's own median and mean of the same per-iteration times, to the rounding.
        assert close(float(np.median(trial.latency.samples_ns)),
                     estimates["median"]["point_estimate"], 0, 1.0)
        assert close(float(np.mean(trial.latency.samples_ns)),
                     estimates["mean"]["point_estimate"], 0, 0.5)
        typical = estimates["slope"]["point_estimate"]
        assert trial.metrics["ns_per_iter"] == typical
        assert math.isclose(trial.metrics["elements_per_s"], int(n) * 1e9 / typical)


def test_jmh_every_mode_keeps_forks_as_trials() -> None:
    results = json.loads((GOLDEN / "jmh" / "fast.json").read_text())
    series = parse("jmh", GOLDEN / "jmh" / "fast.json")
    assert len(series) == len(results) == 8
    for result in results:
        primary = result["primaryMetric"]
        item = series[tuple(sorted({"benchmark": result["benchmark"], "mode": result["mode"],
                                    **result["params"]}.items()))]
        assert len(item.trials) == result["forks"] == 3
        means = [t.metrics["ops_per_s" if result["mode"] == "thrpt" else "ns_per_op"]
                 for t in item.trials]
        if result["mode"] == "thrpt":  # ops/us; forks ran equally many iterations
            assert math.isclose(np.mean(means), primary["score"] * 1e6)
        elif result["mode"] in ("avgt", "ss"):  # us/op
            assert math.isclose(np.mean(means), primary["score"] * 1e3)
            for trial, fork in zip(item.trials, primary["rawData"], strict=True):
                assert trial.latency.samples_ns == [round(v * 1e3) for v in fork]
        norm = result["secondaryMetrics"]["gc.alloc.rate.norm"]
        assert math.isclose(np.mean([t.metrics["gc.alloc.rate.norm"] for t in item.trials]),
                            norm["score"])


def test_jmh_sample_time_keeps_every_sample_as_latency() -> None:
    results = json.loads((GOLDEN / "jmh" / "fast.json").read_text())
    series = parse("jmh", GOLDEN / "jmh" / "fast.json")
    for result in (r for r in results if r["mode"] == "sample"):
        item = series[tuple(sorted({"benchmark": result["benchmark"], "mode": "sample",
                                    **result["params"]}.items()))]
        for trial, fork in zip(item.trials, result["primaryMetric"]["rawDataHistogram"],
                               strict=True):
            pairs = [pair for iteration in fork for pair in iteration]
            values = np.repeat([round(v * 1e3) for v, _ in pairs], [c for _, c in pairs])
            ours = histogram(trial)
            assert ours.get_total_count() == values.size
            ordered = np.sort(values)
            for q in (0, 50, 90, 99, 99.9, 100):
                # HdrHistogram's rank: q / 100 * count rounded half up, at least 1.
                rank = max(1, math.floor(q / 100 * values.size + 0.5))
                assert close(ours.get_value_at_percentile(q), ordered[rank - 1]), q
        merged = HdrHistogram.decode(item.trials[0].latency.hdr)
        for trial in item.trials[1:]:
            merged.decode_and_add(trial.latency.hdr)
        scored = result["primaryMetric"]["scorePercentiles"]
        assert close(merged.get_value_at_percentile(50), scored["50.0"] * 1e3)
        assert close(merged.get_max_value(), scored["100.0"] * 1e3)


def test_pytest_benchmark_rounds_are_the_samples() -> None:
    path = GOLDEN / "pytest-benchmark" / "fast-1.json"
    series = parse("pytest-benchmark", path)
    for benchmark in json.loads(path.read_text())["benchmarks"]:
        stats = benchmark["stats"]
        (trial,) = series[(("benchmark", benchmark["fullname"]),)].trials
        samples = np.asarray(trial.latency.samples_ns)
        assert samples.size == stats["rounds"] == len(stats["data"])
        assert close(samples.min(), stats["min"] * 1e9, 0, 0.5)
        assert close(samples.max(), stats["max"] * 1e9, 0, 0.5)
        assert close(float(np.median(samples)), stats["median"] * 1e9, 0, 0.5)
        assert close(samples.mean(), stats["mean"] * 1e9, 0, 0.5)
        assert trial.metrics["ops_per_s"] == stats["ops"]


def test_pytest_benchmark_without_data_rebuilds_the_quartiles() -> None:
    path = GOLDEN / "pytest-benchmark" / "saved-without-data.json"
    series = parse("pytest-benchmark", path)
    for benchmark in json.loads(path.read_text())["benchmarks"]:
        stats = benchmark["stats"]
        assert "data" not in stats
        ours = histogram(series[(("benchmark", benchmark["fullname"]),)].trials[0])
        assert ours.get_total_count() == stats["rounds"]
        for key, q in (("min", 0), ("q1", 25), ("median", 50), ("q3", 75), ("max", 100)):
            assert close(ours.get_value_at_percentile(q), stats[key] * 1e9, absolute=1), key


@pytest.mark.parametrize("name", ["summary-fast-1.json", "handle-summary-fast-1.json"])
def test_k6_summary_gives_the_tools_percentiles(name: str) -> None:
    exported = json.loads((GOLDEN / "k6" / "summary-fast-1.json").read_text())["metrics"]
    only = parse("k6", GOLDEN / "k6" / name)[()]  # all requests (sub-metrics are series)
    (trial,) = only.trials
    ours = histogram(trial)
    assert ours.get_total_count() == exported["http_reqs"]["count"]
    duration = exported["http_req_duration"]
    for stat, q in (("min", 0), ("med", 50), ("p(90)", 90), ("p(95)", 95), ("p(99)", 99),
                    ("p(99.9)", 99.9), ("max", 100)):
        assert close(ours.get_value_at_percentile(q), duration[stat] * 1e6, absolute=1), stat
    assert trial.metrics["throughput"] == exported["http_reqs"]["rate"]
    assert trial.metrics["http_req_duration_p99"] == duration["p(99)"]
    assert trial.metrics["checks"] == exported["checks"]["value"] == 1
    assert trial.metrics["thresholds_failed"] == 0


def test_k6_export_and_handle_summary_agree() -> None:
    exported = parse("k6", GOLDEN / "k6" / "summary-fast-1.json")[()]
    handled = parse("k6", GOLDEN / "k6" / "handle-summary-fast-1.json")[()]
    assert exported.trials[0].latency == handled.trials[0].latency
    assert exported.trials[0].metrics == handled.trials[0].metrics


@pytest.mark.parametrize("name", ["latency.txt", "u-latency-quiet.txt", "u-latency-stall.txt"])
def test_wrk2_keeps_the_tools_numbers_and_every_spectrum_row(name: str) -> None:
    text = (GOLDEN / "wrk2" / name).read_text()
    (only,) = parse("wrk2", GOLDEN / "wrk2" / name).values()
    (trial,) = only.trials
    sections = text.split("Latency Distribution (HdrHistogram - ")[1:]
    views = [trial.latency, trial.latency_uncorrected][: len(sections)]
    assert (trial.latency_uncorrected is not None) == (len(sections) == 2)
    wrk2_layout = HdrHistogram(1, 24 * 3600 * 10**6, 3)  # wrk2's: microseconds, 3 digits
    for section, latency in zip(sections, views, strict=True):
        assert latency is not None and latency.hdr is not None and latency.rebuilt
        ours = HdrHistogram.decode(latency.hdr)
        lines = section.splitlines()
        rows = [line.split() for line in lines
                if len(line.split()) == 4 and line.split()[0][0].isdigit()]
        assert ours.get_total_count() == int(rows[-1][2])
        # Every row holds: that many requests took at most that long (to our ns buckets).
        counts = {item.value_iterated_to: item.total_count_to_this_value
                  for item in ours.get_recorded_iterator()}
        for value, _, total, _ in rows:
            at = round(float(value) * 1e6)
            below = max((c for v, c in counts.items()
                         if v < ours.get_lowest_equivalent_value(at)), default=0)
            up_to = max(c for v, c in counts.items() if v <= ours.get_highest_equivalent_value(at))
            assert below <= int(total) <= up_to
        # The summary is wrk2's own: its printed percentiles, mean and deviation, as printed.
        printed = latency.reported
        assert printed is not None
        for line in lines:
            if line.strip().endswith("ms") and "%" in line:
                percentile, value = line.split()
                key = {"50.000%": "p50", "90.000%": "p90", "99.000%": "p99",
                       "99.900%": "p999", "99.990%": "p9999"}.get(percentile)
                if key is not None:
                    assert f"{getattr(printed, key) / 1e6:.2f}ms" == value
        mean = next(line for line in lines if line.startswith("#[Mean"))
        assert f"{printed.mean / 1e6:.3f}" == mean.split("=")[1].split(",")[0].strip()
        assert f"{printed.stddev / 1e6:.3f}" == mean.split("=")[2].strip(" ]")
        # Min and max as HdrHistogram's getMinValue and getMaxValue of wrk2's histogram.
        first_us = round(float(rows[0][0]) * 1000)
        assert printed.min == wrk2_layout.get_lowest_equivalent_value(first_us) * 1000
        assert ours.get_max_value() == ours.get_highest_equivalent_value(
            round(float(rows[-1][0]) * 1e6))
    requests = next(line for line in text.splitlines() if "requests in" in line).split()
    assert trial.metrics["requests"] == float(requests[0])
    rate = next(line for line in text.splitlines() if line.startswith("Requests/sec"))
    assert trial.metrics["throughput"] == float(rate.split()[1])


def test_wrk2_stall_shows_in_the_corrected_tail_only() -> None:
    (only,) = parse("wrk2", GOLDEN / "wrk2" / "u-latency-stall.txt").values()
    corrected = histogram(only.trials[0])
    assert only.trials[0].latency_uncorrected is not None
    uncorrected = HdrHistogram.decode(only.trials[0].latency_uncorrected.hdr or "")
    assert corrected.get_value_at_percentile(99) > 1e9  # 1.27 s
    assert uncorrected.get_value_at_percentile(99) < 10e6  # 6.04 ms


def _logged(path: Path) -> dict[str | None, list[HdrHistogram]]:
    """Each interval of a log decoded by hdrh, by tag. (hdrh's HistogramLogReader skips the
    intervals Java's writer stamps before its base time, such as `-0.010`, as if they were
    the legend, so the Java logs are split here.)"""
    if path.name.startswith("python"):
        reader = HistogramLogReader(str(path), HdrHistogram(1, 3_600_000_000_000, 3))
        found: dict[str | None, list[HdrHistogram]] = {}
        while (interval := reader.get_next_interval_histogram()) is not None:
            found.setdefault(interval.get_tag(), []).append(interval)
        return found
    found = {}
    for line in path.read_text().splitlines():
        if line.startswith("Tag="):
            tag, *_, payload = line.removeprefix("Tag=").split(",")
            found.setdefault(tag, []).append(HdrHistogram.decode(payload))
    return found


@pytest.mark.parametrize("name", ["python-fast-1.hlog", "java-fast-1.hlog", "java-slow-2.hlog"])
def test_hlog_matches_hdrh(name: str) -> None:
    path = GOLDEN / "hlog" / name
    series = parse("hlog", path)
    intervals = _logged(path)
    merged = {tag: HdrHistogram(1, 3_600_000_000_000, 3) for tag in intervals}
    for tag, histograms in intervals.items():
        for interval in histograms:
            merged[tag].add(interval)
    assert len(merged) == len(series) == (2 if name.startswith("java") else 1)
    for tag, theirs in merged.items():
        (trial,) = series[() if tag is None else (("tag", tag),)].trials
        ours = histogram(trial)
        assert ours.get_total_count() == theirs.get_total_count()
        for q in (0, 50, 90, 99, 99.9, 100):
            assert ours.get_value_at_percentile(q) == theirs.get_value_at_percentile(q)
        assert trial.intervals is not None
        assert [i.count for i in trial.intervals] == [h.get_total_count()
                                                      for h in intervals[tag]]
        assert [i.p99 for i in trial.intervals] == [h.get_value_at_percentile(99)
                                                    for h in intervals[tag]]
        assert all(i.hdr is not None for i in trial.intervals)


def test_hlog_values_in_another_unit_become_nanoseconds() -> None:
    text = (GOLDEN / "hlog" / "python-fast-1.hlog").read_text()
    in_ns = histogram(get_parser("hlog")(text, CONTEXT).series[0].trials[0])
    in_us = histogram(get_parser("hlog")(text, ParseContext(latency_unit="us"))
                      .series[0].trials[0])
    assert in_us.get_total_count() == in_ns.get_total_count()
    assert close(in_us.get_value_at_percentile(50), in_ns.get_value_at_percentile(50) * 1000)


def test_several_outputs_are_trials_of_their_series() -> None:
    files = sorted((GOLDEN / "pytest-benchmark").glob("fast-*.json"))
    run = adapt("pytest-benchmark", [(f.name, f.read_text()) for f in files], suite="demo",
                scenario="ci", started_at=datetime(2026, 11, 22, tzinfo=UTC),
                source=SourceIn(branch="main"))
    assert [len(s.trials) for s in run.series] == [3, 3, 3]
    assert run.params == {"adapter": "pytest-benchmark"}
    assert run.metric_info["ops_per_s"].direction == "higher"
    first = json.loads(files[0].read_text())["benchmarks"][0]
    assert run.series[0].trials[0].metrics["ops_per_s"] == first["stats"]["ops"]


@pytest.mark.parametrize(("adapter", "text", "message"), [
    ("go-bench", "PASS\nok  \tx\t0.1s\n", "line 1: no benchmark results"),
    ("go-bench", "pkg: x\nBenchmarkA-2   100   12.5 ns/op   7\n", "line 2: expected 'value unit'"),
    ("go-bench", "BenchmarkA-2   100   fast ns/op\n", "line 1: 'fast' is not a number"),
    ("go-bench", "BenchmarkA-2   100   12 B/op\n", "line 1: no ns/op"),
    ("jmh", "{}", r"\$: expected list"),
    ("jmh", '[{"mode": "avgt", "benchmark": "a.B.c"}]', r"\$\[0\].primaryMetric: missing"),
    ("jmh", '[{"mode": "avgt", "benchmark": "a.B.c", "primaryMetric": {"scoreUnit": "us/op",'
            ' "rawData": [[1.0, "x"]]}}]', r"\$\[0\].primaryMetric.rawData\[0\]\[1\]"),
    ("jmh", '[{"mode": "warp", "benchmark": "a"}]', r"\$\[0\].mode: unknown mode"),
    ("criterion", "[{}]", r"\$\[0\].benchmark: missing"),
    ("criterion", "[{", "line 1: not JSON"),
    ("pytest-benchmark", '{"benchmarks": [{"fullname": "t", "stats": {"ops": 1}}]}',
     r"\$.benchmarks\[0\].stats.rounds: missing"),
    ("k6", '{"metrics": {"vus": {"value": 1, "min": 1, "max": 1}}}',
     r"\$.metrics.http_req_duration: missing"),
    ("k6", '{"metrics": {"x": {"y": 1}}}', r"\$.metrics\['x'\]: not a k6 metric"),
    ("wrk2", "Running 30s test @ http://x/\nRequests/sec: 10\n", "run wrk2 with --latency"),
    ("hlog", '"StartTimestamp","Interval_Length"\n0.0,1.0,2.0,HISTnotbase64!\n',
     "line 2: hdr is not valid base64"),
    ("hlog", "#[Histogram log format version 1.3]\nhello\n", "line 2: not an interval line"),
    ("hlog", "#[Histogram log format version 1.3]\n", "line 1: the log holds no interval"),
])
def test_bad_input_fails_naming_the_line_or_path(adapter: str, text: str, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        get_parser(adapter)(text, CONTEXT)


def test_wrk2_cut_short_names_its_last_line() -> None:
    text = (GOLDEN / "wrk2" / "latency.txt").read_text()
    cut = "\n".join(text.splitlines()[:40])
    with pytest.raises(ParseError, match="line 40: the Recorded spectrum is cut short"):
        get_parser("wrk2")(cut, CONTEXT)


def test_a_file_of_several_names_which_one_failed() -> None:
    good = (GOLDEN / "go-bench" / "fast.txt").read_text()
    with pytest.raises(ParseError, match=r"^second.txt: line 1: no benchmark results"):
        adapt("go-bench", [("first.txt", good), ("second.txt", "PASS\n")], suite="demo",
              scenario="ci", started_at=datetime(2026, 11, 22, tzinfo=UTC), source=SourceIn())


def test_criterion_reads_a_directory_and_refuses_other_directories(tmp_path: Path) -> None:
    with pytest.raises(ParseError, match=r"no \*/new/benchmark.json"):
        read_output("criterion", tmp_path)
    with pytest.raises(ParseError, match="a directory"):
        read_output("go-bench", tmp_path)
