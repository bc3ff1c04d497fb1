"""Helpers for the http-order suite's tests (workers/tests/test_http_order.py and
backend/tests/test_http_order_co.py): the suite built with the runner's own build, the order
server as a process, and client command lines rendered from suite.toml as the runner does."""

import http.client
import json
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import suite_support
from hdrh.histogram import HdrHistogram
from suite_support import ProgramRun, announced

from latlab_workers.builds import program_context
from latlab_workers.suites import SUITES_DIR, Suite, load_suite
from latlab_workers.templates import render

SUITE: Suite = load_suite(SUITES_DIR / "http-order")
# "ref" (order-load, the lab's reference load) is not in the suite's default `loads`.
CLIENTS = ["python", "c", "cpp", "rust", "go", "ref"]
# The seed's clients as it wrote them, each language's usual HTTP library: the same programs
# with --library usual, reporting under their tuned twins' names ("client": "c").
USUAL = ["python-usual", "c-usual", "cpp-usual", "go-usual"]


def reported_name(client: str) -> str:
    """The `client` the program behind a label reports: c-usual's is "c"."""
    return client.removesuffix("-usual")
# The contract's keys (README.md); open loop adds latency_uncorrected_hdr.
REPORT_KEYS = {"client", "mode", "latency_hdr", "orders", "ok", "errors", "timeouts",
               "success_rate", "duration_s", "throughput", "target_rate", "achieved_rate",
               "tuning", "intervals", "warmup_orders", "warmup_s"}
BUILD_TIME_S = 1800  # a cold build of the Rust workspace, C, C++ and Go on a small machine


def build_suite(cache_dir: Path) -> Path:
    return suite_support.build_suite(SUITE, cache_dir, BUILD_TIME_S)


def valid_order(**fields: Any) -> dict[str, Any]:
    """The seed's order, stamped now, with `fields` replaced."""
    order: dict[str, Any] = {
        "buy_sell": "buy", "symbol": 2330, "price": 100.0, "quantity": 1000,
        "market_type": "common", "price_type": "limit", "time_in_force": "rod",
        "order_type": "stock", "user_def": "custom_field",
        "client_timestamp": datetime.now(UTC).isoformat(timespec="microseconds"),
    }
    order.update(fields)
    return order


@dataclass
class Answer:
    status: int
    body: Any  # the decoded JSON, or the raw text when it is not JSON


def request(listening: str, method: str, path: str, body: bytes | None = None,
            content_type: str | None = "application/json", timeout: float = 10) -> Answer:
    host, port = listening.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        headers = {"Content-Type": content_type} if content_type and body is not None else {}
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        raw = response.read().decode(errors="replace")
    finally:
        connection.close()
    try:
        return Answer(response.status, json.loads(raw))
    except json.JSONDecodeError:
        return Answer(response.status, raw)


def post_order(listening: str, order: dict[str, Any]) -> Answer:
    return request(listening, "POST", "/order", json.dumps(order).encode())


def wait_for_orders(listening: str, count: int, timeout: float = 60) -> float:
    """Polls the server's /stats until it has accepted `count` orders; returns the monotonic
    time it saw them (a poll, a few ms, after the count-th was answered)."""
    give_up = time.monotonic() + timeout
    while time.monotonic() < give_up:
        if request(listening, "GET", "/stats").body["total_orders"] >= count:
            return time.monotonic()
        time.sleep(0.005)
    raise AssertionError(f"the server did not accept {count} orders within {timeout} s")


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    listening: str  # "127.0.0.1:PORT", as the server announced it


@contextmanager
def order_server(build_dir: Path, *extra: str) -> Iterator[Server]:
    """The suite's server program (its suite.toml command at the params' defaults, plus
    `extra` arguments, which win), once it has announced its address; stopped afterwards."""
    plan, *_ = SUITE.plan(SUITE.resolved_params("small", {}))
    argv = render(SUITE.programs["server"].command,
                  {**plan.context, **program_context(SUITE, build_dir)})
    with announced([*argv, *extra], SUITE.directory) as (process, endpoints):
        yield Server(process, endpoints["listening"])


def client_argv(client: str, build_dir: Path, listening: str, **params: Any) -> list[str]:
    """A client's command line as the runner renders it for scenario "small" and `params`."""
    (plan,) = SUITE.plan(SUITE.resolved_params("small", {**params, "loads": client}))
    context = {**plan.context, **program_context(SUITE, build_dir),
               "server.listening": listening}
    return render(plan.load.command, context)


def start_client(argv: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(argv, cwd=SUITE.directory, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def finish_client(process: subprocess.Popen[str], started: float, timeout: float
                  ) -> ProgramRun:
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        stdout, stderr = process.communicate()
        raise AssertionError(f"the client ran past {timeout} s: {stderr[-2000:]}") from None
    return ProgramRun(process.returncode, stdout, stderr, time.monotonic() - started)


def run_client(argv: list[str], timeout: float = 120) -> ProgramRun:
    started = time.monotonic()
    return finish_client(start_client(argv), started, timeout)


def decode(hdr: str) -> HdrHistogram:
    return HdrHistogram.decode(hdr)


def p99_ns(hdr: str) -> int:
    return int(decode(hdr).get_value_at_percentile(99.0))
