"""Projects through the API: made, renamed, archived by admins; members switch between them;
tokens act within their owner's current rights."""

from sqlalchemy import func, select

from latlab.models import Role, Run, Scope
from tests.factories import result


def _admin(client, actors):
    return actors.login(client, Role.admin)


def test_admins_create_rename_configure_and_archive_projects(client, actors) -> None:
    _admin(client, actors)
    made = client.post("/api/v1/projects", json={"slug": "payments", "name": "Payments"})
    assert made.status_code == 201, made.text
    assert made.json()["confirm_regressions"] is False and made.json()["archived_at"] is None
    assert client.post("/api/v1/projects", json={"slug": "payments",
                                                 "name": "again"}).status_code == 409
    assert client.post("/api/v1/projects", json={"slug": "Bad Slug",
                                                 "name": "x"}).status_code == 422
    changed = client.patch("/api/v1/projects/payments", json={
        "name": "Payments (EU)", "confirm_regressions": True})
    assert changed.json()["name"] == "Payments (EU)" and changed.json()["confirm_regressions"]
    slugs = [p["slug"] for p in client.get("/api/v1/projects").json()]
    assert slugs == ["default", "payments"]
    archived = client.patch("/api/v1/projects/payments", json={"archived": True}).json()
    assert archived["archived_at"] is not None
    restored = client.patch("/api/v1/projects/payments", json={"archived": False}).json()
    assert restored["archived_at"] is None


def test_members_cannot_manage_projects_and_see_only_their_own(client, actors) -> None:
    _admin(client, actors)
    client.post("/api/v1/projects", json={"slug": "secret", "name": "Secret"})
    client.cookies.clear()
    actors.login(client, Role.member)
    assert client.post("/api/v1/projects", json={"slug": "mine", "name": "x"}).status_code == 403
    assert client.patch("/api/v1/projects/default", json={"name": "x"}).status_code == 403
    assert [p["slug"] for p in client.get("/api/v1/projects").json()] == ["default"]
    assert client.get("/api/v1/projects/secret").status_code == 404
    assert client.put("/api/v1/auth/project", json={"project": "secret"}).status_code == 403


def test_a_user_switches_project_and_sees_that_projects_runs(client, actors, db) -> None:
    admin = _admin(client, actors)
    client.post("/api/v1/projects", json={"slug": "b", "name": "B"})
    token_b = client.post("/api/v1/tokens", json={"name": "ci", "scopes": ["runs:write", "read"],
                                                  "project": "b"}).json()
    assert token_b["project"] == "b"
    response = client.post("/api/v1/runs", json=result(suite="only-in-b"),
                           headers={"Authorization": f"Bearer {token_b['token']}"})
    assert response.status_code == 201, response.text
    assert client.get("/api/v1/auth/me").json()["project"]["slug"] == "default"
    assert client.get("/api/v1/runs").json()["total"] == 0
    switched = client.put("/api/v1/auth/project", json={"project": "b"})
    assert switched.status_code == 200 and switched.json()["project"]["slug"] == "b"
    runs = client.get("/api/v1/runs").json()
    assert [r["suite"] for r in runs["items"]] == ["only-in-b"]
    assert runs["items"][0]["project"] == "b"
    assert admin.email in client.get("/api/v1/auth/me").text


def test_users_are_members_of_the_projects_an_admin_gives_them(client, actors) -> None:
    _admin(client, actors)
    client.post("/api/v1/projects", json={"slug": "b", "name": "B"})
    made = client.post("/api/v1/users", json={"email": "eve@lab.test", "password": "long enough",
                                              "projects": ["b"]})
    assert made.status_code == 201 and made.json()["projects"] == ["b"]
    assert client.post("/api/v1/users", json={
        "email": "x@lab.test", "password": "long enough", "projects": ["nope"]}
    ).status_code == 404
    moved = client.patch(f"/api/v1/users/{made.json()['id']}",
                         json={"projects": ["default", "b"]})
    assert moved.json()["projects"] == ["b", "default"]


def test_an_archived_project_keeps_its_data_and_takes_nothing_new(client, actors, db) -> None:
    _admin(client, actors)
    headers = actors.token(Scope.runs_write, Scope.read)
    assert client.post("/api/v1/runs", json=result(), headers=headers).status_code == 201
    client.patch("/api/v1/projects/default", json={"archived": True})
    before = db.scalar(select(func.count()).select_from(Run))
    refused = client.post("/api/v1/runs", json=result(commit="abcdef1"), headers=headers)
    assert refused.status_code == 409 and "archived" in refused.json()["detail"]
    assert db.scalar(select(func.count()).select_from(Run)) == before
    assert client.get("/api/v1/runs", headers=headers).json()["total"] == 1
    assert client.post("/api/v1/sla-rules", json={
        "name": "x", "suite": "echo", "metric": "p99", "op": ">", "threshold": 1}
    ).status_code == 409
    assert client.post("/api/v1/tokens", json={"name": "x", "scopes": ["read"]}
                       ).status_code == 409


def test_a_token_dies_with_its_owners_deactivation(client, actors) -> None:
    owner = actors.login(client, Role.member)
    token = client.post("/api/v1/tokens", json={"name": "ci", "scopes": ["runs:write"]}).json()
    headers = {"Authorization": f"Bearer {token['token']}"}
    client.cookies.clear()
    _admin(client, actors)
    assert client.patch(f"/api/v1/users/{owner.id}", json={"is_active": False}).status_code == 200
    client.cookies.clear()
    refused = client.post("/api/v1/runs", json=result(), headers=headers)
    assert refused.status_code == 401 and "deactivated" in refused.json()["detail"]


def test_a_tokens_scopes_are_clipped_to_its_owners_role(client, actors) -> None:
    owner = actors.login(client, Role.member)
    token = client.post("/api/v1/tokens", json={"name": "ci",
                                                "scopes": ["runs:write", "read"]}).json()
    headers = {"Authorization": f"Bearer {token['token']}"}
    client.cookies.clear()
    _admin(client, actors)
    client.patch(f"/api/v1/users/{owner.id}", json={"role": "viewer"})
    client.cookies.clear()
    refused = client.post("/api/v1/runs", json=result(), headers=headers)
    assert refused.status_code == 403 and "runs:write" in refused.json()["detail"]
    assert client.get("/api/v1/runs", headers=headers).status_code == 200


def test_a_token_dies_when_its_owner_leaves_the_project(client, actors) -> None:
    owner = actors.login(client, Role.member)
    token = client.post("/api/v1/tokens", json={"name": "ci", "scopes": ["read"]}).json()
    client.cookies.clear()
    _admin(client, actors)
    client.post("/api/v1/projects", json={"slug": "other", "name": "Other"})
    client.patch(f"/api/v1/users/{owner.id}", json={"projects": ["other"]})
    client.cookies.clear()
    refused = client.get("/api/v1/runs", headers={"Authorization": f"Bearer {token['token']}"})
    assert refused.status_code == 401 and "no longer a member" in refused.json()["detail"]


def test_only_admins_see_other_users_tokens(client, actors) -> None:
    actors.login(client, Role.member)
    mine = client.post("/api/v1/tokens", json={"name": "mine", "scopes": ["read"]}).json()
    client.cookies.clear()
    actors.login(client, Role.viewer)
    assert client.get("/api/v1/tokens").json() == []
    assert client.delete(f"/api/v1/tokens/{mine['id']}").status_code == 403
    client.cookies.clear()
    actors.login(client, Role.member)
    assert client.get("/api/v1/tokens").json() == []
    assert client.delete(f"/api/v1/tokens/{mine['id']}").status_code == 404
    client.cookies.clear()
    _admin(client, actors)
    assert [t["name"] for t in client.get("/api/v1/tokens").json()] == ["mine"]


def test_an_admin_cannot_lock_themselves_out(client, actors) -> None:
    admin = _admin(client, actors)
    assert client.patch(f"/api/v1/users/{admin.id}", json={"is_active": False}
                        ).status_code == 409
    assert client.patch(f"/api/v1/users/{admin.id}", json={"role": "member"}).status_code == 409
    assert client.patch(f"/api/v1/users/{admin.id}", json={"name": "Root"}).status_code == 200
