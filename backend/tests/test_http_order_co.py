"""Coordinated omission, end to end (takes ~35 s): a 1 s server stall is plain in the open-loop
client's corrected latency, invisible in its uncorrected latency and in a closed-loop client
running at the same time; the API keeps both views of the open-loop series."""

import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import http_order_support as support  # workers/tests, on pytest's pythonpath
import pytest

from latlab.models import Scope
from latlab_workers.runner import parse_output

RATE = 1000
DURATION_S = 30
STALL_AFTER_S = 10
STALL_MS = 1000


@pytest.fixture(scope="module")
def build_dir(build_cache: Path) -> Path:
    """The suite built by the runner's build, in the cache the other suite tests use."""
    return support.build_suite(build_cache)


def test_an_open_loop_client_sees_a_stall_that_a_closed_loop_one_hides(
        client, actors, build_dir: Path) -> None:
    """Takes ~35 s: two 30 s client runs side by side."""
    with support.order_server(build_dir, "--test-hooks") as server:
        open_argv = support.client_argv("rust", build_dir, server.listening, rate=RATE,
                                        duration=DURATION_S, connections=20, warmup=100)
        # More orders than 30 s can hold: the duration ends the closed loop.
        closed_argv = support.client_argv("rust", build_dir, server.listening,
                                          orders=10_000_000, connections=4,
                                          duration=DURATION_S)
        started_at = datetime.now(UTC)
        started = time.monotonic()
        open_process = support.start_client(open_argv)
        closed_process = support.start_client(closed_argv)
        time.sleep(STALL_AFTER_S)
        stall = support.request(server.listening, "POST", f"/admin/stall?ms={STALL_MS}")
        assert stall.status == 200, stall.body
        bound = DURATION_S + 30
        open_run = support.finish_client(open_process, started, bound)
        closed_run = support.finish_client(closed_process, started, bound)
    assert open_run.returncode == 0, open_run.stderr[-2000:]
    assert closed_run.returncode == 0, closed_run.stderr[-2000:]
    open_report, closed_report = open_run.report, closed_run.report

    corrected_p99 = support.p99_ns(open_report["latency_hdr"])
    uncorrected_p99 = support.p99_ns(open_report["latency_uncorrected_hdr"])
    closed_p99 = support.p99_ns(closed_report["latency_hdr"])
    figures = (f"corrected p99 {corrected_p99 / 1e6:.3f} ms, uncorrected p99 "
               f"{uncorrected_p99 / 1e6:.3f} ms, closed p99 {closed_p99 / 1e6:.3f} ms, "
               f"achieved {open_report['achieved_rate']:.1f}/s")
    print(figures)
    assert corrected_p99 >= 50 * uncorrected_p99, figures
    assert open_report["achieved_rate"] == pytest.approx(RATE, rel=0.01), figures
    assert closed_p99 * 10 < corrected_p99, figures
    # Latency over time places the stall: the worst second is the one it ended in.
    worst = max(open_report["intervals"], key=lambda window: window.get("max", 0))
    assert STALL_AFTER_S - 2 <= worst["t_s"] <= STALL_AFTER_S + 2, worst
    assert worst["max"] >= 0.9 * STALL_MS * 1e6, worst

    document = _result(started_at, [
        ({"client": "rust", "loop": "open"}, open_run.stdout),
        ({"client": "rust", "loop": "closed"}, closed_run.stdout),
    ])
    headers = actors.token(Scope.runs_write, Scope.read)
    response = client.post("/api/v1/runs", json=document, headers=headers)
    assert response.status_code == 201, response.text
    run = client.get(f"/api/v1/runs/{response.json()['id']}", headers=headers).json()
    series = {item["labels"]["loop"]: item for item in run["series"]}
    open_series, closed_series = series["open"], series["closed"]
    assert open_series["summary"]["p99"] == pytest.approx(corrected_p99, rel=0.01)
    assert open_series["summary_uncorrected"]["p99"] == pytest.approx(uncorrected_p99, rel=0.01)
    assert closed_series["summary_uncorrected"] is None
    assert closed_series["summary"]["p99"] == pytest.approx(closed_p99, rel=0.01)
    assert open_series["trials"][0]["intervals"] == open_report["intervals"]


def _result(started_at: datetime, outputs: list[tuple[dict[str, str], str]]) -> dict[str, Any]:
    """One `latlab.result/v1` run of the clients' outputs, parsed as the runner parses them."""
    return {
        "schema": "latlab.result/v1",
        "suite": support.SUITE.id,
        "scenario": "small",
        "params": {"rate": RATE, "duration": DURATION_S},
        "started_at": started_at.isoformat(),
        "finished_at": datetime.now(UTC).isoformat(),
        "source": {"kind": "manual"},
        "host": {"name": "co-test", "tags": ["local"]},
        "series": [{"labels": labels, "trials": [
            trial.model_dump(mode="json", exclude_none=True)
            for trial in parse_output(support.SUITE, support.SUITE.programs["client"],
                                      stdout).series[0].trials]}
                   for labels, stdout in outputs],
    }
