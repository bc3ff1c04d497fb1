"""ghz's adapter against v0.121.0 and v0.93.0: the JSON with every call, compared with ghz's
printer's summary of it; and ghz's upstream samples, whose details are not every call."""

import json
import re
from pathlib import Path
from typing import Any

import pytest
from loadgen_support import (
    CONTEXT,
    GHZ,
    REPORTED,
    at_rank,
    close,
    go_seconds,
    only_trial,
    printed_stats,
    rebuilt,
    relative,
    summary_key,
)

from latlab_contract.parsers import ParseError, ghz

GHZ_RUNS = sorted(GHZ.glob("v*/ghz.json"))


GHZ_PARTIAL = sorted((GHZ / "upstream").glob("*.json"))


def ghz_duration(seconds: float) -> int:
    """Go's time.Duration(seconds * float64(time.Second)): truncated."""
    return int(seconds * 1e9)


def ghz_index(percentage: int, count: int) -> int:
    """ghz's index of a percentile (runner/reporter.go `latencies`)."""
    product = percentage / 100.0 * count
    index = int(product)
    if product == index:
        index -= 1
    return max(index, 0)


def ghz_percentile(latencies: list[int], percentage: int) -> int:
    """ghz's percentile of latencies in ns: over float seconds, and back."""
    seconds = sorted(go_seconds(v) for v in latencies)
    return ghz_duration(seconds[ghz_index(percentage, len(seconds))])


def ghz_metrics(document: dict[str, Any]) -> dict[str, float]:
    timeouts = (document["statusCodeDistribution"] or {}).get("DeadlineExceeded", 0)
    return {"throughput": document["rps"], "requests": document["count"],
            "errors": sum(document["errorDistribution"].values()) - timeouts,
            "timeouts": timeouts}


@pytest.mark.parametrize("path", GHZ_RUNS, ids=relative)
def test_ghz_details_are_every_call_and_give_ghzs_numbers(path: Path) -> None:
    document = json.loads(path.read_text())
    trial = only_trial(ghz, path)
    samples = trial.latency.samples_ns
    assert samples is not None and not trial.latency.rebuilt
    assert len(document["details"]) == document["count"]
    assert samples == [d["latency"] for d in document["details"] if d["error"] == ""]
    # ghz's own statistics, by ghz's code from our samples
    assert ghz_duration(min(go_seconds(v) for v in samples)) == document["fastest"]
    assert ghz_duration(max(go_seconds(v) for v in samples)) == document["slowest"]
    total = 0.0
    for value in samples:  # in the order ghz summed them
        total += go_seconds(value)
    assert ghz_duration(total / document["count"]) == document["average"]
    for entry in document["latencyDistribution"]:
        assert ghz_percentile(samples, entry["percentage"]) == entry["latency"]
    # the summary keeps ghz's min, max and mean, and leaves the percentiles to the samples
    assert printed_stats(trial.latency) == {"min": document["fastest"],
                                            "max": document["slowest"],
                                            "mean": document["average"]}
    assert trial.metrics == ghz_metrics(document)


def format_nano_unit(nanoseconds: int) -> str:
    """ghz's printer `formatNanoUnit`."""
    if nanoseconds < 10000:
        return f"{nanoseconds:+d} ns"
    if nanoseconds / 1e6 < 1000:
        return f"{nanoseconds / 1e6:4.2f} ms"
    return f"{nanoseconds / 1e9:4.2f} s"


@pytest.mark.parametrize("path", GHZ_RUNS, ids=relative)
def test_ghz_printer_summary_is_ours(path: Path) -> None:
    """`ghz.json.summary.txt`: ghz's printer package's -O summary of the same JSON."""
    text = path.with_name("ghz.json.summary.txt").read_text()

    def field(name: str) -> str:
        return re.search(rf"^\s+{name}:\s+(.+?)\s*$", text, re.MULTILINE).group(1)

    trial = only_trial(ghz, path)
    stats = printed_stats(trial.latency)
    assert trial.metrics["requests"] == int(field("Count"))
    assert f"{trial.metrics['throughput']:4.2f}" == field("Requests/sec")
    for name, key in (("Slowest", "max"), ("Fastest", "min"), ("Average", "mean")):
        assert format_nano_unit(int(stats[key])) == field(name), name
    lines = re.findall(r"^\s+(\d+) % in (.+?)\s*$", text, re.MULTILINE)
    assert [int(p) for p, _ in lines] == [10, 25, 50, 75, 90, 95, 99]
    samples = trial.latency.samples_ns or []
    for percentage, value in lines:
        assert format_nano_unit(ghz_percentile(samples, int(percentage))) == value, percentage
    statuses = dict(re.findall(r"^\s+\[(\w+)\]\s+(\d+) responses", text, re.MULTILINE))
    assert trial.metrics["errors"] + trial.metrics["timeouts"] == sum(
        int(n) for status, n in statuses.items() if status != "OK")


@pytest.mark.parametrize("path", GHZ_PARTIAL, ids=relative)
def test_ghz_report_without_every_call_is_rebuilt_from_its_summary(path: Path) -> None:
    """ghz's published samples hold fewer details than calls (191 and 193 of 200): their
    summary is the run's, so the latency is rebuilt from it, over the OK calls."""
    document = json.loads(path.read_text())
    assert len(document["details"]) < document["count"]
    failed = sum(document["errorDistribution"].values())
    count = document["count"] - failed
    trial, ours = rebuilt(ghz, path, count)
    expected = {"min": document["fastest"], "max": document["slowest"],
                **{summary_key(str(e["percentage"])): e["latency"]
                   for e in document["latencyDistribution"]
                   if summary_key(str(e["percentage"])) in REPORTED}}
    if failed == 0:  # ghz's average is over every call, its percentiles over the OK ones
        expected["mean"] = document["average"]
    assert printed_stats(trial.latency) == expected
    for entry in document["latencyDistribution"]:
        rank = ghz_index(entry["percentage"], count) + 1
        assert close(at_rank(ours, rank), entry["latency"]), entry["percentage"]
    assert trial.metrics == ghz_metrics(document)


@pytest.mark.parametrize("path", sorted(GHZ.rglob("*.txt")), ids=relative)
def test_ghz_text_is_refused(path: Path) -> None:
    with pytest.raises(ParseError, match=r"line 1: not ghz's JSON report: run ghz with -O json"):
        ghz.parse(path.read_text(), CONTEXT)
