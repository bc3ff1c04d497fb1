"""SLA rules, alerts, channels, baselines and trends through the API (no workers needed)."""

import numpy as np

from latlab.models import Scope
from tests.factories import allow_private_webhooks, result


def _run(client, headers, p99_scale: float = 1.0, throughput: float = 100_000.0,
         branch: str = "main", trials: int = 5, seed: int = 1) -> dict:
    series_trials = []
    for trial in range(trials):
        rng = np.random.default_rng(seed * 100 + trial)
        values = rng.lognormal(np.log(350_000), 0.2, 2000) * p99_scale
        series_trials.append({"latency": {"samples_ns": [int(v) for v in values]},
                              "metrics": {"throughput": throughput * rng.normal(1, 0.002)}})
    document = result(series=[{"labels": {"client": "go"}, "trials": series_trials}],
                      branch=branch)
    response = client.post("/api/v1/runs", json=document, headers=headers)
    assert response.status_code == 201, response.text
    return response.json()


def test_static_rules_convert_units_and_match_selectors(client, actors) -> None:
    actors.login(client)
    headers = actors.token(Scope.runs_write, Scope.read)
    for rule in (
        {"name": "p99 under 2 ms", "suite": "http-order", "metric": "p99", "op": ">",
         "threshold": 2, "unit": "ms", "severity": "critical"},
        {"name": "rust only", "suite": "http-order", "series_selector": {"client": "rust"},
         "metric": "p50", "op": ">", "threshold": 1, "unit": "us"},
        {"name": "other scenario", "suite": "http-order", "scenario": "stress",
         "metric": "p50", "op": ">", "threshold": 1, "unit": "us"},
        {"name": "throughput over 10k", "suite": "http-order", "metric": "throughput",
         "op": "<", "threshold": 10_000, "unit": "req/s"},
    ):
        assert client.post("/api/v1/sla-rules", json=rule).status_code == 201
    fine = _run(client, headers)
    assert fine["verdict"] == "no-baseline" and fine["reasons"] == []
    slow = _run(client, headers, p99_scale=10, throughput=5_000, branch="feature")
    breaches = {r["message"].split(" — ")[0].split(": ")[1] for r in slow["reasons"]
                if r["kind"] == "sla"}
    assert breaches == {"p99 under 2 ms", "throughput over 10k"}
    assert slow["verdict"] == "fail"
    alerts = client.get("/api/v1/alerts", params={"state": "open"}).json()
    assert {a["kind"] for a in alerts["items"]} >= {"sla"}


def test_relative_rules_compare_with_the_baseline(client, actors) -> None:
    actors.login(client)
    headers = actors.token(Scope.runs_write, Scope.read)
    client.post("/api/v1/sla-rules", json={
        "name": "drop over 20 %", "suite": "http-order", "metric": "throughput", "op": ">",
        "threshold": 20, "unit": "%", "kind": "relative"})
    _run(client, headers, throughput=100_000)
    dropped = _run(client, headers, throughput=70_000, branch="feature", seed=2)
    sla = [r for r in dropped["reasons"] if r["kind"] == "sla"]
    assert len(sla) == 1 and "throughput 30" in sla[0]["message"]
    assert client.post("/api/v1/sla-rules", json={
        "name": "x", "suite": "http-order", "metric": "throughput", "op": ">", "threshold": 20,
        "unit": "ms", "kind": "relative"}).status_code == 422


def test_alerts_are_acknowledged_and_resolved_by_people(client, actors) -> None:
    user = actors.login(client)
    headers = actors.token(Scope.runs_write, Scope.read)
    client.post("/api/v1/sla-rules", json={"name": "p50 tiny", "suite": "http-order",
                                           "metric": "p50", "op": ">", "threshold": 1,
                                           "unit": "ns"})
    _run(client, headers)
    alert = client.get("/api/v1/alerts").json()["items"][0]
    acknowledged = client.post(f"/api/v1/alerts/{alert['id']}/acknowledge").json()
    assert acknowledged["state"] == "acknowledged"
    assert acknowledged["acknowledged_by_id"] == user.id
    assert client.post(f"/api/v1/alerts/{alert['id']}/acknowledge").status_code == 409
    resolved = client.post(f"/api/v1/alerts/{alert['id']}/resolve").json()
    assert resolved["state"] == "resolved" and user.email in resolved["resolution"]
    assert client.get("/api/v1/alerts", params={"state": "open"}).json()["total"] == 0
    assert client.get("/api/v1/alerts", params={"severity": "critical"}).json()["total"] == 0


def test_channel_urls_are_secrets(client, actors, db) -> None:
    actors.login(client)
    allow_private_webhooks(db)
    created = client.post("/api/v1/channels", json={
        "name": "slack", "kind": "slack", "url": "http://127.0.0.1:9/services/T000/B000/XXXX"})
    assert created.status_code == 201 and "url" not in created.json()
    assert "XXXX" not in client.get("/api/v1/channels").text
    refused = client.post(f"/api/v1/channels/{created.json()['id']}/test").json()
    assert refused["ok"] is False and refused["status_code"] is None
    assert "ConnectError" in refused["error"] and refused["elapsed_ms"] >= 0
    assert client.post("/api/v1/channels", json={"name": "x", "kind": "sms",
                                                 "url": "http://x"}).status_code == 422


def test_pinned_baselines_win_over_the_latest_main_run(client, actors) -> None:
    actors.login(client)
    headers = actors.token(Scope.runs_write, Scope.read)
    first = _run(client, headers)
    second = _run(client, headers, seed=2)
    assert second["baseline_run_id"] == first["id"]
    pinned = client.post("/api/v1/baselines", json={"run_id": first["id"]})
    assert pinned.status_code == 201 and pinned.json()["branch"] == "main"
    third = _run(client, headers, seed=3, branch="feature")
    assert third["baseline_run_id"] == first["id"]
    client.delete(f"/api/v1/baselines/{pinned.json()['id']}")
    fourth = _run(client, headers, seed=4, branch="feature")
    assert fourth["baseline_run_id"] == second["id"]


def test_compare_flags_unreliable_tails_and_host_drift(client, actors) -> None:
    headers = actors.token(Scope.runs_write, Scope.read)
    base = _run(client, headers)
    document = result(series=[{"labels": {"client": "go"}, "trials": [
        {"latency": {"samples_ns": [350_000 + i for i in range(2000)]}}]}])
    document["host"]["fingerprint"]["governor"] = "powersave"
    other = client.post("/api/v1/runs", json=document, headers=headers).json()
    compared = client.get("/api/v1/compare", params={"baseline": base["id"],
                                                     "candidate": other["id"]},
                          headers=headers).json()
    assert "host governor differs: performance vs powersave" in compared["warnings"]
    by_metric = {m["metric"]: m for m in compared["series"][0]["metrics"]}
    assert by_metric["p99"]["reliable"] and not by_metric["p999"]["reliable"]
    assert by_metric["p50"]["confidence"] == "low"  # one candidate trial: threshold verdict


def test_trends_show_points_and_change_points(client, actors) -> None:
    headers = actors.token(Scope.runs_write, Scope.read)
    ids = []
    for index in range(30):
        level = 1.0 if index < 18 else 1.08
        document = result(series=[{"labels": {"client": "go"}, "trials": [{"latency": {
            "samples_ns": [int(v) for v in np.random.default_rng(index).normal(
                350_000 * level, 2_000, 500)]}}]}],
            started_at=f"2026-11-{1 + index // 2:02d}T{10 + index % 2}:00:00Z")
        ids.append(client.post("/api/v1/runs", json=document, headers=headers).json()["id"])
    trend = client.get("/api/v1/trends", params={
        "suite": "http-order", "scenario": "medium", "metric": "p50",
        "labels": '{"client": "go"}', "branch": "main"}, headers=headers).json()
    assert [p["run_id"] for p in trend["points"]] == ids
    assert trend["unit"] == "ns" and trend["direction"] == "lower"
    assert [c["run_id"] for c in trend["change_points"]] == [ids[18]]
    bad = client.get("/api/v1/trends", params={"suite": "x", "scenario": "y",
                                               "labels": "[1]"}, headers=headers)
    assert bad.status_code == 422


def test_deleting_a_rule_resolves_its_open_alerts(client, actors) -> None:
    user = actors.login(client)
    headers = actors.token(Scope.runs_write, Scope.read)
    rules = [client.post("/api/v1/sla-rules", json={
        "name": name, "suite": "http-order", "metric": metric, "op": ">", "threshold": 1,
        "unit": "ns"}).json() for name, metric in (("p50 tiny", "p50"), ("p99 tiny", "p99"))]
    _run(client, headers)
    alerts = client.get("/api/v1/alerts", params={"state": "open"}).json()["items"]
    assert len(alerts) == 2
    kept = next(a for a in alerts if a["rule_id"] == rules[1]["id"])
    assert client.delete(f"/api/v1/sla-rules/{rules[0]['id']}").status_code == 204
    (still_open,) = client.get("/api/v1/alerts", params={"state": "open"}).json()["items"]
    assert still_open["id"] == kept["id"]  # another rule's alert stays open
    (resolved,) = client.get("/api/v1/alerts", params={"state": "resolved"}).json()["items"]
    assert resolved["resolution"] == f"its rule 'p50 tiny' was deleted by {user.email}"
    assert resolved["resolved_by_id"] == user.id
