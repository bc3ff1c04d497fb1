"""The zmq suite's programs against each other: the quote server and both instruments, run as
the runner renders their command lines. Windows are a few seconds; the build is cached."""

from pathlib import Path

import pytest
from hdrh.histogram import HdrHistogram
from suite_support import build_cache_dir
from zmq_support import (
    COUNTED,
    INSTRUMENTS,
    PATTERNS,
    REPORT_KEYS,
    Server,
    build_suite,
    instrument_argv,
    quote_server,
    run,
)

SEED_TUNED = {"sndbuf": "applied: 256000", "rcvbuf": "applied: 256000",
              "rcvtimeo": "applied: 2000", "tcp_keepalive": "applied: 1",
              "tcp_keepalive_idle": "applied: 300", "linger": "applied: 0"}


@pytest.fixture(scope="module")
def build_dir() -> Path:
    return build_suite(build_cache_dir())


@pytest.fixture(scope="module")
def server(build_dir: Path):
    with quote_server(build_dir) as running:
        yield running


def check_accounting(report: dict) -> None:
    """Every message owed is answered or counted, and the histogram and the per-second windows
    hold exactly the samples."""
    assert set(report) == REPORT_KEYS, report.keys()
    assert report["sent"] == sum(report[key] for key in COUNTED), report
    assert HdrHistogram.decode(report["latency_hdr"]).get_total_count() == report["samples"]
    assert sum(window["count"] for window in report["intervals"]) == report["samples"]


@pytest.mark.parametrize("instrument", INSTRUMENTS)
@pytest.mark.parametrize("pattern", PATTERNS)
def test_each_instrument_measures_each_pattern(build_dir: Path, server: Server, instrument: str,
                                               pattern: str) -> None:
    result = run(instrument_argv(instrument, build_dir, server, pattern, window=1,
                                 subscribers=2))
    assert result.returncode == 0, result.stderr
    report = result.report
    check_accounting(report)
    assert (report["instrument"], report["pattern"]) == (instrument, pattern)
    assert report["samples"] > 0 and report["errors"] == report["timeouts"] == 0, report
    assert report["gaps"] == report["backlog"] == 0, report
    assert report["throughput"] > 0 and report["window_s"] >= 1.0
    assert report["tuning"] == SEED_TUNED
    if pattern == "pub-sub":  # 100 ticks/s for about a second, to each of two subscribers
        assert report["sent"] % 2 == 0 and report["sent"] >= 2 * 50, report


# What each "before" profile sets; every other option keeps libzmq's default.
BEFORE = {"baseline": {"rcvtimeo": "applied: 5000"},
          "baseline-128k": {"sndbuf": "applied: 128000", "rcvbuf": "applied: 128000",
                            "rcvtimeo": "applied: 5000"}}


@pytest.mark.parametrize("profile", BEFORE)
@pytest.mark.parametrize("instrument", INSTRUMENTS)
def test_a_before_profile_sets_its_options_and_keeps_libzmq_defaults_for_the_rest(
        build_dir: Path, server: Server, instrument: str, profile: str) -> None:
    result = run(instrument_argv(instrument, build_dir, server, "req-rep", profile, window=1))
    assert result.returncode == 0, result.stderr
    tuning = result.report["tuning"]
    assert {k: tuning.pop(k) for k in BEFORE[profile]} == BEFORE[profile]
    # libzmq's defaults as the socket reports them: buffers -1 (the OS's), keepalive -1, ...
    assert all(value.startswith("default: ") for value in tuning.values()), tuning
    assert set(tuning) == set(SEED_TUNED) - set(BEFORE[profile])


@pytest.mark.parametrize(("instrument", "pattern"), [
    ("python", "req-rep"), ("c", "req-rep"), ("c", "dealer-router")])
def test_an_unanswered_request_times_out_and_the_req_socket_is_reopened(
        build_dir: Path, instrument: str, pattern: str) -> None:
    """The server leaves every 20th request unanswered. After RCVTIMEO (2 s, tuned) the request
    counts as a timeout; a REQ socket can send nothing more until it is closed and reopened,
    so answers after the first timeout prove the reopening."""
    with quote_server(build_dir, "EURUSD.s", "--drop-every", "20") as server:
        result = run(instrument_argv(instrument, build_dir, server, pattern, window=3,
                                     warmup=0, in_flight=2))
    assert result.returncode == 0, result.stderr
    report = result.report
    check_accounting(report)
    assert report["timeouts"] >= 1 and report["errors"] == 0, report
    assert report["samples"] > 19, report  # at most 19 answers come before the first drop
    # The window is 3 s; the last request may wait out its RCVTIMEO after it.
    assert 3 <= report["window_s"] < 3 + 2 + 1, report


@pytest.mark.parametrize("instrument", INSTRUMENTS)
def test_a_late_subscriber_counts_the_ticks_it_missed(build_dir: Path, instrument: str) -> None:
    """Two subscribers join 300 ms after the window's first tick number was taken, at 1,000
    ticks/s: the ticks of those 300 ms are join gaps, not silently missing."""
    with quote_server(build_dir, tick_rate=1000) as server:
        argv = instrument_argv(instrument, build_dir, server, "pub-sub", window=1,
                               subscribers=2)
        result = run([*argv, "--join-delay-ms", "300"])
    assert result.returncode == 0, result.stderr
    report = result.report
    check_accounting(report)
    assert report["join_gaps"] >= 2 * 150, report  # about 2 x 300; the server may run late
    assert report["samples"] > 0


@pytest.mark.parametrize("instrument", INSTRUMENTS)
def test_a_slow_reader_counts_the_ticks_dropped_at_the_high_water_mark(
        build_dir: Path, instrument: str) -> None:
    """5,000 ticks/s of 4 KB to a subscriber that spends 300 us on each: its queues (the
    high-water marks and the tuned 256 KB buffers) fill and the publisher drops; the
    subscriber sees the holes in the sequence numbers and counts them."""
    with quote_server(build_dir, tick_rate=5000, tick_bytes=4096) as server:
        argv = instrument_argv(instrument, build_dir, server, "pub-sub", window=3)
        result = run([*argv, "--read-delay-us", "300"])
    assert result.returncode == 0, result.stderr
    report = result.report
    check_accounting(report)
    assert report["gaps"] > 0, report


@pytest.mark.parametrize("instrument", INSTRUMENTS)
def test_an_instrument_facing_no_server_stops_in_time(build_dir: Path,
                                                      instrument: str) -> None:
    """Nothing listens: every request times out; the instrument ends after its window and one
    RCVTIMEO, prints what it counted, and exits 1 (no sample)."""
    with quote_server(build_dir) as server:
        dead = Server(server.process, server.router, server.pub)
    result = run(instrument_argv(instrument, build_dir, dead, "req-rep", window=2))
    assert result.returncode == 1, result.stderr
    report = result.report
    check_accounting(report)
    assert report["samples"] == 0 and report["timeouts"] >= 1, report
    assert result.elapsed_s < 2 + 2 + 5, result.elapsed_s


@pytest.mark.parametrize("instrument", INSTRUMENTS)
@pytest.mark.parametrize("bad", [
    ["--window", "0"], ["--pattern", "push-pull"], ["--profile", "fast"],
    ["--symbol", "EUR USD"], ["--subscribers", "1000000"], ["--router", "nowhere"]])
def test_bad_arguments_exit_2(build_dir: Path, instrument: str, bad: list[str]) -> None:
    server = Server(None, "127.0.0.1:1", "127.0.0.1:2")  # type: ignore[arg-type]
    argv = instrument_argv(instrument, build_dir, server, "req-rep", window=1)
    flag = argv.index(bad[0])
    result = run([*argv[:flag], *bad, *argv[flag + 2:]])
    assert result.returncode == 2, (result.returncode, result.stderr)
    assert bad[0] in result.stderr or bad[0].lstrip("-") in result.stderr, result.stderr
    assert result.stdout == ""
