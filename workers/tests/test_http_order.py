"""The http-order suite's programs, built by the runner's own build: the order server's
contract (validation, stats, the stall and delay hooks) and every client's contract
(README.md), run with the command lines the runner renders from suite.toml."""

import http.client
import json
import socket
import statistics
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from http_order_support import (
    CLIENTS,
    REPORT_KEYS,
    USUAL,
    Server,
    build_suite,
    client_argv,
    decode,
    order_server,
    post_order,
    reported_name,
    request,
    run_client,
    valid_order,
)
from suite_support import build_cache_dir

TINY = {"orders": 50, "connections": 4, "warmup": 5}


@pytest.fixture(scope="session")
def build_dir() -> Path:
    return build_suite(build_cache_dir())


@pytest.fixture(scope="module")
def server(build_dir: Path) -> Iterator[Server]:
    """The server exactly as the suite starts it (no test hooks), shared by the module."""
    with order_server(build_dir) as running:
        yield running


@pytest.fixture
def hooked_server(build_dir: Path) -> Iterator[Server]:
    """A fresh server with --test-hooks (so its stats start at zero)."""
    with order_server(build_dir, "--test-hooks") as running:
        yield running


# --- the server ---------------------------------------------------------------------------

def test_a_valid_order_is_answered_with_its_latency(hooked_server: Server) -> None:
    order = valid_order()
    answer = post_order(hooked_server.listening, order)
    assert answer.status == 200, answer.body
    assert set(answer.body) == {"symbol", "buy_sell", "status", "client_timestamp",
                                "server_timestamp", "latency_ms"}
    assert answer.body["symbol"] == 2330 and answer.body["buy_sell"] == "buy"
    assert answer.body["status"] == "SUCCESS"
    assert answer.body["client_timestamp"] == order["client_timestamp"]
    server_time = answer.body["server_timestamp"]
    assert server_time.endswith("Z") and len(server_time.split(".")[1]) == 4  # ms + "Z"
    sent = datetime.fromisoformat(order["client_timestamp"])
    answered = datetime.fromisoformat(server_time)
    assert abs((answered - sent).total_seconds() * 1000 - answer.body["latency_ms"]) < 1.0
    assert 0 <= answer.body["latency_ms"] < 5000


@pytest.mark.parametrize(("field", "value"), [
    ("buy_sell", "hold"),
    ("symbol", "2330"),
    ("symbol", 1.5),
    ("price", 0),
    ("price", -1),
    ("quantity", 0),
    ("client_timestamp", "yesterday"),
    ("market_type", ""),
])
def test_a_bad_field_is_a_400_naming_it(hooked_server: Server, field: str, value: Any) -> None:
    answer = post_order(hooked_server.listening, valid_order(**{field: value}))
    assert answer.status == 400, answer.body
    assert answer.body["error"].startswith(f"{field}: "), answer.body


def test_a_missing_field_is_a_400_naming_it(hooked_server: Server) -> None:
    order = valid_order()
    del order["client_timestamp"]
    answer = post_order(hooked_server.listening, order)
    assert answer.status == 400
    assert answer.body["error"] == "client_timestamp: missing"


@pytest.mark.parametrize(("body", "content_type"), [
    (b'{"buy_sell": "buy", "symbol": ', "application/json"),
    (b"[1, 2, 3]", "application/json"),
    (json.dumps(valid_order()).encode(), "text/plain"),
])
def test_a_body_that_is_not_an_order_is_a_400_with_a_reason(
        hooked_server: Server, body: bytes, content_type: str) -> None:
    answer = request(hooked_server.listening, "POST", "/order", body, content_type)
    assert answer.status == 400, answer.body
    assert answer.body["error"].startswith("body: "), answer.body


def test_stats_count_accepted_orders_only(hooked_server: Server) -> None:
    empty = request(hooked_server.listening, "GET", "/stats")
    assert empty.status == 200
    assert empty.body == {"total_orders": 0, "elapsed_seconds": 0.0, "orders_per_second": 0.0}
    for _ in range(5):
        assert post_order(hooked_server.listening, valid_order()).status == 200
    assert post_order(hooked_server.listening, valid_order(price=0)).status == 400
    time.sleep(0.05)
    stats = request(hooked_server.listening, "GET", "/stats").body
    assert stats["total_orders"] == 5
    assert stats["elapsed_seconds"] >= 0.05
    assert stats["orders_per_second"] == pytest.approx(5 / stats["elapsed_seconds"], rel=0.2)


def test_the_stall_hook_holds_every_answer(hooked_server: Server) -> None:
    stalled = request(hooked_server.listening, "POST", "/admin/stall?ms=300")
    assert stalled.status == 200, stalled.body
    started = time.monotonic()
    assert post_order(hooked_server.listening, valid_order()).status == 200
    assert time.monotonic() - started >= 0.25
    started = time.monotonic()
    assert request(hooked_server.listening, "GET", "/stats").status == 200
    assert time.monotonic() - started < 0.25  # the stall is over


@pytest.mark.parametrize("query", ["ms=0", "ms=20000", "ms=abc", ""])
def test_the_stall_hook_refuses_bad_durations(hooked_server: Server, query: str) -> None:
    answer = request(hooked_server.listening, "POST", f"/admin/stall?{query}")
    assert answer.status == 400
    assert answer.body["error"].startswith("ms: ")


def _order_latencies_ns(listening: str, count: int = 40) -> list[int]:
    """`count` orders one after another on one keep-alive connection (Python's http.client,
    not a suite client), each timed from request to whole answer."""
    host, port = listening.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=10)
    body = json.dumps(valid_order()).encode()
    latencies = []
    try:
        for _ in range(count):
            started = time.monotonic_ns()
            connection.request("POST", "/order", body, {"Content-Type": "application/json"})
            response = connection.getresponse()
            response.read()
            latencies.append(time.monotonic_ns() - started)
            assert response.status == 200
    finally:
        connection.close()
    return latencies


def test_the_delay_hook_adds_its_microseconds_to_every_answer(hooked_server: Server) -> None:
    delay_us = 10_000
    before = _order_latencies_ns(hooked_server.listening)
    answer = request(hooked_server.listening, "POST", f"/admin/delay?us={delay_us}")
    assert answer.status == 200 and answer.body == {"delay_us": delay_us}, answer.body
    delayed = _order_latencies_ns(hooked_server.listening)
    assert request(hooked_server.listening, "POST", "/admin/delay?us=0").status == 200
    after = _order_latencies_ns(hooked_server.listening)
    rise_ns = statistics.median(delayed) - statistics.median(before)
    figures = (f"median before {statistics.median(before) / 1e3:.0f} us, delayed "
               f"{statistics.median(delayed) / 1e3:.0f} us, after "
               f"{statistics.median(after) / 1e3:.0f} us; fastest delayed "
               f"{min(delayed) / 1e3:.0f} us")
    # A sleep never ends early: every delayed answer took the delay at least. The upper bounds
    # are generous (the machine is shared): about the delay added, and gone once removed.
    assert min(delayed) >= delay_us * 1000, figures
    assert rise_ns < 2 * delay_us * 1000, figures
    assert statistics.median(after) < statistics.median(before) + delay_us * 1000 / 2, figures


def test_work_us_makes_every_order_cost_that_much_cpu(build_dir: Path) -> None:
    work_us = 2_000
    with order_server(build_dir, "--work-us", str(work_us)) as slow:
        latencies = _order_latencies_ns(slow.listening)
    figures = (f"median {statistics.median(latencies) / 1e3:.0f} us, fastest "
               f"{min(latencies) / 1e3:.0f} us")
    # The spin never ends early; generous above (the machine is shared).
    assert min(latencies) >= work_us * 1000, figures
    assert statistics.median(latencies) < 3 * work_us * 1000, figures


@pytest.mark.parametrize("query", ["us=-1", "us=100001", "us=abc", ""])
def test_the_delay_hook_refuses_bad_durations(hooked_server: Server, query: str) -> None:
    answer = request(hooked_server.listening, "POST", f"/admin/delay?{query}")
    assert answer.status == 400
    assert answer.body["error"] == "us: must be an integer from 0 to 100000"


@pytest.mark.parametrize("path", ["/admin/stall?ms=100", "/admin/delay?us=100"])
def test_the_hooks_exist_only_with_test_hooks(server: Server, path: str) -> None:
    assert request(server.listening, "POST", path).status == 404


# --- the clients --------------------------------------------------------------------------

def _check_report(report: dict[str, Any], client: str, mode: str) -> None:
    expected = REPORT_KEYS | ({"latency_uncorrected_hdr"} if mode == "open" else set())
    assert set(report) >= expected, sorted(expected - set(report))
    assert report["client"] == reported_name(client) and report["mode"] == mode
    assert report["ok"] + report["errors"] + report["timeouts"] == report["orders"]
    assert set(report["tuning"]) >= {"pin_cpus", "mlock"}
    if client not in ("rust", "ref"):  # one design each: no --library
        library = "usual" if client.endswith("-usual") else "tuned"
        assert report["tuning"]["library"] == library, report["tuning"]
    _check_intervals(report)


def _check_intervals(report: dict[str, Any]) -> None:
    """One window per second from 0, the ok orders split among them, percentiles in order;
    the largest latency is the histogram's (within its 0.1 % precision)."""
    windows = report["intervals"]
    assert [w["t_s"] for w in windows] == list(range(len(windows))), windows
    assert sum(w["count"] for w in windows) == report["ok"], windows
    filled = [w for w in windows if w["count"] > 0]
    for window in windows:
        if window["count"] == 0:
            assert set(window) == {"t_s", "count"}, window
    for window in filled:
        values = [window[k] for k in ("p50", "p90", "p99", "p999", "max")]
        assert values[0] > 0 and values == sorted(values), window
    if filled:
        hdr_max = decode(report["latency_hdr"]).get_max_value()
        assert abs(max(w["max"] for w in filled) - hdr_max) <= hdr_max * 0.001 + 1


# c-hft: the seed's HFT build of the C client (the same source, its compiler flags).
@pytest.mark.parametrize("client", [*CLIENTS, "c-hft", *USUAL, "c-hft-usual"])
def test_closed_loop_smoke(build_dir: Path, server: Server, client: str) -> None:
    run = run_client(client_argv(client, build_dir, server.listening, **TINY))
    assert run.returncode == 0, run.stderr[-2000:]
    report = run.report
    _check_report(report, client, "closed")
    assert report["orders"] == report["ok"] == TINY["orders"], report
    assert report["target_rate"] == 0
    latency = decode(report["latency_hdr"])
    assert latency.get_total_count() == report["ok"]
    # Each connection sends one order after another, so the measuring phase lasts at least
    # the orders' latencies shared among the connections (a late-started clock fails this).
    busy_s = latency.get_mean_value() * latency.get_total_count() / TINY["connections"] / 1e9
    assert report["duration_s"] >= 0.99 * busy_s, (report["duration_s"], busy_s)


@pytest.mark.parametrize("client", CLIENTS + USUAL)
def test_open_loop_smoke(build_dir: Path, server: Server, client: str) -> None:
    run = run_client(client_argv(client, build_dir, server.listening, **TINY,
                                 rate=200, duration=2, settle=3))
    assert run.returncode == 0, run.stderr[-2000:]
    report = run.report
    _check_report(report, client, "open")
    assert report["ok"] == report["orders"] > 0, report
    assert report["target_rate"] == 200
    assert report["tuning"]["settle"] == "off"  # an open loop's warm-up is its schedule
    assert report["achieved_rate"] == pytest.approx(200, rel=0.05)
    corrected = decode(report["latency_hdr"])
    uncorrected = decode(report["latency_uncorrected_hdr"])
    assert corrected.get_total_count() == uncorrected.get_total_count() == report["ok"]
    # From the intended send time, never less than from the actual one.
    assert corrected.get_max_value() >= uncorrected.get_max_value() * 0.99


@pytest.mark.parametrize("client", CLIENTS + USUAL)
def test_a_trial_by_time_measures_for_its_duration_after_a_settled_warmup(
        build_dir: Path, server: Server, client: str) -> None:
    run = run_client(client_argv(client, build_dir, server.listening, orders=0, duration=1,
                                 warmup=20, connections=4, settle=10))
    assert run.returncode == 0, run.stderr[-2000:]
    report = run.report
    _check_report(report, client, "closed")
    assert report["orders"] == report["ok"] > 0, report
    assert report["duration_s"] >= 0.95, report["duration_s"]  # orders taken for 1 s
    assert report["warmup_orders"] >= 20
    # Three windows of 200 ms must agree before measuring starts: never sooner than 0.6 s.
    settle = report["tuning"]["settle"]
    assert settle in {"settled", "not settled in 10 s"}, settle
    assert report["warmup_s"] >= (0.6 if settle == "settled" else 10.0), report["warmup_s"]


@pytest.mark.parametrize("client", CLIENTS + USUAL)
def test_a_warmup_that_cannot_settle_in_time_still_measures(
        build_dir: Path, server: Server, client: str) -> None:
    """Three 200 ms windows cannot fit in 0.05 s: measuring starts anyway, and says so."""
    run = run_client(client_argv(client, build_dir, server.listening, **TINY, settle=0.05))
    assert run.returncode == 0, run.stderr[-2000:]
    report = run.report
    assert report["tuning"]["settle"] == "not settled in 0.05 s", report["tuning"]
    assert report["ok"] == TINY["orders"] and report["warmup_s"] >= 0.05, report
    unsettled = run_client(client_argv(client, build_dir, server.listening, **TINY)).report
    assert unsettled["tuning"]["settle"] == "off"
    assert unsettled["warmup_orders"] == TINY["warmup"]


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize(("mode", "params", "orders"), [
    ("closed", {"orders": 20, "timeout": 1, "duration": 3}, 20),
    # Every order due in the 2 s window is counted, none sent after it.
    ("open", {"rate": 50, "timeout": 1, "duration": 2}, 100),
])
@pytest.mark.parametrize("client", CLIENTS + USUAL)
def test_a_client_facing_no_server_fails_in_time(
        build_dir: Path, client: str, mode: str, params: dict[str, Any], orders: int) -> None:
    run = run_client(client_argv(client, build_dir, f"127.0.0.1:{_closed_port()}", **params),
                     timeout=60)
    assert run.returncode == 1, run.stderr[-2000:]
    report = run.report
    _check_report(report, client, mode)
    assert report["ok"] == 0
    assert report["orders"] == report["errors"] + report["timeouts"] == orders, report
    # A behaviour bound (it stops by itself), not a performance claim.
    assert run.elapsed_s < params["duration"] + params["timeout"] + 5
