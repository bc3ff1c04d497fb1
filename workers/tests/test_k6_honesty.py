"""The k6 adapter reads k6's output as honestly as k6 printed it (issue 44), against real k6
v1.8.1 runs (golden/adapters/k6/v1.8.1, commands in its README.md): the gate judges only
statistics k6 printed and a note says how to get p(99); failed requests and checks are the
trial's failures; `{expected_response:true}` is a series; a summary with 230 custom trends is
read; counts, bytes and the --out json throughput are k6's; impossible values are refused.
Every expected figure is read from k6's own output of the same run (its text summary on
stdout, its --summary-export), never typed in."""

import gzip
import json
import math
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hdrh.histogram import HdrHistogram

from latlab_contract.parsers import ParseContext, ParseError, adapt_json, get_parser, read_output
from latlab_contract.parsers.base import Parsed
from latlab_contract.result import MAX_METRICS, RunCreate, SeriesIn, SourceIn, TrialIn

K6 = Path(__file__).parent / "golden" / "adapters" / "k6"
V1 = K6 / "v1.8.1"
FAILING = V1 / "failing-target"
CONTEXT = ParseContext()
P99_LINE = '--summary-trend-stats "avg,min,med,max,p(90),p(95),p(99)"'


def read(path: Path) -> Parsed:
    return get_parser("k6")(read_output("k6", path), CONTEXT)


def series_of(parsed: Parsed) -> dict[tuple[tuple[str, str], ...], SeriesIn]:
    return {tuple(sorted(s.labels.items())): s for s in parsed.series}


def main_trial(parsed: Parsed) -> TrialIn:
    (trial,) = series_of(parsed)[()].trials
    return trial


def successful_trial(parsed: Parsed) -> TrialIn:
    (trial,) = series_of(parsed)[(("submetric", "expected_response:true"),)].trials
    return trial


def printed_line(stdout: Path, name: str) -> str:
    """What k6's text summary printed after `name....: ` (its first such line)."""
    escaped = re.escape(name)
    found = re.search(rf"^\s*{escaped}\.*: (.*)$", stdout.read_text(), re.MULTILINE)
    assert found is not None, name
    return found.group(1)


def printed_duration(text: str, stat: str) -> str:
    found = re.search(rf"(?:^|\s){re.escape(stat)}=(\S+)", text)
    assert found is not None, stat
    return found.group(1)


def k6_text(milliseconds: float) -> str:
    """A duration as k6's text summary prints it: truncated to two decimals, trailing zeros
    dropped, in µs, ms or s (none here is under 1 µs or over a minute)."""

    def truncated(value: float) -> str:
        return f"{math.trunc(100 * value) / 100:.2f}".rstrip("0").rstrip(".")

    if milliseconds < 1:
        return truncated(milliseconds * 1000) + "µs"
    if milliseconds < 1000:
        return truncated(milliseconds) + "ms"
    return truncated(milliseconds / 1000) + "s"


# 1. Never invent: the gate judges only what k6 printed, and a note says how to get p(99).

DEFAULT_STATS = [FAILING / "summary.json", FAILING / "handle-summary" / "handle-summary.json",
                 FAILING / "handle-summary" / "summary.json",
                 V1 / "default-trend-stats" / "summary.json",
                 K6 / "v0.45.1" / "default-trend-stats" / "summary.json"]


@pytest.mark.parametrize("path", DEFAULT_STATS, ids=lambda p: str(p.relative_to(K6)))
def test_default_trend_stats_gate_on_k6s_p95_and_say_how_to_get_p99(path: Path) -> None:
    """k6's default trend stats are avg, min, med, max, p(90), p(95): the gate is k6's p95
    and the throughput, the trial's summary has no p99, and the note gives the exact
    --summary-trend-stats line."""
    parsed = read(path)
    assert parsed.gate == ["p95", "throughput"]
    latency = main_trial(parsed).latency
    assert latency.rebuilt and latency.reported is not None
    assert latency.reported.p99 is None
    assert any(P99_LINE in note and "no p(99)" in note for note in parsed.notes), parsed.notes


def test_machine_readable_summary_says_it_never_keeps_p99() -> None:
    parsed = read(FAILING / "machine-readable" / "summary.json")
    assert parsed.gate == ["p95", "throughput"]
    (note,) = [n for n in parsed.notes if "no p(99)" in n]
    assert "--new-machine-readable-summary" in note and P99_LINE in note
    assert parsed.context == {"tool_version": "1.8.1"}  # its metadata.k6_version


def test_failing_targets_p95_is_k6s_printed_one_and_the_p99_is_not_reported() -> None:
    """k6 printed `http_req_duration: avg=59.76ms ... p(95)=26.47ms` (stdout.txt): the trial's
    summary is that; p99 is not k6's, so it is absent from `reported` and never gated on."""
    text = printed_line(FAILING / "stdout.txt", "http_req_duration")
    reported = main_trial(read(FAILING / "summary.json")).latency.reported
    assert reported is not None
    assert k6_text(reported.p95 / 1e6) == printed_duration(text, "p(95)")
    assert k6_text(reported.mean / 1e6) == printed_duration(text, "avg")
    assert k6_text(reported.max / 1e6) == printed_duration(text, "max")
    assert set(reported.model_dump(exclude_none=True)) == {"min", "p50", "p90", "p95", "max",
                                                           "mean"}


def test_rebuilt_histogram_keeps_k6s_avg() -> None:
    """The failing target's avg 59.77 ms sits far above its p(95) 26.47 ms (a 2 s tail of
    successes): the rebuilt histogram keeps k6's avg (and count), its p99 stays within what
    the avg allows (p99 <= avg / (1 - 0.99) for non-negative latency)."""
    exported = json.loads((FAILING / "summary.json").read_text())["metrics"]
    latency = main_trial(read(FAILING / "summary.json")).latency
    rebuilt = HdrHistogram.decode(latency.hdr)
    avg_ns = exported["http_req_duration"]["avg"] * 1e6
    assert rebuilt.get_total_count() == exported["http_reqs"]["count"]
    assert math.isclose(rebuilt.get_mean_value(), avg_ns, rel_tol=5e-3)
    assert rebuilt.get_value_at_percentile(99) <= avg_ns / (1 - 0.99)


def test_no_percentiles_gates_on_k6s_median_and_count_is_a_count() -> None:
    """`--summary-trend-stats "count,avg,min,med,max"` (count-no-percentiles/): k6 printed
    `http_req_duration: count=1001 ... med=225.92µs`; no p(90), p(95), p(99): the gate is
    its med (p50), the note names the three, and the trend's count is a count, not ms."""
    path = V1 / "count-no-percentiles" / "summary.json"
    parsed = read(path)
    assert parsed.gate == ["p50", "throughput"]
    assert any("no p(90), p(95), p(99)" in note and P99_LINE in note for note in parsed.notes)
    text = printed_line(path.with_name("stdout.txt"), "http_req_duration")
    trial = main_trial(parsed)
    assert trial.metrics["http_req_duration_count"] == int(printed_duration(text, "count"))
    assert parsed.metric_info["http_req_duration_count"].unit == "count"
    assert parsed.metric_info["http_req_duration_avg"].unit == "ms"
    assert trial.latency.reported is not None
    assert k6_text(trial.latency.reported.p50 / 1e6) == printed_duration(text, "med")
    # The successful requests' series counts the trend's own count.
    successful = HdrHistogram.decode(successful_trial(parsed).latency.hdr)
    assert successful.get_total_count() == 1001


def test_summary_with_p99_gates_on_it_without_a_note() -> None:
    parsed = read(V1 / "summary.json")  # --summary-trend-stats with p(99) and p(99.9)
    assert parsed.gate == ["p99", "throughput"]
    assert not any("no p(" in note for note in parsed.notes)


# 2. Failures: http_req_failed and checks are the trial's failures; {expected_response:true}
# is a series of its own.

FAILING_FILES = [FAILING / "summary.json", FAILING / "samples.json.gz",
                 FAILING / "handle-summary" / "handle-summary.json",
                 FAILING / "handle-summary" / "summary.json",
                 FAILING / "machine-readable" / "summary.json",
                 FAILING / "machine-readable" / "handle-summary.json"]


@pytest.mark.parametrize("path", FAILING_FILES, ids=lambda p: str(p.relative_to(K6)))
def test_failed_requests_and_checks_are_the_trials_failures(path: Path) -> None:
    """k6 printed `http_req_failed: 95.00% 951 out of 1001`, `checks_failed: 95.00% 1902 out
    of 2002` and `✗ status is 200 ↳ 4% — ✓ 50 / ✗ 951` (stdout.txt of the run; the other
    runs served the same 1,001 requests by the same rule: the server fails 19 of 20)."""
    printed = printed_line(FAILING / "stdout.txt", "http_req_failed")
    share, failed, total = re.fullmatch(r"([\d.]+%)\s+(\d+) out of (\d+)", printed).groups()
    failures = main_trial(read(path)).failures
    assert failures is not None
    assert (failures.failed, failures.total) == (int(failed), int(total))
    assert f"http_req_failed {share} {failed} out of {total}" in failures.detail
    checks = printed_line(FAILING / "stdout.txt", "checks_failed")
    assert f"checks_failed {' '.join(checks.split())}" in failures.detail
    assert "✗ status is 200 ✓ 50 / ✗ 951" in failures.detail
    assert "✗ body is ok ✓ 50 / ✗ 951" in failures.detail


def test_a_run_without_failures_has_none() -> None:
    assert main_trial(read(V1 / "summary.json")).failures is None
    assert main_trial(read(V1 / "samples.json.gz")).failures is None


@pytest.mark.parametrize("path", [FAILING / "summary.json", FAILING / "samples.json.gz"],
                         ids=lambda p: str(p.relative_to(K6)))
def test_successful_requests_p95_is_a_series(path: Path) -> None:
    """k6 printed `{ expected_response:true }...: avg=1.18s min=500.62ms med=1.1s max=2s
    p(90)=1.85s p(95)=1.92s` beside `http_req_duration: ... p(95)=26.47ms` (the fast
    failures'): the successful requests are a series, labelled submetric, of the 50 requests
    that did not fail, with k6's figures."""
    text = printed_line(FAILING / "stdout.txt", "{ expected_response:true }")
    trial = successful_trial(read(path))
    exported = json.loads((FAILING / "summary.json").read_text())["metrics"]
    assert exported["http_req_failed"]["fails"] == 50  # k6's "passes" are the failures
    # Its throughput: the successful requests over k6's test run duration, as k6 rates.
    main = main_trial(read(path))
    assert math.isclose(trial.metrics["throughput"], main.metrics["throughput"] * 50 / 1001,
                        rel_tol=1e-12)
    if trial.latency.samples_ns is not None:  # every request: k6's own min, max, avg
        values = sorted(trial.latency.samples_ns)
        assert len(values) == 50
        for stat, ours in (("min", values[0]), ("max", values[-1]),
                           ("avg", sum(values) / len(values))):
            assert k6_text(ours / 1e6) == printed_duration(text, stat), stat
        return
    reported = trial.latency.reported
    assert HdrHistogram.decode(trial.latency.hdr).get_total_count() == 50
    for stat, ours in (("p(95)", reported.p95), ("p(90)", reported.p90), ("med", reported.p50),
                       ("min", reported.min), ("max", reported.max), ("avg", reported.mean)):
        assert k6_text(ours / 1e6) == printed_duration(text, stat), stat
    assert main.metrics["http_req_duration.expected_response_true_p95"] == exported[
        "http_req_duration{expected_response:true}"]["p(95)"]


# 3. Limits: a summary with 230 custom trends is read.

@pytest.mark.parametrize("name", ["summary.json", "handle-summary/handle-summary.json"])
def test_summary_with_230_custom_trends_is_read_and_says_what_it_left_out(name: str) -> None:
    """many-trends/: 246 k6 metrics (230 custom trends of 6 stats each: 1,380 values beside
    k6's own). The run is stored with at most MAX_METRICS metrics, k6's own all kept, and a
    note naming the custom metrics left out."""
    path = V1 / "many-trends" / name
    document = adapt_json("k6", read_output("k6", path), suite="k6", scenario="many",
                          started_at=datetime(2026, 11, 27, tzinfo=UTC), source=SourceIn(),
                          context=CONTEXT)
    run = RunCreate.model_validate_json(document)
    main = next(s for s in run.series if not s.labels).trials[0]
    assert len(main.metrics) <= MAX_METRICS and len(run.metric_info) <= MAX_METRICS
    exported = json.loads(path.with_name("summary.json").read_text())["metrics"]  # same run
    assert len(exported) == 246
    for stat, value in exported["http_req_duration"].items():
        if stat != "thresholds":
            assert main.metrics[f"http_req_duration_{stat.strip('()').replace('(', '')}"
                                ] == value
    assert main.metrics["step_000_duration_p95"] == exported["step_000_duration"]["p(95)"]
    (note,) = [n for n in read(path).notes if "left out" in n]
    left_out = int(re.search(r"left out (\d+) of k6's 246 metrics", note).group(1))
    kept = sum(1 for key in main.metrics if key.startswith("step_") and key.endswith("_avg"))
    assert kept + left_out == 230
    assert "step_229_duration_avg" not in main.metrics  # the last by name left out


# 4. Exact and consistent: bytes in every format, the --out json throughput as k6 counts it.

def test_data_received_is_bytes_in_every_format() -> None:
    """k6 v1.8.1/ (one run): summary.json `data_received.count` 127127 bytes; the samples of
    the same run sum to it; handleSummary's data says `contains: data`."""
    exported = json.loads((V1 / "summary.json").read_text())["metrics"]
    for path in (V1 / "summary.json", V1 / "samples.json.gz",
                 V1 / "handle-summary" / "handle-summary.json",
                 V1 / "machine-readable" / "summary.json"):
        parsed = read(path)
        for name in ("data_received", "data_sent"):
            assert parsed.metric_info[name].unit == "B", (path, name)
            if path.parent == V1:
                assert main_trial(parsed).metrics[name] == exported[name]["count"], name


def k6_rate(summary: Path) -> tuple[float, int]:
    """(k6's http_reqs rate, count) of a run, from its --summary-export or machine-readable
    summary (count over k6's `config.duration`)."""
    document = json.loads(summary.read_text())
    if "results" in document:
        count = next(m["values"]["count"] for m in document["results"]["metrics"]
                     if m["name"] == "http_reqs")
        return count / document["config"]["duration"], count
    requests = document["metrics"]["http_reqs"]
    return requests["rate"], requests["count"]


SAMPLE_RUNS = sorted(K6.rglob("samples.json.gz"))


@pytest.mark.parametrize("path", SAMPLE_RUNS, ids=lambda p: str(p.relative_to(K6)))
def test_every_sample_throughput_is_k6s_rate(path: Path) -> None:
    """k6 divides http_reqs by its test run duration (start of the run to its end), not by
    the points' span; the adapter's throughput from every sample is k6's rate of the same
    run (its summary.json) to 0.2 %. sleepy-vus/ (k6 printed `http_reqs: 20 3.326025/s`):
    the points' span gave +7.2 %."""
    rate, count = k6_rate(path.with_name("summary.json"))
    trial = main_trial(read(path))
    assert trial.metrics["requests"] == count
    assert math.isclose(trial.metrics["throughput"], rate, rel_tol=2e-3), (
        trial.metrics["throughput"], rate)


def test_sleepy_vus_throughput_matches_k6s_printed_rate() -> None:
    printed = printed_line(V1 / "sleepy-vus" / "stdout.txt", "http_reqs")
    count, rate = re.fullmatch(r"(\d+)\s+([\d.]+)/s", printed.strip()).groups()
    trial = main_trial(read(V1 / "sleepy-vus" / "samples.json.gz"))
    assert trial.metrics["requests"] == int(count)
    assert f"{trial.metrics['throughput']:.3f}" == f"{float(rate):.3f}"


def test_machine_readable_throughput_is_count_over_k6s_duration() -> None:
    """k6's machine-readable summary has no rate; k6 printed `http_reqs: 1001 90.23...` of the
    same run (its handleSummary data has the same config.duration)."""
    document = json.loads((FAILING / "machine-readable" / "summary.json").read_text())
    trial = main_trial(read(FAILING / "machine-readable" / "summary.json"))
    assert trial.metrics["throughput"] == 1001 / document["config"]["duration"]


def test_pre_v030_rate_value_of_zero_is_read_from_its_counts() -> None:
    """k6's documented export (k6 v0.26 era) has `checks: {passes: 434, fails: 0, value: 0}`
    (k6 wrote 0 for every rate before v0.30.0): the checks passed are 434 of 434."""
    parsed = read(K6 / "upstream" / "docs-summary-export-example.json")
    assert main_trial(parsed).metrics["checks"] == 1.0
    assert any("v0.30.0" in note for note in parsed.notes)


# 5. Impossible input is refused, naming the JSON path (or line) and the rule.

def mutated(path: Path, change) -> str:
    document = json.loads(path.read_text())
    change(document)
    return json.dumps(document)


def set_value(*keys, value):
    def change(document):
        target = document
        for key in keys[:-1]:
            target = target[key]
        target[keys[-1]] = value
    return change


IMPOSSIBLE = [
    ("negative rate", FAILING / "summary.json",
     set_value("metrics", "http_reqs", "rate", value=-5),
     r"\$\.metrics\['http_reqs'\]\.rate: -5 is negative \(a rate per second cannot be\)"),
    ("negative count", FAILING / "summary.json",
     set_value("metrics", "http_reqs", "count", value=-1001),
     r"\$\.metrics\['http_reqs'\]\.count: -1001 is negative"),
    ("percentiles out of order", FAILING / "summary.json",
     set_value("metrics", "http_req_duration", "p(90)", value=30.0),
     r"\$\.metrics\['http_req_duration'\]\.p\(90\): 30\.0 is above its p\(95\) .*rise"),
    ("p95 above max", FAILING / "handle-summary" / "handle-summary.json",
     set_value("metrics", "http_req_duration{expected_response:true}", "values", "p(95)",
               value=3000.0),
     r"\$\.metrics\['http_req_duration\{expected_response:true\}'\]\.values\.p\(95\): 3000\.0 "
     r"is above its max"),
    ("avg outside min..max", FAILING / "summary.json",
     set_value("metrics", "http_req_duration", "avg", value=5000.0),
     r"\.avg: 5000\.0 is outside min \.\. max"),
    ("negative time", FAILING / "summary.json",
     set_value("metrics", "http_req_waiting", "min", value=-0.1),
     r"\$\.metrics\['http_req_waiting'\]\.min: -0\.1 is negative \(a time cannot be\)"),
    ("rate outside 0..1", FAILING / "summary.json",
     set_value("metrics", "http_req_failed", "value", value=1.5),
     r"\$\.metrics\['http_req_failed'\]\.value: 1\.5 is outside 0 \.\. 1"),
    ("rate not its counts' share", FAILING / "summary.json",
     set_value("metrics", "http_req_failed", "value", value=0.05),
     r"\$\.metrics\['http_req_failed'\]\.value: 0\.05 is not the share of its counts"),
    ("negative matches", FAILING / "machine-readable" / "summary.json",
     lambda d: next(m for m in d["results"]["metrics"] if m["name"] == "http_req_failed")[
         "values"].update(matches=-951),
     r"\$\.results\.metrics\[\d+\]\.values\.matches: -951 is negative"),
    ("negative VUs", FAILING / "summary.json", set_value("metrics", "vus", "min", value=-1),
     r"\$\.metrics\['vus'\]\.min: -1 is negative \(a count of vus cannot be\)"),
    ("negative duration", FAILING / "machine-readable" / "summary.json",
     set_value("config", "duration", value=-11.0), r"\$\.config\.duration: -11 is negative"),
]


@pytest.mark.parametrize(("path", "change", "message"), [case[1:] for case in IMPOSSIBLE],
                         ids=[case[0] for case in IMPOSSIBLE])
def test_impossible_summary_is_refused_naming_path_and_rule(path: Path, change,
                                                            message: str) -> None:
    with pytest.raises(ParseError, match=message):
        get_parser("k6")(mutated(path, change), CONTEXT)


def test_impossible_sample_is_refused_naming_the_line() -> None:
    lines = gzip.decompress((V1 / "sleepy-vus" / "samples.json.gz").read_bytes()).decode()
    lines = lines.splitlines()
    number = next(i for i, line in enumerate(lines)
                  if '"metric":"http_reqs","type":"Point"' in line)
    for value, rule in ((-1, "is negative"), (0.5, None)):
        changed = list(lines)
        changed[number] = changed[number].replace('"value":1,', f'"value":{value},')
        if rule is None:
            get_parser("k6")("\n".join(changed), CONTEXT)  # a fraction is odd, not impossible
            continue
        with pytest.raises(ParseError, match=rf"line {number + 1}\.data\.value: -1 {rule}"):
            get_parser("k6")("\n".join(changed), CONTEXT)
    failed = next(i for i, line in enumerate(lines)
                  if '"metric":"http_req_failed","type":"Point"' in line)
    changed = list(lines)
    changed[failed] = re.sub(r'"value":\d+', '"value":2', changed[failed])
    with pytest.raises(ParseError, match=rf"line {failed + 1}\.data\.value: 2 is not 0 or 1"):
        get_parser("k6")("\n".join(changed), CONTEXT)
