"""Dashboard sessions, roles, and API tokens."""

from datetime import datetime

from latlab.models import Role
from tests.factories import PASSWORD


def test_login_sets_an_httponly_cookie_and_me_answers(client, actors) -> None:
    user = actors.user(Role.member, email="ada@lab.test")
    response = client.post("/api/v1/auth/login",
                           json={"email": "ADA@lab.test", "password": PASSWORD})
    assert response.status_code == 200
    cookie = response.headers["set-cookie"]
    assert "latlab_session=" in cookie and "HttpOnly" in cookie and "SameSite=lax" in cookie
    me = client.get("/api/v1/auth/me").json()
    assert {k: me[k] for k in ("id", "email", "name", "role", "is_active", "projects")} == {
        "id": user.id, "email": "ada@lab.test", "name": None, "role": "member",
        "is_active": True, "projects": ["default"]}
    assert me["project"]["slug"] == "default"


def test_wrong_password_is_401(client, actors) -> None:
    actors.user(email="bob@lab.test")
    response = client.post("/api/v1/auth/login", json={"email": "bob@lab.test",
                                                       "password": "wrong"})
    assert response.status_code == 401 and "wrong email or password" in response.text
    assert client.get("/api/v1/auth/me").status_code == 401


def test_logout_ends_the_session(client, actors) -> None:
    actors.login(client)
    cookie = client.cookies.get("latlab_session")
    assert client.post("/api/v1/auth/logout").status_code == 204
    client.cookies.set("latlab_session", cookie)
    assert client.get("/api/v1/auth/me").status_code == 401


def test_sessions_expire(client, actors, clock) -> None:
    actors.login(client)
    clock.advance(days=15)
    assert client.get("/api/v1/auth/me").status_code == 401


def test_every_route_but_login_needs_a_caller(client) -> None:
    """Sign-in and a host's join aside: a joining machine has no account, the invitation's
    one-time code in its body is its credential (without one: 422, nothing joins)."""
    spec = client.get("/api/v1/openapi.json").json()
    assert client.post("/api/v1/hosts/join", json={}).status_code == 422
    for path, operations in spec["paths"].items():
        for method in operations:
            if path in ("/api/v1/auth/login", "/api/v1/hosts/join") or (
                    path, method) == ("/api/v1/auth/logout", "post"):
                continue
            concrete = path.replace("{run_id}", "1").replace("{series_id}", "1").replace(
                "{token_id}", "1").replace("{user_id}", "1")
            response = client.request(method.upper(), concrete, json={})
            assert response.status_code == 401, (method, path, response.status_code)


def test_token_secret_is_shown_once_and_stored_hashed(client, actors, db) -> None:
    actors.login(client)
    created = client.post("/api/v1/tokens", json={"name": "github-ci",
                                                  "scopes": ["runs:write", "read"]})
    assert created.status_code == 201
    secret = created.json()["token"]
    assert secret.startswith("llt_") and len(secret) > 40
    listed = client.get("/api/v1/tokens").json()
    assert listed[0]["name"] == "github-ci" and "token" not in listed[0]
    assert secret not in client.get("/api/v1/tokens").text
    from latlab.models import ApiToken

    stored = db.get(ApiToken, created.json()["id"])
    assert stored.token_hash != secret and secret not in stored.token_hash
    assert stored.scopes == ["read", "runs:write"]


def test_a_tokens_last_use_is_kept_to_the_minute(client, actors, clock) -> None:
    """A read is not a write: the last use is written at most once a minute."""
    actors.login(client)
    created = client.post("/api/v1/tokens", json={"name": "ci", "scopes": ["read"]}).json()
    bearer = {"Authorization": f"Bearer {created['token']}"}

    def last_used() -> datetime | None:
        listed = client.get("/api/v1/tokens").json()
        value = next(t["last_used_at"] for t in listed if t["id"] == created["id"])
        return None if value is None else datetime.fromisoformat(value)

    assert last_used() is None
    first = clock.now()
    assert client.get("/api/v1/suites", headers=bearer).status_code == 200
    clock.advance(seconds=59)
    assert client.get("/api/v1/suites", headers=bearer).status_code == 200
    assert last_used() == first
    clock.advance(seconds=1)
    assert client.get("/api/v1/suites", headers=bearer).status_code == 200
    assert last_used() == clock.now()


def test_token_requests_are_validated(client, actors) -> None:
    actors.login(client)
    assert client.post("/api/v1/tokens", json={"name": "x", "scopes": []}).status_code == 422
    assert client.post("/api/v1/tokens", json={"name": "x", "scopes": ["admin"]}).status_code == 422
    past = client.post("/api/v1/tokens", json={"name": "x", "scopes": ["read"],
                                               "expires_at": "2020-01-01T00:00:00Z"})
    assert past.status_code == 422 and "future" in past.text


def test_tokens_cannot_make_tokens_and_viewers_cannot_either(client, actors) -> None:
    token = actors.token()
    assert client.post("/api/v1/tokens", json={"name": "x", "scopes": ["read"]},
                       headers=token).status_code == 403
    actors.login(client, Role.viewer)
    assert client.post("/api/v1/tokens",
                       json={"name": "x", "scopes": ["read"]}).status_code == 403


def test_only_admins_manage_users(client, actors) -> None:
    actors.login(client, Role.member)
    assert client.get("/api/v1/users").status_code == 403
    client.cookies.clear()
    actors.login(client, Role.admin)
    created = client.post("/api/v1/users", json={"email": "new@lab.test",
                                                 "password": "long enough", "role": "viewer"})
    assert created.status_code == 201 and created.json()["role"] == "viewer"
    again = client.post("/api/v1/users", json={"email": "new@lab.test", "password": "long enough"})
    assert again.status_code == 409
    changed = client.patch(f"/api/v1/users/{created.json()['id']}", json={"role": "member"})
    assert changed.json()["role"] == "member"
