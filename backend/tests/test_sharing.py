"""Share links: a member makes a read-only link to a run, a comparison or a trend; anyone with
it reads that view and nothing else, without a login, until it is revoked or expires; a trend's
link has an SVG badge; the page may be framed only by the origins its project names; making
and revoking links is audited, their tokens never."""

import re
from pathlib import Path
from xml.etree import ElementTree

import numpy as np
import pytest
from sqlalchemy import func, select

from latlab.models import AuditEvent, Role, Scope, ShareLink
from tests.factories import result, samples

DIST = Path(__file__).resolve().parents[2] / "frontend" / "dist" / "index.html"
SVG = "{http://www.w3.org/2000/svg}"


def _run(client, headers, **overrides) -> int:
    response = client.post("/api/v1/runs", headers=headers, json=result(**overrides))
    assert response.status_code == 201, response.text
    return int(response.json()["id"])


def _link(client, **body) -> dict:
    made = client.post("/api/v1/share-links", json=body)
    assert made.status_code == 201, made.text
    return dict(made.json())


def test_a_shared_run_is_read_without_a_login_and_shows_only_that(client, actors) -> None:
    actors.login(client)
    headers = actors.token(Scope.runs_write, Scope.read)
    run_id = _run(client, headers)
    other = _run(client, headers, commit="abcdef12")
    link = _link(client, kind="run", run_id=run_id)
    assert link["token"].startswith("lls_") and link["url"].endswith(f"/shared/{link['token']}")
    assert link["badge_url"] is None and link["prefix"] == link["token"][:10]
    as_member = client.get(f"/api/v1/runs/{run_id}").json()
    project = client.get("/api/v1/auth/me").json()["project"]["name"]
    client.cookies.clear()
    shared = client.get(f"/api/v1/shared/{link['token']}")
    assert shared.status_code == 200, shared.text
    body = shared.json()
    assert (body["kind"], body["project"], body["compare"], body["trend"]) == (
        "run", project, None, None)
    assert body["run"] == as_member
    # The holder of the link is no one else: the project's pages still need a login.
    assert client.get(f"/api/v1/runs/{other}").status_code == 401
    assert client.get("/api/v1/share-links").status_code == 401


def test_a_shared_comparison_and_a_trend_with_its_badge(client, actors) -> None:
    actors.login(client)
    headers = actors.token(Scope.runs_write, Scope.read)
    baseline = _run(client, headers, started_at="2026-11-22T09:00:00Z")
    candidate = _run(client, headers, commit="abcdef12")
    compare = _link(client, kind="compare", baseline=baseline, candidate=candidate)
    trend = _link(client, kind="trend", trend={"suite": "http-order", "scenario": "medium",
                                               "labels": {"client": "rust"}})
    assert trend["badge_url"].endswith(f"/api/v1/shared/{trend['token']}/badge.svg")
    verdict = client.get(f"/api/v1/runs/{candidate}").json()["verdict"]
    client.cookies.clear()
    compared = client.get(f"/api/v1/shared/{compare['token']}").json()["compare"]
    assert (compared["baseline"]["id"], compared["candidate"]["id"]) == (baseline, candidate)
    drawn = client.get(f"/api/v1/shared/{trend['token']}").json()["trend"]
    assert [p["run_id"] for p in drawn["points"]] == [baseline, candidate]
    badge = client.get(f"/api/v1/shared/{trend['token']}/badge.svg")
    assert badge.status_code == 200 and badge.headers["content-type"] == "image/svg+xml"
    svg = ElementTree.fromstring(badge.text)
    label, message = [t.text or "" for t in svg.iter(f"{SVG}text")]
    assert label == "http-order p99"
    # The candidate's p99 as numpy reads its samples (nearest rank), to the badge's three
    # digits; then its run's verdict.
    shown = re.fullmatch(r"([\d.]+) (µs|ms) · (\S+)", message)
    assert shown is not None, message
    expected = np.percentile(samples(), 99, method="inverted_cdf")
    value = float(shown.group(1)) * {"µs": 1e3, "ms": 1e6}[shown.group(2)]
    assert value == pytest.approx(expected, rel=0.01), (message, expected)
    assert shown.group(3) == verdict
    assert client.get(f"/api/v1/shared/{compare['token']}/badge.svg").status_code == 404


def test_a_failing_runs_badge_is_red(client, actors) -> None:
    actors.login(client)
    headers = actors.token(Scope.runs_write, Scope.read)
    assert client.post("/api/v1/sla-rules", json={
        "name": "p99 over 1 ns", "suite": "http-order", "metric": "p99", "op": ">",
        "threshold": 1, "unit": "ns"}).status_code == 201
    _run(client, headers)
    trend = _link(client, kind="trend", trend={"suite": "http-order", "scenario": "medium",
                                               "labels": {"client": "rust"}})
    client.cookies.clear()
    svg = ElementTree.fromstring(
        client.get(f"/api/v1/shared/{trend['token']}/badge.svg").text)
    fills = [r.get("fill") for r in svg.iter(f"{SVG}rect")]
    assert fills == ["#555", "#cf222e"]
    assert "fail" in [t.text for t in svg.iter(f"{SVG}text")][1]


@pytest.mark.parametrize(("body", "path"), [
    ({"kind": "run"}, "$"),
    ({"kind": "run", "run_id": 1, "baseline": 2}, "$"),
    ({"kind": "compare", "baseline": 1}, "$"),
    ({"kind": "trend", "trend": {"suite": "Bad Suite", "scenario": "x"}}, "$.trend.suite"),
    ({"kind": "run", "run_id": 1, "expires_at": "2020-01-01T00:00:00Z"}, "$"),
    ({"kind": "page", "run_id": 1}, "$.kind"),
])
def test_a_bad_link_is_refused_and_nothing_stored(client, actors, db, body, path) -> None:
    actors.login(client)
    refused = client.post("/api/v1/share-links", json=body)
    assert refused.status_code == 422, refused.text
    assert path in [p["path"] for p in refused.json()["detail"]]
    assert db.scalar(select(func.count()).select_from(ShareLink)) == 0


def test_a_link_to_nothing_is_refused(client, actors, db) -> None:
    actors.login(client)
    missing = client.post("/api/v1/share-links", json={"kind": "run", "run_id": 999999})
    assert missing.status_code == 404
    no_trend = client.post("/api/v1/share-links", json={
        "kind": "trend", "trend": {"suite": "nothing", "scenario": "here"}})
    assert no_trend.status_code == 404
    assert db.scalar(select(func.count()).select_from(ShareLink)) == 0
    reader = actors.token(Scope.read)
    assert client.post("/api/v1/share-links", headers=reader, json={
        "kind": "run", "run_id": 1}).status_code in (401, 403)


def test_a_revoked_or_expired_link_shows_nothing(client, actors, clock, db) -> None:
    actors.login(client)
    run_id = _run(client, actors.token(Scope.runs_write, Scope.read))
    revoked = _link(client, kind="run", run_id=run_id)
    expiring = _link(client, kind="run", run_id=run_id, expires_at="2026-11-22T13:00:00Z")
    assert client.delete(f"/api/v1/share-links/{revoked['id']}").status_code == 204
    listed = {link["id"]: link for link in client.get("/api/v1/share-links").json()}
    assert listed[revoked["id"]]["revoked_at"] is not None and "token" not in listed[
        revoked["id"]]
    client.cookies.clear()
    assert client.get(f"/api/v1/shared/{revoked['token']}").status_code == 410
    assert client.get(f"/api/v1/shared/{expiring['token']}").status_code == 200
    clock.advance(hours=1)
    gone = client.get(f"/api/v1/shared/{expiring['token']}")
    assert gone.status_code == 410 and "expired" in gone.text
    assert client.get("/api/v1/shared/lls_" + "0" * 32).status_code == 404
    assert client.get("/api/v1/shared/not-a-token").status_code == 422
    made = db.scalars(select(AuditEvent).where(AuditEvent.entity_type == "share_link")
                      .order_by(AuditEvent.id)).all()
    assert [e.action for e in made] == ["create", "create", "update"]
    assert made[0].after is not None and made[0].after["token_hash"] == "[redacted]"


def test_only_the_projects_origins_may_frame_a_shared_page(client, actors) -> None:
    assert DIST.is_file(), "build the dashboard: make test does"
    actors.login(client, Role.admin)
    run_id = _run(client, actors.token(Scope.runs_write, Scope.read))
    link = _link(client, kind="run", run_id=run_id)
    refused = client.put("/api/v1/embed-origins", json={"origins": ["javascript:alert(1)"]})
    assert refused.status_code == 422
    page = client.get(f"/shared/{link['token']}")
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    put = client.put("/api/v1/embed-origins", json={
        "origins": ["https://wiki.example.com", "http://127.0.0.1:8080"]})
    assert put.status_code == 200, put.text
    framed = client.get(f"/shared/{link['token']}")
    assert framed.status_code == 200 and "<div id=\"root\">" in framed.text
    assert ("frame-ancestors https://wiki.example.com http://127.0.0.1:8080"
            in framed.headers["content-security-policy"])
    assert "x-frame-options" not in framed.headers
    other = client.get("/runs")
    assert "frame-ancestors 'none'" in other.headers["content-security-policy"]
    assert other.headers["x-frame-options"] == "DENY"
    member = actors.token(Scope.read)
    assert client.put("/api/v1/embed-origins", headers=member,
                      json={"origins": []}).status_code == 403
