"""Triage through the API: a note with an acknowledgement, an assignee, bulk acknowledge and
resolve (all or nothing, in the caller's project), and the commit and branch that group an
alert with the others its commit caused."""

from fastapi.testclient import TestClient
from sqlalchemy.orm import Session

from latlab.alerts import delivery, lifecycle
from latlab.alerts.schemas import MAX_BULK
from latlab.core.clock import get_clock
from latlab.models import Alert, AlertState, Role, Scope, Severity
from latlab.projects import service as projects
from tests.factories import Actors, result, submit

RULES = ({"name": "p50 over 1 ns", "metric": "p50"}, {"name": "p99 over 1 ns", "metric": "p99"})


def breach(client: TestClient, headers: dict[str, str], commit: str, branch: str = "main",
           scenario: str = "medium", samples: int = 200) -> int:
    """A run whose two series breach both rules (p50 and p99 over 1 ns): four alerts of one
    commit."""
    series = [{"labels": {"client": client_name}, "trials": [
        {"latency": {"samples_ns": [300_000 + i for i in range(samples)]}}]}
        for client_name in ("go", "rust")]
    return int(submit(client, result(series=series, commit=commit, branch=branch,
                                     scenario=scenario), headers)["id"])


def open_alerts(client: TestClient, actors: Actors) -> tuple[dict[str, list[dict]], int]:
    """Alerts of two commits, by commit, and the first run's id."""
    headers = actors.token(Scope.runs_write, Scope.read)
    for rule in RULES:
        created = client.post("/api/v1/sla-rules", json={
            **rule, "suite": "http-order", "op": ">", "threshold": 1, "unit": "ns"})
        assert created.status_code == 201, created.text
    run_id = breach(client, headers, "aaaa111", branch="feature")
    breach(client, headers, "bbbb222", scenario="stress")
    by_commit: dict[str, list[dict]] = {}
    for alert in client.get("/api/v1/alerts").json()["items"]:
        by_commit.setdefault(alert["commit"], []).append(alert)
    return by_commit, run_id


def states(client: TestClient) -> dict[int, str]:
    return {a["id"]: a["state"] for a in client.get("/api/v1/alerts").json()["items"]}


def other_projects_alert(db: Session) -> int:
    other = projects.ensure(db, "other")
    now = get_clock().now()
    alert = Alert(project_id=other.id, source="regression", history_key="other", kind="regression",
                  severity=Severity.warning, state=AlertState.open, suite="echo",
                  scenario="default", series_labels={}, metric="p99", unit="ns",
                  message="elsewhere", opened_at=now, updated_at=now)
    db.add(alert)
    db.flush()
    return alert.id


def test_alerts_carry_their_runs_commit_and_branch(client, actors) -> None:
    actors.login(client)
    by_commit, run_id = open_alerts(client, actors)
    assert {commit: len(alerts) for commit, alerts in by_commit.items()} == {
        "aaaa111": 4, "bbbb222": 4}
    assert {a["branch"] for a in by_commit["aaaa111"]} == {"feature"}
    assert {a["run_id"] for a in by_commit["aaaa111"]} == {run_id}
    one = by_commit["bbbb222"][0]
    assert client.get(f"/api/v1/alerts/{one['id']}").json()["commit"] == "bbbb222"


def test_an_acknowledgement_keeps_its_note_and_the_resolve_message_carries_it(
        client, actors) -> None:
    user = actors.login(client)
    by_commit, _ = open_alerts(client, actors)
    alert_id = by_commit["aaaa111"][0]["id"]
    too_long = client.post(f"/api/v1/alerts/{alert_id}/acknowledge", json={"note": "x" * 2001})
    assert too_long.status_code == 422
    assert client.post(f"/api/v1/alerts/{alert_id}/acknowledge",
                       json={"note": "   "}).status_code == 422
    assert client.post(f"/api/v1/alerts/{alert_id}/acknowledge",
                       json={"note": "x", "bug": 1}).status_code == 422
    assert states(client)[alert_id] == "open"

    acknowledged = client.post(f"/api/v1/alerts/{alert_id}/acknowledge",
                               json={"note": "  bisecting: the pool size change  "})
    assert acknowledged.status_code == 200, acknowledged.text
    assert acknowledged.json()["note"] == "bisecting: the pool size change"
    assert acknowledged.json()["acknowledged_by_id"] == user.id
    assert client.get(f"/api/v1/alerts/{alert_id}").json()["note"] == (
        "bisecting: the pool size change")
    # Without a body, as before: acknowledged, no note.
    other_id = by_commit["aaaa111"][1]["id"]
    plain = client.post(f"/api/v1/alerts/{other_id}/acknowledge").json()
    assert plain["state"] == "acknowledged" and plain["note"] is None


def test_the_note_goes_with_the_alerts_later_messages(db, client, actors) -> None:
    actors.login(client)
    by_commit, _ = open_alerts(client, actors)
    alert = db.get(Alert, by_commit["aaaa111"][0]["id"])
    assert alert is not None
    lifecycle.acknowledge(alert, by_id=actors.user().id, note="pool size, see PR 12")
    message = lifecycle.payload(alert, "resolved")
    assert message["note"] == "pool size, see PR 12"
    texts = [element["text"] for block in delivery.blocks(message) if block["type"] == "context"
             for element in block["elements"]]
    assert "Note: pool size, see PR 12" in texts


def test_an_alert_is_assigned_to_a_user_of_the_project_and_filtered_by_them(
        client, actors, db) -> None:
    actors.login(client)
    by_commit, _ = open_alerts(client, actors)
    alert_id = by_commit["aaaa111"][0]["id"]
    member = actors.user(Role.member)
    projects.add_member(db, projects.ensure(db, "default"), member)
    viewer = actors.user(Role.viewer)
    projects.add_member(db, projects.ensure(db, "default"), viewer)
    outsider = actors.user(Role.member)
    projects.ensure(db, "other")
    projects.set_memberships(db, outsider, ["other"])

    assignees = {a["id"]: a for a in client.get("/api/v1/alerts/assignees").json()}
    assert member.id in assignees and assignees[member.id]["email"] == member.email
    assert viewer.id not in assignees and outsider.id not in assignees

    assigned = client.put(f"/api/v1/alerts/{alert_id}/assignee", json={"assignee_id": member.id})
    assert assigned.status_code == 200, assigned.text
    assert assigned.json()["assignee_id"] == member.id
    mine = client.get("/api/v1/alerts", params={"assignee_id": member.id}).json()
    assert [a["id"] for a in mine["items"]] == [alert_id] and mine["total"] == 1

    for refused in (viewer.id, outsider.id, 10**12):
        answer = client.put(f"/api/v1/alerts/{alert_id}/assignee", json={"assignee_id": refused})
        assert answer.status_code == 422, answer.text
        [problem] = answer.json()["detail"]
        assert problem["path"] == "$.assignee_id"
        assert problem["message"].endswith("who may triage its alerts")
    for malformed in ({}, {"assignee_id": 0}, {"assignee_id": "me"}):
        assert client.put(f"/api/v1/alerts/{alert_id}/assignee",
                          json=malformed).status_code == 422
    assert client.get(f"/api/v1/alerts/{alert_id}").json()["assignee_id"] == member.id

    cleared = client.put(f"/api/v1/alerts/{alert_id}/assignee", json={"assignee_id": None})
    assert cleared.json()["assignee_id"] is None
    assert client.get("/api/v1/alerts", params={"assignee_id": member.id}).json()["total"] == 0


def test_viewers_and_tokens_cannot_triage(client, actors) -> None:
    actors.login(client)
    by_commit, _ = open_alerts(client, actors)
    ids = [a["id"] for a in by_commit["aaaa111"]]
    token = actors.token(Scope.read)
    assert client.post("/api/v1/alerts/bulk", headers=token, json={
        "action": "resolve", "alert_ids": ids}).status_code == 403
    client.post("/api/v1/auth/logout")
    actors.login(client, Role.viewer)
    assert client.post("/api/v1/alerts/bulk", json={
        "action": "resolve", "alert_ids": ids}).status_code == 403
    assert client.put(f"/api/v1/alerts/{ids[0]}/assignee",
                      json={"assignee_id": None}).status_code == 403
    assert set(states(client).values()) == {"open"}


def test_bulk_acknowledge_then_resolve_a_commits_alerts(client, actors) -> None:
    user = actors.login(client)
    by_commit, _ = open_alerts(client, actors)
    ids = [a["id"] for a in by_commit["aaaa111"]]
    acknowledged = client.post("/api/v1/alerts/bulk", json={
        "action": "acknowledge", "alert_ids": ids, "note": "the pool size change"})
    assert acknowledged.status_code == 200, acknowledged.text
    assert [a["id"] for a in acknowledged.json()] == ids
    assert {(a["state"], a["note"], a["acknowledged_by_id"]) for a in acknowledged.json()} == {
        ("acknowledged", "the pool size change", user.id)}

    resolved = client.post("/api/v1/alerts/bulk", json={"action": "resolve", "alert_ids": ids})
    assert resolved.status_code == 200, resolved.text
    assert {a["resolution"] for a in resolved.json()} == {f"resolved by {user.email}"}
    after = states(client)
    assert {after[i] for i in ids} == {"resolved"}
    assert {after[a["id"]] for a in by_commit["bbbb222"]} == {"open"}


def test_a_bulk_action_changes_all_or_nothing(client, actors, db) -> None:
    actors.login(client)
    by_commit, _ = open_alerts(client, actors)
    ids = [a["id"] for a in by_commit["aaaa111"]]
    before = states(client)
    foreign = other_projects_alert(db)

    def refused(body: dict, status: int, detail: str) -> None:
        answer = client.post("/api/v1/alerts/bulk", json=body)
        assert answer.status_code == status, answer.text
        assert detail in answer.text, answer.text
        assert states(client) == before, "nothing changed"

    refused({"action": "resolve", "alert_ids": [*ids, 10**12]}, 422,
            "the project has no alert 1000000000000")
    refused({"action": "resolve", "alert_ids": [*ids, foreign]}, 422,
            f"the project has no alert {foreign}")
    refused({"action": "resolve", "alert_ids": list(range(1, MAX_BULK + 2))}, 422,
            "at most 100 items")
    refused({"action": "resolve", "alert_ids": []}, 422, "at least 1 item")
    refused({"action": "resolve", "alert_ids": [ids[0], ids[0]]}, 422, "names an alert twice")
    refused({"action": "resolve", "alert_ids": ids, "note": "x"}, 422,
            "a note goes with acknowledge only")
    refused({"action": "close", "alert_ids": ids}, 422, "acknowledge")
    refused({"action": "resolve", "alert_ids": [0]}, 422, "greater than or equal to 1")
    refused({"action": "resolve", "alert_ids": "1,2"}, 422, "list")

    # One alert already resolved: the others stay as they were.
    assert client.post(f"/api/v1/alerts/{ids[-1]}/resolve").status_code == 200
    before = states(client)
    refused({"action": "resolve", "alert_ids": ids}, 409, f"alert {ids[-1]} is already resolved")
    refused({"action": "acknowledge", "alert_ids": ids}, 409,
            f"alert {ids[-1]} is resolved, not open")
    assert db.get(Alert, foreign).state is AlertState.open
