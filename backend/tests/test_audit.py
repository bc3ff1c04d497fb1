"""The audit log: a sequence of changes through the API, read back from GET /audit exactly as
written (who, what, before and after, secrets redacted); admins only; pruned by age."""

from datetime import datetime, timedelta

from sqlalchemy import func, select

from latlab.audit import service as audit_service
from latlab.models import AuditEvent, Role, Scope
from tests.factories import allow_private_webhooks, result


def _events(client, **filters) -> list[dict]:
    """The events written since the test began, oldest first, as (actor, what, change)."""
    page = client.get("/api/v1/audit", params={"limit": 500, **filters})
    assert page.status_code == 200, page.text
    return [{k: e[k] for k in ("actor", "entity_type", "entity_id", "action", "before", "after")}
            for e in reversed(page.json()["items"])]


def test_a_sequence_of_changes_reads_back_as_written(client, actors, db, clock) -> None:
    run_id = client.post("/api/v1/runs", json=result(),
                         headers=actors.token(Scope.runs_write)).json()["id"]
    allow_private_webhooks(db)
    admin = actors.login(client, Role.admin)
    db.execute(AuditEvent.__table__.delete())  # what the fixtures set up is not the point
    project_id = client.get("/api/v1/projects/default").json()["id"]

    user = client.post("/api/v1/users", json={
        "email": "ada@lab.test", "password": "a long passphrase", "role": "viewer"}).json()
    token = client.post("/api/v1/tokens", json={"name": "ci", "scopes": ["read"]}).json()
    rule = client.post("/api/v1/sla-rules", json={
        "name": "p99", "suite": "http-order", "metric": "p99", "op": ">", "threshold": 2,
        "unit": "ms", "severity": "critical"}).json()
    assert client.patch(f"/api/v1/sla-rules/{rule['id']}",
                        json={"threshold": 3}).status_code == 200
    assert client.delete(f"/api/v1/sla-rules/{rule['id']}").status_code == 204
    channel = client.post("/api/v1/channels", json={
        "name": "slack", "kind": "slack", "url": "http://127.0.0.1:9/services/T/B/SECRET"}).json()
    pinned = client.post("/api/v1/baselines", json={"run_id": run_id}).json()
    assert client.put("/api/v1/retention", json={
        "intervals_retention_days": 30, "histograms_retention_days": None}).status_code == 200
    assert client.patch("/api/v1/projects/default",
                        json={"archived": True}).status_code == 200

    events = _events(client)
    me = admin.email
    assert [(e["entity_type"], e["action"]) for e in events] == [
        ("user", "create"), ("project_member", "create"), ("api_token", "create"),
        ("sla_rule", "create"),
        ("sla_rule", "update"), ("sla_rule", "delete"), ("channel", "create"),
        ("baseline", "create"), ("project", "update"), ("project", "update")]
    assert {e["actor"] for e in events} == {me}
    created_user = events[0]
    assert created_user["entity_id"] == user["id"] and created_user["before"] is None
    assert created_user["after"]["email"] == "ada@lab.test"
    assert created_user["after"]["role"] == "viewer"
    assert created_user["after"]["password_hash"] == "[redacted]"
    # A new user joins the lab's default project.
    assert events[1]["entity_id"] == user["id"] and events[1]["after"] == {
        "project_id": project_id, "user_id": user["id"], "created_at": clock.now().isoformat()}
    created_token = events[2]["after"]
    assert events[2]["entity_id"] == token["id"] and created_token["token_hash"] == "[redacted]"
    assert created_token["scopes"] == ["read"] and created_token["prefix"] == token["prefix"]
    assert events[4]["before"] == {"threshold": 2.0} and events[4]["after"] == {"threshold": 3.0}
    assert events[5]["after"] is None and events[5]["before"]["threshold"] == 3.0
    assert events[6]["entity_id"] == channel["id"]
    assert events[6]["after"]["url"] == "[redacted]" and "SECRET" not in str(events)
    assert events[7]["entity_id"] == pinned["id"] and events[7]["after"]["run_id"] == run_id
    assert events[8]["entity_id"] == project_id
    assert events[8]["before"] == {"intervals_retention_days": None}
    assert events[8]["after"] == {"intervals_retention_days": 30}
    assert events[9]["before"] == {"archived_at": None}
    assert events[9]["after"] == {"archived_at": clock.now().isoformat()}

    # Filters and paging.
    assert [e["action"] for e in _events(client, entity_type="sla_rule")] == [
        "create", "update", "delete"]
    assert len(_events(client, entity_type="sla_rule", entity_id=rule["id"],
                       action="delete")) == 1
    page = client.get("/api/v1/audit", params={"limit": 2, "offset": 1}).json()
    assert page["total"] == 10 and [e["entity_type"] for e in page["items"]] == [
        "project", "baseline"]


def test_membership_changes_read_back_in_each_project(client, actors, db, clock) -> None:
    """Adding a user to a project and removing them is recorded in that project's log, as
    `project_member` with the member's user id; their role is the user's (a user update)."""
    admin = actors.login(client, Role.admin)
    default_id = client.get("/api/v1/projects/default").json()["id"]
    payments_id = client.post("/api/v1/projects", json={
        "slug": "payments", "name": "Payments"}).json()["id"]
    user_id = client.post("/api/v1/users", json={
        "email": "ada@lab.test", "password": "a long passphrase", "role": "viewer",
        "projects": ["default"]}).json()["id"]
    db.execute(AuditEvent.__table__.delete())

    def member(project_id: int, since: str) -> dict:
        return {"project_id": project_id, "user_id": user_id, "created_at": since}

    added_at = clock.now().isoformat()
    assert client.patch(f"/api/v1/users/{user_id}", json={
        "projects": ["default", "payments"]}).status_code == 200
    clock.advance(minutes=1)
    assert client.patch(f"/api/v1/users/{user_id}", json={"role": "member"}).status_code == 200
    clock.advance(minutes=1)
    assert client.patch(f"/api/v1/users/{user_id}",
                        json={"projects": ["payments"]}).status_code == 200
    clock.advance(minutes=1)
    assert client.patch(f"/api/v1/users/{user_id}",
                        json={"projects": ["default"]}).status_code == 200
    readded_at = clock.now().isoformat()
    # Unchanged memberships record nothing.
    assert client.patch(f"/api/v1/users/{user_id}",
                        json={"projects": ["default"]}).status_code == 200

    # The default project's log: its memberships, and the lab's users (the role is the user's).
    assert _events(client) == [
        {"actor": admin.email, "entity_type": "user", "entity_id": user_id, "action": "update",
         "before": {"role": "viewer"}, "after": {"role": "member"}},
        {"actor": admin.email, "entity_type": "project_member", "entity_id": user_id,
         "action": "delete", "before": member(default_id, added_at), "after": None},
        {"actor": admin.email, "entity_type": "project_member", "entity_id": user_id,
         "action": "create", "before": None, "after": member(default_id, readded_at)}]
    # The payments project's log: the user joined it, then left it; when, and by whom.
    assert client.put("/api/v1/auth/project", json={"project": "payments"}).status_code == 200
    raw = client.get("/api/v1/audit", params={"entity_type": "project_member"}).json()["items"]
    assert [(e["action"], e["entity_id"], e["actor_user_id"], datetime.fromisoformat(e["at"]))
            for e in reversed(raw)] == [
        ("create", user_id, admin.id, datetime.fromisoformat(added_at)),
        ("delete", user_id, admin.id, datetime.fromisoformat(added_at) + timedelta(minutes=3))]
    assert raw[1]["after"] == member(payments_id, added_at) and raw[0]["before"] == member(
        payments_id, added_at)
    assert [e["action"] for e in _events(client, entity_type="project_member",
                                          entity_id=user_id)] == ["create", "delete"]


def test_a_token_is_the_actor_of_its_changes_and_bookkeeping_is_not_audited(
        client, actors, db) -> None:
    headers = actors.token(Scope.runs_write, Scope.read)
    db.execute(AuditEvent.__table__.delete())
    assert client.post("/api/v1/runs", json=result(), headers=headers).status_code == 201
    # The token's last use changed, nothing anyone configured: no event.
    assert db.scalar(select(func.count()).select_from(AuditEvent)) == 0
    admin_token = actors.token(Scope.read)
    actors.login(client, Role.admin)
    client.delete(f"/api/v1/tokens/{_token_id(client, db, admin_token)}")
    events = _events(client, entity_type="api_token", action="update")
    assert len(events) == 1 and events[0]["after"]["revoked_at"] is not None


def _token_id(client, db, headers) -> int:
    from latlab.auth.service import secret_hash
    from latlab.models import ApiToken

    secret = headers["Authorization"].removeprefix("Bearer ")
    return db.scalar(select(ApiToken.id).where(ApiToken.token_hash == secret_hash(secret)))


def test_only_admins_read_the_audit_log(client, actors) -> None:
    actors.login(client, Role.member)
    assert client.get("/api/v1/audit").status_code == 403
    assert client.get("/api/v1/audit", headers=actors.token(Scope.read)).status_code == 403


def test_old_events_are_pruned(client, actors, db, clock) -> None:
    actors.login(client, Role.admin)
    client.post("/api/v1/tokens", json={"name": "old", "scopes": ["read"]})
    clock.advance(days=10)
    client.post("/api/v1/tokens", json={"name": "new", "scopes": ["read"]})
    names = [e["after"]["name"] for e in _events(client, entity_type="api_token")]
    assert names[-2:] == ["old", "new"]
    assert audit_service.prune(db, clock.now(), days=5) >= 1
    assert [e["after"]["name"] for e in _events(client, entity_type="api_token")] == ["new"]
    assert audit_service.prune(db, clock.now() + timedelta(days=1), days=5) == 0
