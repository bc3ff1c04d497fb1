"""Alerts from a metric's history (change points found on ingest) and from its absence
(the missing-data watchdog), and the A/A check of compare at the API level."""

from datetime import timedelta

import numpy as np
from sqlalchemy import select

from latlab.alerts.history import check_missing_data
from latlab.core.clock import get_clock
from latlab.models import Alert, Job, JobStatus, Project, Run, Schedule, Scope
from tests.factories import one_series, result, submit, trial


def _submit(client, headers, index: int, level: float, seed: int, trials: int = 1,
            branch: str = "main", connections: int = 50) -> int:
    rng = np.random.default_rng(seed)
    document = result(
        series=one_series([trial(rng, 350_000 * level) for _ in range(trials)], client="go"),
        started_at=f"2026-11-{1 + index // 4:02d}T{10 + index % 4}:00:00Z", branch=branch,
        params={"orders": 1000, "connections": connections})
    return int(submit(client, document, headers)["id"])


def _change_point_alerts(client) -> list[dict]:
    items: list[dict] = client.get("/api/v1/alerts", params={"limit": 200}).json()["items"]
    return [a for a in items if a["kind"] == "change-point"]


def test_a_shift_in_main_history_opens_one_change_point_alert_and_a_shift_back_resolves_it(
        client, actors) -> None:
    actors.login(client)
    headers = actors.token(Scope.runs_write, Scope.read)
    for index in range(15):
        _submit(client, headers, index, 1.0, seed=index)
    assert _change_point_alerts(client) == []
    shifted = [_submit(client, headers, 15 + i, 1.25, seed=100 + i) for i in range(10)]
    alerts = _change_point_alerts(client)
    assert len(alerts) == 1, alerts
    alert = alerts[0]
    assert alert["state"] == "open" and alert["metric"] == "p99"
    assert alert["run_id"] == shifted[0] and "shifted +" in alert["message"]
    assert alert["value"] > 1.2 * alert["baseline_value"]
    # A feature branch's runs are not main's history.
    _submit(client, headers, 25, 2.0, seed=200, branch="feature")
    assert len(_change_point_alerts(client)) == 1
    for i in range(8):
        _submit(client, headers, 26 + i, 1.0, seed=300 + i)
    (after,) = _change_point_alerts(client)
    assert after["id"] == alert["id"] and after["state"] == "resolved"


def test_one_outlier_fails_its_run_but_is_no_change_point_and_a_sustained_shift_is_one(
        client, actors) -> None:
    """A run 60 % slower than its history fails the gate (its window has 15 runs) and opens a
    critical regression alert, which the next normal run resolves; the one outlier is no
    change point, and does not move the window. A sustained 10 % shift opens one change-point
    alert, once."""
    actors.login(client)
    headers = actors.token(Scope.runs_write, Scope.read)
    for index in range(15):
        _submit(client, headers, index, 1.0, seed=index, trials=5)
    outlier = _submit(client, headers, 15, 1.6, seed=99, trials=5)
    run = client.get(f"/api/v1/runs/{outlier}", headers=headers).json()
    assert run["verdict"] == "fail", run["verdict_reasons"]
    assert "the window of its last 15 runs on main" in run["verdict_reasons"][0]["message"]

    def critical() -> list[dict]:
        items = client.get("/api/v1/alerts", params={"limit": 200}).json()["items"]
        return [a for a in items if a["severity"] == "critical"]

    assert [a["state"] for a in critical()] == ["open"]
    assert _change_point_alerts(client) == []
    normal = _submit(client, headers, 16, 1.0, seed=98, trials=5)
    assert client.get(f"/api/v1/runs/{normal}", headers=headers).json()["verdict"] == "pass"
    assert [a["state"] for a in critical()] == ["resolved"]
    for index in range(17, 37):
        _submit(client, headers, index, 1.1, seed=200 + index, trials=5)
    (shift,) = _change_point_alerts(client)
    assert shift["state"] == "open"


def test_a_change_of_params_starts_another_history_not_a_change_point(client, actors) -> None:
    """More connections on main make p99 worse by design; that is another history (keyed
    like a comparison, params included), not a shift in this one."""
    actors.login(client)
    headers = actors.token(Scope.runs_write, Scope.read)
    for index in range(15):
        _submit(client, headers, index, 1.0, seed=index)
    for index in range(15, 25):
        _submit(client, headers, index, 1.5, seed=index, connections=200)
    assert _change_point_alerts(client) == []
    trend = client.get("/api/v1/trends", params={
        "suite": "http-order", "scenario": "medium", "labels": '{"client": "go"}'}).json()
    assert trend["params"]["connections"] == 200 and len(trend["points"]) == 10
    older = client.get("/api/v1/trends", params={
        "suite": "http-order", "scenario": "medium", "labels": '{"client": "go"}',
        "params": '{"orders": 1000, "connections": 50}'}).json()
    assert len(older["points"]) == 15 and older["change_points"] == []


def test_a_schedule_that_produced_no_run_in_its_window_opens_an_alert(db, client,
                                                                        actors) -> None:
    actors.login(client)
    headers = actors.token(Scope.runs_write, Scope.read)
    project_id = db.scalar(select(Project.id).where(Project.slug == "default"))
    now = get_clock().now()
    schedule = Schedule(project_id=project_id, name="nightly echo", cron="0 3 * * *",
                        spec={"suite": "echo", "scenario": "default", "timeout_s": 600},
                        created_at=now - timedelta(days=1),
                        last_run_at=now - timedelta(minutes=5), next_run_at=now)
    db.add(schedule)
    db.flush()
    assert check_missing_data(db) == 0  # still inside its window: the job may be running
    schedule.last_run_at = now - timedelta(hours=2)
    assert check_missing_data(db) == 1
    assert check_missing_data(db) == 1  # still missing: the same alert, not a second one
    (alert,) = db.query(Alert).filter_by(source="missing-data").all()
    assert alert.state == "open" and "nightly echo" in alert.message
    run_id = _submit(client, headers, 0, 1.0, seed=1)
    db.get(Run, run_id).created_at = now - timedelta(hours=1)
    db.add(Job(project_id=project_id, suite="echo", scenario="default", params={},
               host_tags=[], repetitions=1, timeout_s=600, status=JobStatus.succeeded,
               schedule_id=schedule.id, run_id=run_id, created_at=now - timedelta(hours=2)))
    db.flush()
    assert check_missing_data(db) == 0
    db.refresh(alert)
    assert alert.state == "resolved"


def test_a_to_a_pairs_through_the_api_are_at_most_once_regressed(client, actors) -> None:
    """20 pairs of 5-trial runs drawn from one distribution."""
    headers = actors.token(Scope.runs_write, Scope.read)
    regressed = 0
    for pair in range(20):
        baseline = _submit(client, headers, 2 * pair, 1.0, seed=1000 + pair, trials=5,
                           branch="aa")
        candidate = _submit(client, headers, 2 * pair + 1, 1.0, seed=2000 + pair, trials=5,
                            branch="aa")
        compared = client.get("/api/v1/compare", params={
            "baseline": baseline, "candidate": candidate}, headers=headers).json()
        verdicts = {m["metric"]: m["verdict"] for m in compared["series"][0]["metrics"]}
        regressed += verdicts["p99"] == "regressed"
    assert regressed <= 1
