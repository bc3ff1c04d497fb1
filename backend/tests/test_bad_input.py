"""Bad submissions: a clear status and message, and nothing stored."""

import json
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from latlab.models import Host, Role, Run, Scope, Series, Trial
from tests.factories import PASSWORD, edited, result

TRIAL = "series.0.trials.0"
AT = "$.series[0].trials[0]"


def _stored(db) -> tuple[int, ...]:
    return tuple(db.scalar(select(func.count()).select_from(m)) for m in (Run, Series, Trial, Host))


@pytest.mark.parametrize(
    ("document", "path", "message"),
    [
        (edited(result(), "schema", "latlab.result/v2"), "$.schema", "latlab.result/v1"),
        (edited(result(), "series", []), "$.series", "at least 1 item"),
        (edited(result(), f"{TRIAL}.latency.samples_ns.3", -5), f"{AT}.latency.samples_ns[3]",
         "greater than or equal to 0"),
        (edited(result(), f"{TRIAL}.latency.samples_ns.2", 1.5), f"{AT}.latency.samples_ns[2]",
         "valid integer"),
        (edited(result(), f"{TRIAL}.latency", {}), f"{AT}.latency",
         "exactly one of 'hdr' or 'samples_ns'"),
        (edited(result(), f"{TRIAL}.latency", {"hdr": "bm90IGEgaGlzdG9ncmFt"}),
         f"{AT}.latency.hdr", "not a compressed HdrHistogram V2"),
        (edited(result(), "surprise", 1), "$.surprise", "Extra inputs are not permitted"),
        (edited(result(), "host.cpu", "x"), "$.host.cpu", "Extra inputs are not permitted"),
        (edited(result(), "started_at", "2026-11-22T10:00:00"), "$.started_at", "timezone"),
        (edited(result(), "suite", "Bad Suite!"), "$.suite", "should match pattern"),
        (edited(result(), f"{TRIAL}.latency.samples_ns.0", 4_000_000_000_000),
         f"{AT}.latency.samples_ns[0]", "less than or equal to 3600000000000"),
    ],
    ids=["schema-version", "no-series", "negative", "fractional", "no-latency", "bad-hdr",
         "unknown-field", "unknown-nested-field", "naive-time", "bad-suite", "too-large"],
)
def test_invalid_documents_are_422_with_their_path(client, actors, db, document, path,
                                                   message) -> None:
    headers = actors.token(Scope.runs_write)
    before = _stored(db)
    response = client.post("/api/v1/runs", json=document, headers=headers)
    assert response.status_code == 422, response.text
    problems = response.json()["detail"]
    assert any(p["path"] == path and message in p["message"] for p in problems), problems
    assert _stored(db) == before


@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_metrics_are_refused(client, actors, db, literal) -> None:
    text = json.dumps(edited(result(), f"{TRIAL}.metrics.throughput", "X")).replace(
        '"X"', literal)
    before = _stored(db)
    response = client.post("/api/v1/runs", content=text, headers={
        **actors.token(Scope.runs_write), "Content-Type": "application/json"})
    assert response.status_code == 422
    assert any(p["path"] == f"{AT}.metrics.throughput" and "finite" in p["message"]
               for p in response.json()["detail"])
    assert _stored(db) == before


def test_each_problem_is_listed(client, actors) -> None:
    document = edited(edited(result(), "suite", "BAD"), f"{TRIAL}.latency.samples_ns.0", -1)
    paths = {p["path"] for p in client.post("/api/v1/runs", json=document,
                                            headers=actors.token(Scope.runs_write)).json()["detail"]}
    assert {"$.suite", f"{AT}.latency.samples_ns[0]"} <= paths


def test_not_json_and_empty_bodies(client, actors) -> None:
    headers = {**actors.token(Scope.runs_write), "Content-Type": "application/json"}
    assert client.post("/api/v1/runs", content=b"{nope", headers=headers).status_code == 422
    empty = client.post("/api/v1/runs", content=b"", headers=headers)
    assert empty.status_code == 422 and "JSON body is required" in empty.text


def test_duplicate_series_labels_are_refused(client, actors, db) -> None:
    document = result()
    document["series"].append(document["series"][0])
    response = client.post("/api/v1/runs", json=document, headers=actors.token(Scope.runs_write))
    assert response.status_code == 422 and "same labels" in response.text


def test_oversize_body_is_413_and_stores_nothing(db, actors, monkeypatch) -> None:
    from latlab.core.settings import get_settings
    from tests.conftest import _client_for

    monkeypatch.setattr(get_settings(), "max_body_bytes", 2000)
    for client in _client_for(db):
        before = _stored(db)
        response = client.post("/api/v1/runs", json=result(),
                               headers=actors.token(Scope.runs_write))
        assert response.status_code == 413
        assert "larger than 2000 bytes" in response.json()["detail"]
        assert _stored(db) == before


@pytest.mark.parametrize("case", ["missing", "unknown", "expired", "revoked", "malformed"])
def test_bad_tokens_are_401(client, actors, db, clock, case) -> None:
    headers = {}
    if case == "unknown":
        headers = {"Authorization": "Bearer llt_not-a-real-token"}
    elif case == "malformed":
        headers = {"Authorization": "Basic abc"}
    elif case == "expired":
        headers = actors.token(Scope.runs_write, expires_at=clock.now() + timedelta(hours=1))
        clock.advance(hours=2)
    elif case == "revoked":
        actors.login(client)
        created = client.post("/api/v1/tokens", json={"name": "ci", "scopes": ["runs:write"]})
        assert client.delete(f"/api/v1/tokens/{created.json()['id']}").status_code == 204
        client.cookies.clear()
        headers = {"Authorization": f"Bearer {created.json()['token']}"}
    before = _stored(db)
    response = client.post("/api/v1/runs", json=result(), headers=headers)
    assert response.status_code == 401, response.text
    assert {"missing": "sign in", "unknown": "unknown API token", "expired": "expired",
            "revoked": "revoked", "malformed": "Bearer"}[case] in response.json()["detail"]
    assert _stored(db) == before


def test_read_token_cannot_write(client, actors, db) -> None:
    before = _stored(db)
    response = client.post("/api/v1/runs", json=result(), headers=actors.token(Scope.read))
    assert response.status_code == 403
    assert "runs:write" in response.json()["detail"]
    assert _stored(db) == before


def test_write_only_token_cannot_read(client, actors) -> None:
    response = client.get("/api/v1/runs", headers=actors.token(Scope.runs_write))
    assert response.status_code == 403


def test_viewer_cannot_write(client, actors, db) -> None:
    actors.login(client, Role.viewer)
    before = _stored(db)
    response = client.post("/api/v1/runs", json=result())
    assert response.status_code == 403 and "viewer" in response.json()["detail"]
    assert _stored(db) == before
    assert client.get("/api/v1/runs").status_code == 200


# Bad input anywhere: a 422 naming the field, nothing stored.

def _nul_documents() -> list[tuple[dict, str]]:
    return [
        (edited(result(), "series.0.labels.client", "ru\x00st"), "$.series[0].labels.client"),
        (edited(result(), "params.orders", "1\x00"), "$.params.orders"),
        (edited(result(), "source.branch", "ma\x00in"), "$.source.branch"),
        (edited(result(), "host.fingerprint.kernel", "6.1\x00"), "$.host.fingerprint.kernel"),
        (edited(result(), f"{TRIAL}.tuning", {"mlock": "applied\x00"}), f"{AT}.tuning.mlock"),
    ]


@pytest.mark.parametrize(("document", "path"), _nul_documents(),
                         ids=["label", "params", "branch", "fingerprint", "tuning"])
def test_nul_characters_in_a_submission_are_422(client, actors, db, document, path) -> None:
    before = _stored(db)
    response = client.post("/api/v1/runs", json=document, headers=actors.token(Scope.runs_write))
    assert response.status_code == 422, response.text
    assert any(p["path"].startswith(path) for p in response.json()["detail"]), response.text
    assert _stored(db) == before


@pytest.mark.parametrize("value", [2**63, 2**64, 2**70, -(2**63) - 1])
def test_integers_beyond_int64_are_422(client, actors, db, value) -> None:
    headers = actors.token(Scope.runs_write)
    before = _stored(db)
    for document, path in [
        (edited(result(), f"{TRIAL}.latency.samples_ns.0", value), f"{AT}.latency.samples_ns[0]"),
        (edited(result(), "params.orders", value), "$.params.orders"),
        (edited(result(), "host.fingerprint.cores", value), "$.host.fingerprint.cores"),
    ]:
        response = client.post("/api/v1/runs", json=document, headers=headers)
        assert response.status_code == 422, (path, response.text)
        assert any(p["path"].startswith(path) for p in response.json()["detail"]), response.text
    assert _stored(db) == before


@pytest.mark.parametrize("moment", ["0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z",
                                    "1969-12-31T23:59:59Z"])
def test_dates_outside_a_sane_range_are_422(client, actors, db, moment) -> None:
    before = _stored(db)
    response = client.post("/api/v1/runs", json=edited(result(), "started_at", moment),
                           headers=actors.token(Scope.runs_write))
    assert response.status_code == 422
    assert response.json()["detail"][0]["path"] == "$.started_at"
    assert _stored(db) == before
    runs = client.get("/api/v1/runs", params={"since": moment},
                      headers=actors.token(Scope.read))
    assert runs.status_code == 422 and runs.json()["detail"][0]["path"] == "query.since"


def test_duplicate_json_keys_are_422_naming_the_key(client, actors, db) -> None:
    headers = {**actors.token(Scope.runs_write, Scope.read), "Content-Type": "application/json"}
    text = json.dumps(result()).replace('"scenario": "medium"',
                                        '"scenario": "medium", "scenario": "large"')
    before = _stored(db)
    response = client.post("/api/v1/runs", content=text, headers=headers)
    assert response.status_code == 422
    assert response.json()["detail"] == [{"path": "$.scenario", "type": "duplicate_key",
                                          "message": "the key 'scenario' appears twice"}]
    assert _stored(db) == before
    actors.login(client)
    rule = ('{"name": "x", "suite": "echo", "metric": "p99", "op": ">", "threshold": 1, '
            '"series_selector": {"client": "go", "client": "rust"}}')
    refused = client.post("/api/v1/sla-rules", content=rule, headers={
        "Content-Type": "application/json"})
    assert refused.status_code == 422
    assert refused.json()["detail"][0]["path"] == "$.series_selector.client"
    assert client.get("/api/v1/sla-rules").json() == []


@pytest.mark.parametrize("route", ["/api/v1/alerts?offset=-7e10&limit=-371",
                                   "/api/v1/jobs?offset=3.6e25", "/api/v1/runs?limit=0",
                                   "/api/v1/runs?offset=99999999999999999999",
                                   "/api/v1/runs/18446744073709551616",
                                   "/api/v1/compare?baseline=1&candidate=1180591620717411303424"])
def test_absurd_pagination_and_ids_are_422(client, actors, route) -> None:
    response = client.get(route, headers=actors.token(Scope.read))
    assert response.status_code == 422, response.text
    assert all(p["path"].startswith(("query.", "path.")) for p in response.json()["detail"])


@pytest.mark.parametrize("route", ["/api/v1/runs?suite=ec%00ho", "/api/v1/runs?branch=%00",
                                   "/api/v1/trends?suite=echo&scenario=def%00ault",
                                   "/api/v1/runs?x%00=1"])
def test_nul_in_query_parameters_is_422(client, actors, route) -> None:
    response = client.get(route, headers=actors.token(Scope.read))
    assert response.status_code == 422, response.text
    assert response.json()["detail"][0]["path"].startswith("query.")


def test_nul_in_other_bodies_is_422_and_stores_nothing(client, actors) -> None:
    actors.user(email="nul@lab.test")
    login = client.post("/api/v1/auth/login", json={"email": "nul@lab.test\x00",
                                                    "password": PASSWORD})
    assert login.status_code == 422 and login.json()["detail"][0]["path"] == "$.email"
    actors.login(client)
    for route, body, path in [
        ("/api/v1/sla-rules", {"name": "x\x00", "suite": "echo", "metric": "p99", "op": ">",
                               "threshold": 1}, "$.name"),
        ("/api/v1/channels", {"name": "x\x00", "kind": "slack", "url": "https://example.com/"},
         "$.name"),
        ("/api/v1/tokens", {"name": "ci\x00", "scopes": ["read"]}, "$.name"),
        ("/api/v1/jobs", {"suite": "echo", "params": {"count": "1\x00"}}, "$.params"),
        ("/api/v1/jobs", {"suite": "echo", "params": {"count": 2**64}}, "$.params"),
        ("/api/v1/schedules", {"name": "n", "cron": "0 3 * * *\x00", "job": {"suite": "echo"}},
         "$.cron"),
        ("/api/v1/baselines", {"run_id": 2**64}, "$.run_id"),
    ]:
        response = client.post(route, json=body)
        assert response.status_code == 422, (route, response.text)
        assert response.json()["detail"][0]["path"] == path, (route, response.text)
    assert client.get("/api/v1/sla-rules").json() == []
    assert client.get("/api/v1/channels").json() == []
    assert client.get("/api/v1/schedules").json() == []
