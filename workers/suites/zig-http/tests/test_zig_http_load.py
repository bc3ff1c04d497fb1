"""latlab's HDR load generator against the real servers: every request counted (the server's
own counter as the reference), and coordinated omission corrected (a server stopped with
SIGSTOP for a second charges every request due in that second)."""

import json
import os
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest
from hdrh.histogram import HdrHistogram
from zig_http_support import exchange


def hdr_load(built: Path, address: tuple[str, int], *args: str) -> dict:
    run = subprocess.run([str(built / "hdr-load"), "--url", f"http://{address[0]}:{address[1]}/",
                          *args], capture_output=True, text=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


@pytest.mark.parametrize("kind", ["zig", "go"])
def test_every_request_is_counted_and_recorded(built: Path, start_server, kind: str) -> None:
    server = start_server(kind)
    report = hdr_load(built, server.address, "--connections", "20", "--requests", "3000",
                      "--warmup", "0", "--duration", "60")
    histogram = HdrHistogram.decode(report["latency_hdr"])
    assert report["metrics"]["requests"] == report["metrics"]["ok"] == 3000
    assert histogram.get_total_count() == 3000
    assert sum(window["count"] for window in report["intervals"]) == 3000
    # The server's own count: the 3,000, and the /stats request that asks.
    raw, _ = exchange(server.address, b"GET /stats HTTP/1.1\r\nHost: a\r\n\r\n")
    assert int(re.search(rb'"requests":(\d+)', raw).group(1)) == 3001


def test_warm_up_requests_are_sent_but_not_counted(built: Path, start_server) -> None:
    server = start_server("zig")
    report = hdr_load(built, server.address, "--connections", "4", "--warmup", "1",
                      "--duration", "1")
    raw, _ = exchange(server.address, b"GET /stats HTTP/1.1\r\nHost: a\r\n\r\n")
    served = int(re.search(rb'"requests":(\d+)', raw).group(1)) - 1
    assert 0 < report["metrics"]["requests"] < served


def test_a_stalled_server_is_charged_for_every_request_it_held_back(built: Path,
                                                                   start_server) -> None:
    """500 requests/s for 4 s on 10 connections; the server is stopped for 1 s after 1.5 s.
    About 500 requests are due in the stall: from their due times they waited up to a
    second (corrected); from their sends, only the 10 in flight did (uncorrected)."""
    server = start_server("zig")

    def stall() -> None:
        time.sleep(1.5)
        os.kill(server.process.pid, signal.SIGSTOP)
        time.sleep(1.0)
        os.kill(server.process.pid, signal.SIGCONT)

    staller = threading.Thread(target=stall)
    staller.start()
    try:
        report = hdr_load(built, server.address, "--connections", "10", "--rate", "500",
                          "--warmup", "0", "--duration", "4")
    finally:
        staller.join()
        os.kill(server.process.pid, signal.SIGCONT)
    corrected = HdrHistogram.decode(report["latency_hdr"])
    uncorrected = HdrHistogram.decode(report["latency_uncorrected_hdr"])
    assert corrected.get_total_count() == uncorrected.get_total_count() == report["metrics"]["ok"]
    assert report["metrics"]["target_rate"] == 500
    # A tenth of the requests were due in the stall's second half or later: corrected, the
    # 90th percentile waited at least a quarter of the stall; uncorrected, the 99th did not.
    assert corrected.get_value_at_percentile(90) >= 250_000_000
    assert uncorrected.get_value_at_percentile(99) < corrected.get_value_at_percentile(90)
    assert corrected.get_max_value() >= 900_000_000
