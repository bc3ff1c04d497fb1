"""GET /trends draws one history: one branch (the default one unless asked), one params set
(named, with the others offered), runs in their order even when they share a second, change
points of the branch drawn, and the window its latest run is judged against."""

import json
from pathlib import Path
from typing import Any

import numpy as np

from latlab.models import Run, Scope
from latlab.suites import service as suite_service
from latlab_workers.suites import load_suites
from tests.factories import one_series, result, submit, trial

ROOT = Path(__file__).resolve().parents[2]

SERIES = '{"client": "go"}'
PARAMS = {"orders": 1000, "connections": 50}


def _submit(client, headers, index: int, level: float = 1.0, *, branch: str = "main",
            params: dict[str, Any] | None = None, trials: int = 1,
            started_at: str | None = None) -> int:
    rng = np.random.default_rng(index)
    document = result(
        series=one_series([trial(rng, 350_000 * level, throughput=(100_000 / level, 300))
                           for _ in range(trials)], client="go"),
        started_at=started_at or f"2026-11-{1 + index // 12:02d}T{10 + index % 12}:00:00Z",
        branch=branch, commit=f"{index:04x}cafe", params=params or PARAMS)
    return int(submit(client, document, headers)["id"])


def _trend(client, headers, **query: Any) -> dict[str, Any]:
    response = client.get("/api/v1/trends", headers=headers, params={
        "suite": "http-order", "scenario": "medium", "labels": SERIES, **query})
    assert response.status_code == 200, response.text
    answer: dict[str, Any] = response.json()
    return answer


def test_a_trend_draws_the_default_branch_unless_another_is_asked(client, actors) -> None:
    headers = actors.token(Scope.runs_write, Scope.read)
    main = [_submit(client, headers, i) for i in range(12)]
    feature = [_submit(client, headers, 12 + i, 1.2, branch="feature") for i in range(3)]
    main.append(_submit(client, headers, 15))

    drawn = _trend(client, headers)
    assert drawn["branch"] == "main"
    assert [p["run_id"] for p in drawn["points"]] == main
    assert drawn["change_points"] == []  # the feature's slower runs are not main's history
    assert [(b["name"], b["runs"]) for b in drawn["branches"]] == [("main", 13), ("feature", 3)]

    other = _trend(client, headers, branch="feature")
    assert other["branch"] == "feature"
    assert [p["run_id"] for p in other["points"]] == feature
    # From a run, its own branch.
    assert _trend(client, headers, run_id=feature[0])["branch"] == "feature"


def test_a_trend_names_its_params_and_offers_the_others(client, actors) -> None:
    """echo's `default` drew 2 of its 19 runs, silently: the newest had other params."""
    headers = actors.token(Scope.runs_write, Scope.read)
    usual = [_submit(client, headers, i) for i in range(17)]
    other_params = {"orders": 1000, "connections": 200}
    newest = [_submit(client, headers, 17 + i, params=other_params) for i in range(2)]
    _submit(client, headers, 19, params={"orders": 5}, branch="feature")

    drawn = _trend(client, headers)
    assert drawn["params"] == other_params
    assert [p["run_id"] for p in drawn["points"]] == newest
    sets = [(s["params"], s["runs"], s["last_run_id"], s["drawn"])
            for s in drawn["params_sets"]]
    assert sets == [(other_params, 2, newest[-1], True), (PARAMS, 17, usual[-1], False)]

    chosen = _trend(client, headers, params='{"orders": 1000, "connections": 50}')
    assert len(chosen["points"]) == 17
    assert [s["drawn"] for s in chosen["params_sets"]] == [False, True]
    # Opened from a run, the trend draws that run's params, and its point.
    from_run = _trend(client, headers, run_id=usual[3])
    assert from_run["params"] == PARAMS and usual[3] in [p["run_id"] for p in from_run["points"]]


def test_a_run_older_than_the_range_is_drawn_when_asked_for(client, actors) -> None:
    headers = actors.token(Scope.runs_write, Scope.read)
    runs = [_submit(client, headers, i) for i in range(10)]
    assert [p["run_id"] for p in _trend(client, headers, limit=4)["points"]] == runs[-4:]
    around = _trend(client, headers, limit=4, run_id=runs[2])
    assert [p["run_id"] for p in around["points"]] == runs[:3]
    assert client.get("/api/v1/trends", headers=headers, params={
        "suite": "http-order", "scenario": "medium", "run_id": 10**9}).status_code == 404


def test_runs_started_in_the_same_second_are_each_a_point_in_order(client, actors) -> None:
    headers = actors.token(Scope.runs_write, Scope.read)
    same = [_submit(client, headers, i, started_at="2026-11-05T10:00:00Z") for i in range(7)]
    points = _trend(client, headers)["points"]
    assert [p["run_id"] for p in points] == same
    assert len({p["started_at"] for p in points}) == 1


def test_the_latest_run_s_window_comes_from_its_gate_evidence_or_is_computed(
        client, actors) -> None:
    headers = actors.token(Scope.runs_write, Scope.read)
    for index in range(12):
        _submit(client, headers, index, trials=3)
    latest = _submit(client, headers, 12, trials=3)
    run = client.get(f"/api/v1/runs/{latest}", headers=headers).json()
    judged = next(e for e in run["gate_evidence"] if e["metric"] == "p99")

    p99 = _trend(client, headers)["window"]
    assert p99["run_id"] == latest and p99["source"] == "gate"
    assert p99["evidence"] == judged
    assert p99["evidence"]["window"]["runs"] == 12 and p99["evidence"]["window"]["branch"] == "main"

    # p50 is not gated: its window is computed the same way, for the metric alone.
    p50 = _trend(client, headers, metric="p50")["window"]
    assert p50["source"] == "computed" and p50["run_id"] == latest
    evidence = p50["evidence"]
    assert evidence["window"]["runs"] == 12 and evidence["trials"] == 3
    assert evidence["centre"] < evidence["bound"]  # lower is better: the bound is above
    assert set(evidence["smallest_change"]) == {"1", "3", "5"}
    assert evidence["level"] == 0.01  # the lab's false-alarm level, one metric

    # Too short a history has no window.
    assert _trend(client, headers, branch="feature")["window"] is None


def test_a_param_the_suite_added_later_keeps_one_history_in_the_trend(db, client,
                                                                     actors) -> None:
    """http-order gained `server_cpus` and `load_cpus` (default: none): runs stored before
    them and runs at their defaults are one history, drawn whichever run's params are asked
    for; a pinned run is another params set."""
    headers = actors.token(Scope.runs_write, Scope.read)
    before = [_submit(client, headers, i) for i in range(4)]  # no suite known yet
    suite_service.record(db, [load_suites(ROOT / "workers" / "suites")["http-order"].info()])
    at_default = {**PARAMS, "server_cpus": "", "load_cpus": ""}
    after = [_submit(client, headers, 4 + i, params=at_default) for i in range(2)]
    pinned = _submit(client, headers, 6, params={**at_default, "server_cpus": "0"})

    drawn = _trend(client, headers, run_id=before[0])
    assert [p["run_id"] for p in drawn["points"]] == before + after
    assert [(s["runs"], s["drawn"]) for s in drawn["params_sets"]] == [(1, False), (6, True)]
    newest = _trend(client, headers, params=json.dumps(at_default))
    assert [p["run_id"] for p in newest["points"]] == before + after
    assert [p["run_id"] for p in _trend(client, headers)["points"]] == [pinned]


def test_a_scenario_s_series_and_metrics_come_from_its_newest_runs(client, actors, db) -> None:
    """What the trends page offers to draw, without the runs' details: the series of the
    newest five runs (a series only an older run had included), the one the newest run failed
    on first and marked, the metrics with the latency percentiles; a run asked for is
    included; a scenario without runs is 404."""
    headers = actors.token(Scope.runs_write, Scope.read)

    def submitted(clients: list[str], at: str) -> int:
        document = result(started_at=at, finished_at=at, series=[
            {"labels": {"client": name}, "trials": [{"latency": {"samples_ns": [
                350_000 + i for i in range(200)]}, "metrics": {"throughput": 1000.0}}]}
            for name in clients])
        return int(submit(client, document, headers)["id"])

    oldest = submitted(["retired"], "2026-11-01T10:00:00Z")
    for day in range(2, 6):
        submitted(["rust", "old"], f"2026-11-0{day}T10:00:00Z")
    newest = submitted(["rust", "go"], "2026-11-09T10:00:00Z")
    run = db.get_one(Run, newest)
    run.verdict_reasons = [{"kind": "regression", "series": {"client": "go"}, "metric": "p99",
                            "message": "P99 +40 % against its window"}]
    db.flush()

    answer = client.get("/api/v1/trends/series", headers=headers,
                        params={"suite": "http-order", "scenario": "medium"})
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["newest_run_id"] == newest
    assert [(s["labels"]["client"], s["failing"]) for s in body["series"]] == [
        ("go", True), ("rust", False), ("old", False)]
    names = [m["name"] for m in body["metrics"]]
    assert {"p50", "p99", "throughput"} <= set(names) and "count" not in names
    with_oldest = client.get("/api/v1/trends/series", headers=headers, params={
        "suite": "http-order", "scenario": "medium", "run_id": oldest}).json()
    assert with_oldest["newest_run_id"] == oldest
    assert {s["labels"]["client"] for s in with_oldest["series"]} == {
        "retired", "go", "rust", "old"}
    missing = client.get("/api/v1/trends/series", headers=headers,
                         params={"suite": "http-order", "scenario": "nothing"})
    assert missing.status_code == 404
