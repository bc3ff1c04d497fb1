"""wrk's adapter against wrk 4.1.0's own text (with --latency, and the README's example without):
every golden file is parsed and its numbers compared with what wrk printed, read here from its
output; nothing expected is typed in by hand."""

import math
import re
from pathlib import Path
from typing import Any

import pytest
from loadgen_support import (
    CONTEXT,
    GOLDEN,
    REPORTED,
    WRK,
    at_percentile,
    close,
    only_trial,
    printed_stats,
    rebuilt,
    relative,
    summary_key,
)

from latlab_contract.parsers import ParseError, wrk

# Nanoseconds per unit, as the tools print units (wrk's `m` is minutes).
UNIT_NS = {"ns": 1.0, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9, "m": 60e9}


def printed_as(ours: float, printed: str, unit: str) -> str:
    """Our value in the unit and to the decimals of a number the tool printed."""
    decimals = len(printed.partition(".")[2])
    return f"{ours / UNIT_NS[unit]:.{decimals}f}"


WRK_FILES = sorted(WRK.glob("*.txt"))


WRK_TIME = r"([\d.]+)(us|ms|s|m)"


def wrk_printed(text: str) -> dict[str, Any]:
    """What wrk printed: thread stats' latency (value, unit) x 3, the percentile lines, the
    requests, the rates and the error lines."""
    thread = re.search(rf"^\s+Latency\s+{WRK_TIME}\s+{WRK_TIME}\s+{WRK_TIME}\s+[\d.]+%$",
                       text, re.MULTILINE)
    requests = re.search(r"^\s+(\d+) requests in ([\d.]+)(us|ms|s|m), ", text, re.MULTILINE)
    socket = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)",
                       text)
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    transfer = re.search(r"^Transfer/sec:\s+([\d.]+)([KMGTP]?)B$", text, re.MULTILINE)
    assert thread is not None and requests is not None and transfer is not None
    connect, read, write, timeout = (int(v) for v in socket.groups()) if socket else (0,) * 4
    return {
        "mean": thread.group(1, 2), "stddev": thread.group(3, 4), "max": thread.group(5, 6),
        "percentiles": re.findall(rf"^\s+(\d+)%\s+{WRK_TIME}$", text, re.MULTILINE),
        "requests": int(requests.group(1)),
        "seconds": float(requests.group(2)) * UNIT_NS[requests.group(3)] / 1e9,
        "throughput": float(re.search(r"^Requests/sec:\s+([\d.]+)$", text,
                                      re.MULTILINE).group(1)),
        "transfer_per_s": float(transfer.group(1)) * 1024 ** "_KMGTP".find(
            transfer.group(2) or "_"),
        "errors": connect + read + write + (int(non_2xx.group(1)) if non_2xx else 0),
        "timeouts": timeout,
    }


WRK_LATENCY_FILES = [p for p in WRK_FILES if "Latency Distribution" in p.read_text()]


@pytest.mark.parametrize("path", WRK_LATENCY_FILES, ids=relative)
def test_wrk_summary_is_what_wrk_printed(path: Path) -> None:
    printed = wrk_printed(path.read_text())
    # wrk records no latency of a request that timed out (its `stats_record` refuses it)
    count = printed["requests"] - printed["timeouts"]
    trial, ours = rebuilt(wrk, path, count)
    stats = printed_stats(trial.latency)
    assert set(stats) == {"p50", "p90", "p99", "max", "mean", "stddev"}  # wrk prints no min
    for key in ("mean", "stddev", "max"):
        value, unit = printed[key]
        assert printed_as(stats[key], value, unit) == value, key
    assert close(ours.get_max_value(), float(printed["max"][0]) * UNIT_NS[printed["max"][1]])
    assert [p for p, _, _ in printed["percentiles"]] == ["50", "75", "90", "99"]
    for percent, value, unit in printed["percentiles"]:
        key = summary_key(percent)
        if key in REPORTED:
            assert printed_as(stats[key], value, unit) == value, key
        # every printed point is in the rebuilt histogram, at its nearest rank
        assert close(at_percentile(ours, float(percent), count),
                     float(value) * UNIT_NS[unit]), percent
    for metric in ("requests", "throughput", "errors", "timeouts"):
        assert trial.metrics[metric] == printed[metric], metric
    assert math.isclose(trial.metrics["transfer_per_s"], printed["transfer_per_s"])


def test_wrk_errors_and_timeouts_come_from_their_lines() -> None:
    """The golden runs that printed them: all 404 (Non-2xx), and 18 socket timeouts."""
    assert only_trial(wrk, WRK / "t2-c10-d5s-404.txt").metrics["errors"] == 206305
    timed_out = only_trial(wrk, WRK / "t2-c400-d5s-timeout1s-slow-server.txt")
    assert timed_out.metrics["timeouts"] == 18 and timed_out.metrics["errors"] == 0


def test_wrk_latency_statistics_are_corrected_for_coordinated_omission() -> None:
    """One connection sends one request at a time, so its requests' latencies add up to at
    most the run's time: their mean is at most 3.04 s / 97940 = 31 us. wrk printed an Avg of
    1.61 ms (and a 75 % of 833 us): its statistics include the values its `stats_correct`
    adds for slow requests, as the adapter's documentation says."""
    path = WRK / "t1-c1-d3s.txt"
    text = path.read_text()
    assert "1 threads and 1 connections" in text
    printed = wrk_printed(text)
    bound = printed["seconds"] * 1e9 / printed["requests"]
    stats = printed_stats(only_trial(wrk, path).latency)
    assert stats["mean"] > 50 * bound


@pytest.mark.parametrize("path", [p for p in WRK_FILES if p not in WRK_LATENCY_FILES],
                         ids=relative)
def test_wrk_without_latency_flag_is_refused(path: Path) -> None:
    with pytest.raises(ParseError, match=r"run wrk with --latency"):
        wrk.parse(path.read_text(), CONTEXT)


def test_wrk_refuses_wrk2_output() -> None:
    with pytest.raises(ParseError, match="read it with the wrk2 adapter"):
        wrk.parse((GOLDEN / "wrk2" / "latency.txt").read_text(), CONTEXT)
