"""The overview (every suite and scenario with its latest run, from one server-side query) and
the runs list's filters, orders and headline columns."""

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from latlab.models import Alert, AlertState, Run, Scope, Severity
from tests.factories import result, samples, submit

T0 = datetime(2026, 11, 1, tzinfo=UTC)


def _submit(client, headers, suite: str, scenario: str, at: datetime, scale: float = 350_000,
            verdict: str | None = None, db=None) -> int:
    document = result(suite=suite, scenario=scenario, started_at=at.isoformat(),
                      finished_at=(at + timedelta(seconds=5)).isoformat(), series=[
                          {"labels": {"client": "rust"},
                           "trials": [{"latency": {"samples_ns": samples(scale_ns=scale)},
                                       "metrics": {"throughput": 1000.0}}]},
                          {"labels": {"client": "go"},
                           "trials": [{"latency": {"samples_ns": samples(seed=3)}}]}])
    run_id = int(submit(client, document, headers)["id"])
    if verdict is not None:
        db.get_one(Run, run_id).verdict = verdict
        db.flush()
    return run_id


def test_overview_lists_every_pair_beyond_the_last_hundred_runs_failing_first(
        client, actors, db) -> None:
    headers = actors.token(Scope.runs_write, Scope.read)
    # 30 pairs of one run each, then 120 runs of one more pair: the last 100 runs name one pair.
    old = {f"suite-{i:02d}": _submit(client, headers, f"suite-{i:02d}", "default",
                                     T0 + timedelta(minutes=i)) for i in range(30)}
    failing = _submit(client, headers, "suite-07", "default", T0 + timedelta(hours=1),
                      scale=500_000, verdict="fail", db=db)
    busy = [_submit(client, headers, "busy", "quick", T0 + timedelta(hours=2, seconds=i))
            for i in range(3)]
    listed = client.get("/api/v1/runs", params={"limit": 100}, headers=headers).json()
    assert listed["total"] == 34

    alert_run = old["suite-20"]
    db.add(Alert(project_id=db.get_one(Run, alert_run).project_id, source="test",
                 history_key="k", kind="sla", severity=Severity.critical, state=AlertState.open,
                 suite="suite-20", scenario="default", series_labels={}, metric="p99",
                 unit="ns", message="breach", run_id=alert_run, opened_at=T0, updated_at=T0,
                 occurrences=1))
    db.flush()

    page = client.get("/api/v1/overview", params={"limit": 10}, headers=headers).json()
    assert page["total"] == 31  # 30 suite-NN pairs and busy/quick
    rows = page["items"]
    assert len(rows) == 10
    # Failing first: suite-07's latest run failed; suite-20 has a critical alert open.
    assert [(r["run"]["suite"], r["failing"]) for r in rows[:3]] == [
        ("suite-07", True), ("suite-20", True), ("busy", False)]
    assert rows[0]["run"]["id"] == failing
    assert rows[1]["critical_alerts"] == 1 and rows[1]["open_alerts"] == 1
    assert rows[2]["run"]["id"] == busy[-1]
    # Its sparkline: the pair's runs, oldest first, each with its first series' P99 (the
    # nearest rank of the submitted samples, numpy's inverted_cdf).
    spark = rows[0]["spark"]
    assert [p["run_id"] for p in spark] == [old["suite-07"], failing]
    assert spark[1]["p99"] == np.percentile(samples(scale_ns=500_000), 99,
                                            method="inverted_cdf")
    assert rows[0]["run"]["headline"]["series"] == {"client": "rust"}
    assert rows[0]["run"]["headline"]["throughput"] == 1000.0

    rest = client.get("/api/v1/overview", params={"limit": 25, "offset": 25},
                      headers=headers).json()
    assert len(rest["items"]) == 6
    every = {r["run"]["suite"] for r in rows} | {
        r["run"]["suite"] for r in client.get("/api/v1/overview", params={"limit": 100},
                                              headers=headers).json()["items"]}
    assert every == set(old) | {"busy"}


def test_runs_list_filters_by_verdict_and_suite_prefix_and_orders(client, actors, db) -> None:
    headers = actors.token(Scope.runs_write, Scope.read)
    echo = _submit(client, headers, "echo", "default", T0, verdict="pass", db=db)
    echo_fast = _submit(client, headers, "echo-fast", "default", T0 + timedelta(minutes=1),
                        verdict="fail", db=db)
    zmq = _submit(client, headers, "zmq", "seed", T0 + timedelta(minutes=2))
    db.get_one(Run, zmq).verdict = None  # as a lab job's run the gate did not judge
    db.flush()

    def ids(**params: str) -> list[int]:
        response = client.get("/api/v1/runs", params=params, headers=headers)
        assert response.status_code == 200, response.text
        return [item["id"] for item in response.json()["items"]]

    assert ids(verdict="fail") == [echo_fast]
    assert ids(verdict="none") == [zmq]
    assert ids(suite_prefix="ECH") == [echo_fast, echo]
    assert ids(suite="echo") == [echo]
    assert ids(order="started_at") == [echo, echo_fast, zmq]
    assert ids(order="suite") == [echo, echo_fast, zmq]
    assert ids(order="-suite") == [zmq, echo_fast, echo]
    for bad in ({"verdict": "maybe"}, {"order": "latency"}, {"suite_prefix": "x" * 65}):
        response = client.get("/api/v1/runs", params=bad, headers=headers)
        assert response.status_code == 422, (bad, response.text)
    item = client.get("/api/v1/runs", params={"suite": "zmq"}, headers=headers).json()["items"][0]
    # The first series' P99: the nearest rank of its samples (numpy's inverted_cdf).
    assert item["headline"]["p99"] == np.percentile(samples(), 99, method="inverted_cdf")
    assert item["headline"]["series"] == {"client": "rust"}


def test_run_context_has_each_series_history_baseline_and_alerts(client, actors, db) -> None:
    headers = actors.token(Scope.runs_write, Scope.read)
    scales = [300_000, 400_000, 500_000]
    ids = [_submit(client, headers, "echo", "default", T0 + timedelta(hours=i), scale=scale)
           for i, scale in enumerate(scales)]
    # Another branch's run is another history.
    other = result(suite="echo", scenario="default", branch="feature",
                   started_at=(T0 + timedelta(hours=1, minutes=30)).isoformat())
    assert client.post("/api/v1/runs", json=other, headers=headers).status_code == 201
    run = db.get_one(Run, ids[-1])
    run.baseline_run_id = ids[0]
    db.add(Alert(project_id=run.project_id, source="test", history_key="k", kind="sla",
                 severity=Severity.warning, state=AlertState.open, suite="echo",
                 scenario="default", series_labels={}, metric="p99", unit="ns",
                 message="slow", run_id=run.id, opened_at=T0, updated_at=T0, occurrences=1))
    db.flush()

    body = client.get(f"/api/v1/runs/{ids[-1]}/context", headers=headers).json()
    rust = body["series"][0]
    assert [p["run_id"] for p in rust["history"]] == ids
    assert [p["p99"] for p in rust["history"]] == [
        np.percentile(samples(scale_ns=scale), 99, method="inverted_cdf") for scale in scales]
    assert rust["history"][0]["throughput"] == 1000.0
    assert rust["baseline"]["run_id"] == ids[0]
    assert rust["baseline"]["p99"] == rust["history"][0]["p99"]
    assert [a["message"] for a in body["alerts"]] == ["slow"]
    # The go series of the first run has its own history.
    assert [p["run_id"] for p in body["series"][1]["history"]] == ids
    assert client.get("/api/v1/runs/999999/context", headers=headers).status_code == 404


def test_lists_show_the_series_a_run_failed_on_with_its_change_against_its_window(
        client, actors) -> None:
    """Six runs of rust and go, then one whose go series is 1.6x slower: its gate fails on go,
    and the overview and the runs list show go (not rust, the first series), its P99 and its
    change against the window's centre, each read from the gate's own evidence."""
    headers = actors.token(Scope.runs_write, Scope.read)

    def submitted(i: int, go_scale: float) -> int:
        at = T0 + timedelta(hours=i)
        document = result(suite="pick", scenario="default", started_at=at.isoformat(),
                          finished_at=(at + timedelta(seconds=5)).isoformat(), series=[
                              {"labels": {"client": name}, "trials": [
                                  {"latency": {"samples_ns": samples(n=2000, seed=10 * i + t,
                                                                     scale_ns=scale)}}
                                  for t in range(5)]}
                              for name, scale in (("rust", 350_000), ("go", go_scale))])
        return int(submit(client, document, headers)["id"])

    for i in range(6):
        submitted(i, 400_000)
    slow = submitted(6, 640_000)
    run = client.get(f"/api/v1/runs/{slow}", headers=headers).json()
    assert run["verdict"] == "fail", run["verdict_reasons"]
    evidence = next(e for e in run["gate_evidence"]
                    if e["series"] == {"client": "go"} and e["metric"] == "p99")
    go = next(s for s in run["series"] if s["labels"] == {"client": "go"})

    row = client.get("/api/v1/overview", headers=headers).json()["items"][0]
    assert row["run"]["id"] == slow and row["failing"]
    for headline in (row["run"]["headline"], client.get(
            "/api/v1/runs", params={"suite": "pick", "limit": 1},
            headers=headers).json()["items"][0]["headline"]):
        assert headline["series"] == {"client": "go"}
        assert headline["p99"] == go["summary"]["p99"]
        assert headline["window_delta_pct"] == pytest.approx(
            (evidence["value"] / evidence["centre"] - 1) * 100)
        assert headline["window_delta_pct"] > 30
    # The sparkline follows go through the earlier runs.
    assert row["spark"][-1]["p99"] == go["summary"]["p99"]
    assert all(p["p99"] < go["summary"]["p99"] / 1.3 for p in row["spark"][:-1])


def test_runs_list_sorts_by_the_headlines_p99_on_every_page(client, actors, db) -> None:
    """The order is the server's, over all runs (a page of two shows the slowest two), by the
    P99 the list shows: each run's nearest-rank P99 (numpy's inverted_cdf)."""
    headers = actors.token(Scope.runs_write, Scope.read)
    scales = {_submit(client, headers, "echo", "default", T0 + timedelta(minutes=i),
                      scale=scale): scale
              for i, scale in enumerate((300_000, 900_000, 100_000, 600_000))}
    expected = {run_id: np.percentile(samples(scale_ns=scale), 99, method="inverted_cdf")
                for run_id, scale in scales.items()}

    def page(order: str, limit: int = 10) -> list[tuple[int, float]]:
        response = client.get("/api/v1/runs", params={"order": order, "limit": limit},
                              headers=headers)
        assert response.status_code == 200, response.text
        return [(item["id"], item["headline"]["p99"]) for item in response.json()["items"]]

    slowest = sorted(expected, key=expected.__getitem__, reverse=True)
    assert page("-p99") == [(run_id, expected[run_id]) for run_id in slowest]
    assert [run_id for run_id, _ in page("-p99", limit=2)] == slowest[:2]
    assert [run_id for run_id, _ in page("p99")] == slowest[::-1]
