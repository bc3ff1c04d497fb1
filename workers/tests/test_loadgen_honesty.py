"""Issue 44 for hyperfine, vegeta, oha, ghz and ab: their output read as honestly as the tool
printed it. Every golden file here is the real tool's output (the commands are in each tool
folder's README.md): failing commands and targets (non-zero exits, 5xx, refused connections)
become the trial's `failures`, counted as the tool counted them; older formats (hyperfine
before `exit_codes`, vegeta before v12.8) are read, not refused; statistics that contradict
themselves or their own samples are refused, naming the JSON path or line and the rule.

Each test states the figure the tool itself printed that it checks against (its text report
of the same run, or the counts in its own JSON)."""

import json
import math
import re
import statistics
from pathlib import Path
from typing import Any

import pytest

from latlab_contract.parsers import ParseContext, ParseError, ab, ghz, hyperfine, oha, vegeta
from latlab_contract.result import TrialIn

GOLDEN = Path(__file__).parent / "golden" / "adapters"
CONTEXT = ParseContext()
UNIT_NS = {"ns": 1.0, "µs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}


def printed_as(value: float, printed: str) -> bool:
    """`value` rounds to `printed` at the decimals the tool printed it with."""
    decimals = len(printed.partition(".")[2])
    return f"{value:.{decimals}f}" == printed


# hyperfine: a 222-character command (labels stopped at 200), commands that exit non-zero
# under --ignore-failure (1.15.0, and 1.11.0, which wrote no exit_codes), hyperfine stopping
# at a failing command, statistics that contradict the run's own times.

HF = GOLDEN / "hyperfine"
HF_TIME = re.compile(r"Time \(mean ± \u03c3\):\s+([\d.]+) (\S+) ±\s+([\d.]+) (\S+)")
HF_RANGE = re.compile(r"Range \(min … max\):\s+([\d.]+) (\S+) …\s+([\d.]+) (\S+)\s+(\d+) runs")


def hf_blocks(path: Path) -> list[tuple[str, str]]:
    """(command, its report) of each benchmark hyperfine printed."""
    blocks = re.split(r"^Benchmark #?\d+: ", path.read_text(), flags=re.MULTILINE)[1:]
    return [(block.splitlines()[0], block) for block in blocks]


def hf_parse(path: Path) -> list[tuple[str, TrialIn]]:
    return [(s.labels["command"], s.trials[0])
            for s in hyperfine.parse(path.read_text(), CONTEXT).series]


def assert_hf_printed(block: str, trial: TrialIn) -> None:
    """The trial's mean, stddev, min and max are those hyperfine printed in its report."""
    time, range_ = HF_TIME.search(block), HF_RANGE.search(block)
    assert time is not None and range_ is not None
    reported = trial.latency.reported
    assert reported is not None
    for ours, value, unit in ((reported.mean, *time.group(1, 2)),
                              (reported.stddev, *time.group(3, 4)),
                              (reported.min, *range_.group(1, 2)),
                              (reported.max, *range_.group(3, 4))):
        assert ours is not None and printed_as(ours / UNIT_NS[unit], value), (ours, value)
    assert len(trial.latency.samples_ns or []) == int(range_.group(5))


def test_hyperfine_long_command_is_its_label() -> None:
    """hyperfine printed `Benchmark 1: sh -c '...'` (222 characters, past the old 200) and
    `Time (mean): 56.6 ms ± 21.6 ms`: the series is labelled with the whole command."""
    ((printed, block),) = hf_blocks(HF / "1.15.0" / "long.txt")
    ((command, trial),) = hf_parse(HF / "1.15.0" / "long.json")
    assert len(printed) == 222 and command == printed
    assert_hf_printed(block, trial)
    assert trial.failures is None


def test_hyperfine_non_zero_exits_are_failures() -> None:
    """hyperfine --ignore-failure printed `Warning: Ignoring non-zero exit code.` for both
    commands: the first exits 3 every run, the second 1 on every third run (4 of its 10)."""
    path = HF / "1.15.0" / "failing.json"
    assert (HF / "1.15.0" / "failing.stderr.txt").read_text().count(
        "Warning: Ignoring non-zero exit code.") == 2
    results = json.loads(path.read_text())["results"]
    parsed = hf_parse(path)
    for (command, trial), result, (printed, block) in zip(
            parsed, results, hf_blocks(HF / "1.15.0" / "failing.txt"), strict=True):
        assert command == printed
        assert_hf_printed(block, trial)
        failed = sum(code != 0 for code in result["exit_codes"])
        assert trial.failures is not None
        assert (trial.failures.failed, trial.failures.total) == (failed, 10)
        assert trial.metrics["errors"] == failed
    assert [t.failures.detail for _, t in parsed if t.failures] == [
        "10 of 10 runs exited non-zero (exit code 3 x10)",
        "4 of 10 runs exited non-zero (exit code 1 x4)"]


@pytest.mark.parametrize("name", ["sleep", "failing"])
def test_hyperfine_before_exit_codes_is_read(name: str) -> None:
    """hyperfine 1.11.0 wrote no exit_codes (1.12 added them): its file is read, its exit
    codes unknown (no `errors`, no failures) and a note says so; its statistics are those
    it printed (`Benchmark #1: sleep 0.01`, `Time (mean): 20.3 ms ± 14.7 ms`)."""
    path = HF / "1.11.0" / f"{name}.json"
    assert "exit_codes" not in json.loads(path.read_text())["results"][0]
    parsed = hyperfine.parse(path.read_text(), CONTEXT)
    assert len(parsed.notes) == 1 and "exit_codes" in parsed.notes[0]
    blocks = hf_blocks(HF / "1.11.0" / f"{name}.txt")
    for series, (printed, block) in zip(parsed.series, blocks, strict=True):
        (trial,) = series.trials
        assert series.labels["command"] == printed
        assert_hf_printed(block, trial)
        assert trial.failures is None and "errors" not in trial.metrics


@pytest.mark.parametrize("version", ["1.15.0", "1.11.0"])
def test_hyperfine_stopped_at_a_failure_names_the_error(version: str) -> None:
    """Without --ignore-failure hyperfine stops at the failing command (exit status 1) and
    prints `Error: Command terminated with non-zero exit code: 3` (1.11.0: without the
    code); given that output, the error names it, not a missing key."""
    stderr = HF / version / "aborted.stderr.txt"
    assert (HF / version / "aborted.exit-status").read_text().strip() == "rc=1"
    with pytest.raises(ParseError, match=r"^line 1: hyperfine stopped at a failing command: "
                       r"\"Command terminated with non-zero exit code(: 3)?\. Use"):
        hyperfine.parse(stderr.read_text(), CONTEXT)


def hf_result(change: Any) -> dict[str, Any]:
    document = json.loads((HF / "1.15.0" / "failing.json").read_text())
    change(document["results"][1])
    return dict(document)


@pytest.mark.parametrize(("change", "message"), [
    # the population stddev (n) in place of hyperfine's sample one (n - 1)
    (lambda r: r.update(stddev=statistics.pstdev(r["times"])),
     r"^\$\.results\[1\]\.stddev: .* s is not the sample standard deviation \(n - 1\) of its "
     r"times \(.* s over 10 runs\): the statistics contradict the run's own times$"),
    (lambda r: r.update(median=statistics.fmean(r["times"])),
     r"^\$\.results\[1\]\.median: .* is not the median of its times"),
    (lambda r: r.update(min=r["min"] * 0.9), r"^\$\.results\[1\]\.min: .* is not the least"),
    (lambda r: r.update(max=r["max"] * 1.1), r"^\$\.results\[1\]\.max: .* is not the most"),
    (lambda r: r["times"].__setitem__(0, r["times"][0] * 3),
     r"^\$\.results\[1\]\.(mean|max): .* contradict"),
    (lambda r: r.update(times=r["times"][:1], exit_codes=r["exit_codes"][:1],
                        min=r["times"][0], max=r["times"][0], mean=r["times"][0],
                        median=r["times"][0]),
     r"^\$\.results\[1\]\.stddev: .* for a single run, which has no standard deviation"),
])
def test_hyperfine_statistics_contradicting_times_are_refused(change: Any,
                                                              message: str) -> None:
    with pytest.raises(ParseError, match=message):
        hyperfine.parse(json.dumps(hf_result(change)), CONTEXT)


def test_hyperfine_statistics_as_printed_are_read() -> None:
    """Statistics rounded to 4 significant digits (as a tool rewriting hyperfine's JSON may
    print them) are within what printing moves a number, and kept as written."""
    def rounded(result: dict[str, Any]) -> None:
        for key in ("mean", "stddev", "median", "min", "max"):
            result[key] = float(f"{result[key]:.4g}")
    document = hf_result(rounded)
    trial = hyperfine.parse(json.dumps(document), CONTEXT).series[1].trials[0]
    assert trial.latency.reported is not None
    assert math.isclose(trial.latency.reported.stddev or 0,
                        document["results"][1]["stddev"] * 1e9, rel_tol=1e-12)


# vegeta: a target answering 503 to 79 requests of 80 (v12.13.0 and v11.3.0), half the
# requests to a closed port (v12.13.0), and v11.3.0's report layout (no min, 90th or
# throughput).

VEGETA = GOLDEN / "vegeta"
VEGETA_FAILING = [VEGETA / "v12.13.0" / "5xx-report.json", VEGETA / "v12.13.0" /
                  "errors-report.json", VEGETA / "v11.3.0" / "5xx-report.json"]
GO_UNITS = {"ns": 1.0, "µs": 1e3, "ms": 1e6, "s": 1e9}


def vegeta_text(path: Path) -> dict[str, str]:
    """vegeta's text report of the same attack: each line's name and values."""
    found = {}
    for line in path.with_name(path.name.replace(".json", ".txt")).read_text().splitlines():
        name, _, values = line.partition("[")
        if values:
            found[name.strip()] = values
    return found


def go_ns(text: str) -> float:
    """A Go duration as vegeta printed it (`3.242ms`, `120.157µs`), in ns."""
    number, unit = re.fullmatch(r"([\d.]+)(ns|µs|ms|s)", text).groups()  # type: ignore[union-attr]
    return float(number) * GO_UNITS[unit]


@pytest.mark.parametrize("path", VEGETA_FAILING, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_vegeta_failed_requests_are_failures(path: Path) -> None:
    """vegeta printed `Success [ratio] 1.25%` and `Status Codes [code:count] 200:5 503:395`
    (the 503 target), `50.00%` and `0:25 200:25` (the closed port), and its `Error Set`: the
    requests not of status 200 .. 399 are the trial's failures, of all its requests."""
    text = vegeta_text(path)
    codes = dict(item.split(":") for item in text["Status Codes"].partition("]")[2].split())
    total = int(text["Requests"].partition("]")[2].split(",")[0])
    failed = sum(int(count) for code, count in codes.items() if not 200 <= int(code) < 400)
    success = float(text["Success"].partition("]")[2].strip().rstrip("%"))
    assert math.isclose(100 * (total - failed) / total, success, abs_tol=0.005)
    parsed = vegeta.parse(path.read_text(), CONTEXT)
    (trial,) = parsed.series[0].trials
    assert trial.failures is not None
    assert (trial.failures.failed, trial.failures.total) == (failed, total)
    assert trial.metrics["errors"] == failed
    error_set = path.with_name(path.name.replace(".json", ".txt")).read_text().partition(
        "Error Set:\n")[2].strip()
    assert error_set and error_set.splitlines()[0] in trial.failures.detail
    for code, count in codes.items():
        assert f"{code}:{count}" in trial.failures.detail


def test_vegeta_every_request_failures_are_its_reports() -> None:
    """`vegeta encode` of the closed-port attack: 25 of its 50 requests have no response
    (code 0 and an error), as its report (`Status Codes 0:25 200:25`) counts them."""
    lines = (VEGETA / "v12.13.0" / "errors-results.jsonl").read_text().splitlines()
    failed = sum(json.loads(line)["code"] == 0 for line in lines)
    (trial,) = vegeta.parse("\n".join(lines), CONTEXT).series[0].trials
    assert trial.failures is not None
    assert (trial.failures.failed, trial.failures.total) == (failed, len(lines)) == (25, 50)
    assert "connection refused" in trial.failures.detail


@pytest.mark.parametrize("name", ["report.json", "5xx-report.json"])
def test_vegeta_before_v12_8_is_read(name: str) -> None:
    """vegeta v11.3.0's report has no min, no 90th and no throughput: it printed
    `Latencies [mean, 50, 95, 99, max]` (e.g. `1.436027ms, 1.333425ms, 1.638681ms,
    4.288993ms, 5.881168ms`); the trial's summary is exactly those, nothing estimated in
    their place, and notes say what is missing."""
    path = VEGETA / "v11.3.0" / name
    text = vegeta_text(path)
    names = text["Latencies"].partition("]")[0].split(", ")
    values = text["Latencies"].partition("]")[2].strip().split(", ")
    assert names == ["mean", "50", "95", "99", "max"]
    parsed = vegeta.parse(path.read_text(), CONTEXT)
    (trial,) = parsed.series[0].trials
    assert trial.latency.reported is not None
    summary = trial.latency.reported.model_dump(exclude_none=True)
    keys = {"mean": "mean", "50": "p50", "95": "p95", "99": "p99", "max": "max"}
    assert summary.keys() == set(keys.values())
    for label, value in zip(names, values, strict=True):
        assert math.isclose(summary[keys[label]], go_ns(value), rel_tol=1e-9), label
    assert "throughput" not in trial.metrics
    rate = float(text["Requests"].partition("]")[2].split(",")[1])
    assert f"{trial.metrics['rate']:.2f}" == f"{rate:.2f}"
    assert any("no min and no 90th" in note for note in parsed.notes)
    assert any("no throughput" in note for note in parsed.notes)


def vegeta_report(change: Any) -> str:
    document = json.loads((VEGETA / "v12.13.0" / "5xx-report.json").read_text())
    change(document)
    return json.dumps(document)


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d.update(rate=-5.0),
     r"^\$\.rate: -5\.0 is negative: vegeta prints no negative time, rate or count$"),
    (lambda d: d.update(throughput=-1.0), r"^\$\.throughput: -1\.0 is negative"),
    (lambda d: d["latencies"].update({"50th": -1}), r"^\$\.latencies\.50th: -1 is negative"),
    (lambda d: d["bytes_in"].update(mean=-11.9), r"^\$\.bytes_in\.mean: -11\.9 is negative"),
    (lambda d: d["latencies"].update({"99th": d["latencies"]["max"] * 2}),
     r"^\$\.latencies: the p99 \(.* ns\) is above the max .* contradict each other$"),
    (lambda d: d["latencies"].update({"90th": d["latencies"]["50th"] // 2}),
     r"^\$\.latencies: the p50 \(.* ns\) is above the p90"),
    (lambda d: d.update(success=1.0),
     r"^\$\.success: 1 of 400 requests is not the 5 of status 200 \.\. 399"),
])
def test_vegeta_impossible_reports_are_refused(change: Any, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        vegeta.parse(vegeta_report(change), CONTEXT)


# ab: its Failed requests and Non-2xx responses, against a target answering 503 to 3 of 4
# requests (ab-5xx.txt) and the earlier goldens (a 404 target, varying lengths, a server
# killed mid-run).

AB = Path(__file__).parent / "golden" / "ab"


def ab_count(text: str, name: str) -> int:
    found = re.search(rf"^{name}:\s+(\d+)\s*$", text, re.MULTILINE)
    return int(found.group(1)) if found else 0


@pytest.mark.parametrize("name", ["ab-5xx.txt", "ab-non-2xx.txt", "ab-failed-length.txt",
                                  "ab-server-killed.txt", "ab-c100.txt"])
def test_ab_failures_are_its_failed_and_non_2xx(name: str) -> None:
    """ab printed, for the 503 target, `Complete requests: 1000`, `Failed requests: 250`
    (`Length: 250`: the 200s' body is shorter than the first answer's 503) and `Non-2xx
    responses: 750`; the killed server's `Failed requests: 449953` of 200000 complete (its
    counters overlap: the share is unknown)."""
    text = (AB / name).read_text()
    failed = ab_count(text, "Failed requests") + ab_count(text, "Non-2xx responses")
    complete = ab_count(text, "Complete requests")
    (trial,) = ab.parse(text, CONTEXT).series[0].trials
    if failed == 0:
        assert trial.failures is None
        return
    assert trial.failures is not None
    assert trial.failures.failed == failed == trial.metrics["errors"]
    assert trial.failures.total == (complete if failed <= complete else None)
    assert f"Failed requests: {ab_count(text, 'Failed requests')}" in trial.failures.detail


@pytest.mark.parametrize(("old", "new", "message"), [
    ("Failed requests:        250", "Failed requests:        -250",
     r"^line 18: 'Failed requests: +-250': a count, rate or time cannot be negative$"),
    ("Requests per second:    ", "Requests per second:    -",
     r"^line \d+: 'Requests per second: .*cannot be negative$"),
    ("  99%      5", "  99%     -5", r"^line \d+: '99% +-5': a time cannot be negative$"),
    ("  99%      5", "  99%     10",
     r"^line \d+: the 100 % row \(9 ms\) is below the 99 % row \(10 ms\): the served-within "
     r"table must not decrease$"),
])
def test_ab_impossible_output_is_refused(old: str, new: str, message: str) -> None:
    text = (AB / "ab-5xx.txt").read_text()
    assert old in text
    with pytest.raises(ParseError, match=message):
        ab.parse(text.replace(old, new, 1), CONTEXT)


# ghz: a server failing 3 calls of 4 with Unavailable (v0.121.0), ghz's own sample with
# Internal and PermissionDenied errors.

GHZ = GOLDEN / "ghz"


def test_ghz_failed_calls_are_failures() -> None:
    """ghz printed (`-O summary`, a second run against the same server) `[Unavailable] 1500
    responses`, `[OK] 500 responses` and `[1500] rpc error: code = Unavailable desc = flaky:
    try again`; its JSON counts the same: 1500 of 2000 calls failed."""
    summary = (GHZ / "v0.121.0" / "unavailable.txt").read_text()
    printed = {code: int(n) for code, n in
               re.findall(r"^\s+\[(\w+)\]\s+(\d+) responses", summary, re.MULTILINE)}
    document = json.loads((GHZ / "v0.121.0" / "unavailable.json").read_text())
    assert printed == document["statusCodeDistribution"] == {"Unavailable": 1500, "OK": 500}
    (trial,) = ghz.parse(json.dumps(document), CONTEXT).series[0].trials
    assert trial.failures is not None
    assert (trial.failures.failed, trial.failures.total) == (1500, document["count"])
    assert "[1500] rpc error: code = Unavailable desc = flaky: try again" in \
        trial.failures.detail
    assert trial.metrics["errors"] == 1500


def test_ghz_sample_errors_are_failures() -> None:
    """ghz's sample pretty.json: `count` 200, `statusCodeDistribution` `{"OK": 191}` and 9
    calls in its `errorDistribution` (5 Internal, 4 PermissionDenied)."""
    (trial,) = ghz.parse((GHZ / "upstream" / "pretty.json").read_text(),
                         CONTEXT).series[0].trials
    assert trial.failures is not None
    assert (trial.failures.failed, trial.failures.total) == (9, 200)


def ghz_report(change: Any, details: bool = False) -> str:
    document = json.loads((GHZ / "v0.121.0" / "unavailable.json").read_text())
    if not details:
        del document["details"]  # the summary's own distribution is read
    change(document)
    return json.dumps(document)


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d["latencyDistribution"][6].update(latency=d["slowest"] * 2),
     r"^\$\.latencyDistribution: .* ns is above the next point .*contradict each other$"),
    (lambda d: d["latencyDistribution"][2].update(latency=d["latencyDistribution"][4]
                                                  ["latency"] * 2),
     r"^\$\.latencyDistribution: .* is above the next point"),
    (lambda d: d.update(fastest=-5), r"^\$\.fastest: latency -5 ns is outside 0 \.\. 1 h$"),
    (lambda d: d["latencyDistribution"][3].update(latency=-5),
     r"^\$\.latencyDistribution\[3\]\.latency: latency -5 ns is outside 0 \.\. 1 h$"),
    (lambda d: d.update(rps=-1.0), r"^\$\.rps: -1\.0 is outside 0 \.\. "),
    (lambda d: d.update(statusCodeDistribution={"OK": 500, "Unavailable": 2500}),
     r"^\$\.statusCodeDistribution: 3,000 calls, more than the 2,000 of \$\.count$"),
])
@pytest.mark.parametrize("details", [False, True], ids=["summary", "details"])
def test_ghz_impossible_reports_are_refused(change: Any, message: str, details: bool) -> None:
    """With every call's details too: the printed distribution must hold together."""
    with pytest.raises(ParseError, match=message):
        ghz.parse(ghz_report(change, details), CONTEXT)


# oha 1.16.0: a target answering 503 to 3 requests of 4, and a closed port.

OHA = GOLDEN / "oha" / "1.16.0"


def test_oha_5xx_responses_are_failures() -> None:
    """oha printed (`5xx.txt`, a second run against the same target) `[503] 1500 responses`
    and `[200] 500 responses`; its JSON counts the same, with a success rate of 1.0 (every
    request answered): the 503s are the trial's failures, 1500 of 2000."""
    printed = {code: int(n) for code, n in re.findall(
        r"^\s+\[(\d+)\] (\d+) responses", (OHA / "5xx.txt").read_text(), re.MULTILINE)}
    document = json.loads((OHA / "5xx.json").read_text())
    assert printed == document["statusCodeDistribution"] == {"503": 1500, "200": 500}
    assert document["summary"]["successRate"] == 1.0
    (trial,) = oha.parse(json.dumps(document), CONTEXT).series[0].trials
    assert trial.failures is not None
    assert (trial.failures.failed, trial.failures.total) == (1500, 2000)
    assert "503: 1500" in trial.failures.detail


def test_oha_without_any_response_names_its_errors() -> None:
    """Every request to a closed port failed: oha's `errorDistribution` is
    `{"Connection refused (os error 111)": 200}`; no latency, and the error says why."""
    with pytest.raises(ParseError, match=r"^\$\.statusCodeDistribution: no request got a "
                       r"response: .*\[200\] Connection refused \(os error 111\)"):
        oha.parse((OHA / "refused.json").read_text(), CONTEXT)


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d["latencyPercentiles"].update({"p99.99": d["summary"]["slowest"] * 2}),
     r"^\$\.latencyPercentiles: the p99\.99 .* is above the slowest .* contradict each "
     r"other$"),
    (lambda d: d["summary"].update(fastest=d["summary"]["slowest"] * 2),
     r"^\$\.summary\.fastest: .* is above \$\.summary\.slowest"),
    (lambda d: d["summary"].update(requestsPerSec=-1.0),
     r"^\$\.summary\.requestsPerSec: -1\.0 is negative: oha prints no negative"),
])
def test_oha_impossible_output_is_refused(change: Any, message: str) -> None:
    document = json.loads((OHA / "5xx.json").read_text())
    change(document)
    with pytest.raises(ParseError, match=message):
        oha.parse(json.dumps(document), CONTEXT)
