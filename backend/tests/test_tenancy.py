"""Two projects made through the API: a caller of project A sees nothing of project B on any
GET route of the OpenAPI document, and cannot touch B's objects."""

import re
from typing import Any

import pytest
from git_servers import git_repository
from sqlalchemy import select

from latlab.models import Bisection, Job, JobStatus, Project, Role
from tests.factories import PASSWORD, result

MARK = "bravo"  # every name in project B carries it; nothing of project A does


@pytest.fixture
def two_projects(client, actors, db, tmp_path) -> dict[str, Any]:
    actors.login(client, Role.admin)
    for slug in ("alpha", MARK):
        assert client.post("/api/v1/projects", json={"slug": slug, "name": slug.title()}
                           ).status_code == 201
    client.patch(f"/api/v1/projects/{MARK}", json={"allow_private_webhooks": True})
    tokens = {slug: {"Authorization": "Bearer " + client.post("/api/v1/tokens", json={
        "name": "ci", "scopes": ["runs:write", "jobs:write", "read"], "project": slug}
    ).json()["token"]} for slug in ("alpha", MARK)}
    alpha_run = client.post("/api/v1/runs", json=result(suite="alpha-suite"),
                            headers=tokens["alpha"]).json()
    client.put("/api/v1/auth/project", json={"project": MARK})
    channel = client.post("/api/v1/channels", json={
        "name": f"{MARK}-channel", "kind": "webhook", "url": "http://127.0.0.1:9/hook"}).json()
    rule = client.post("/api/v1/sla-rules", json={
        "name": f"{MARK}-rule", "suite": f"{MARK}-suite", "metric": "p99", "op": ">",
        "threshold": 1, "unit": "ns"}).json()
    first = client.post("/api/v1/runs", json=result(suite=f"{MARK}-suite"),
                        headers=tokens[MARK]).json()
    second = client.post("/api/v1/runs", json=result(
        suite=f"{MARK}-suite", commit="abcdef12", profiles=[{
            "labels": {"client": "rust"}, "program": "server", "tool": "perf",
            "folded": f"{MARK};secret 5\n"}]), headers=tokens[MARK]).json()
    baseline = client.post("/api/v1/baselines", json={"run_id": first["id"]}).json()
    schedule = client.post("/api/v1/schedules", json={
        "name": f"{MARK}-schedule", "cron": "0 3 * * *", "job": {"suite": f"{MARK}-suite"}})
    assert schedule.status_code == 201, schedule.text
    git_repository(tmp_path / "code", [{"README": "B's code"}])
    repository = client.post("/api/v1/repositories", json={
        "name": f"{MARK}-repo", "url": f"file://{tmp_path / 'code'}"})
    assert repository.status_code == 201, repository.text
    annotation = client.post("/api/v1/annotations", json={
        "text": f"{MARK} deployed", "suite": f"{MARK}-suite", "host": f"{MARK}-host"})
    assert annotation.status_code == 201, annotation.text
    link = client.post("/api/v1/share-links", json={"kind": "trend", "trend": {
        "suite": f"{MARK}-suite", "scenario": "medium", "labels": {"client": "rust"}}})
    assert link.status_code == 201, link.text
    alerts = client.get("/api/v1/alerts").json()["items"]
    assert alerts and all(MARK in a["suite"] for a in alerts)
    project_b = db.scalar(select(Project).where(Project.slug == MARK))
    host_id = client.get("/api/v1/hosts").json()[0]["id"]
    # B's job runs on the lab's one host: A may see the host busy, not with what.
    job = Job(project_id=project_b.id, suite=f"{MARK}-suite", scenario="default", params={},
              host_tags=[], repetitions=1, timeout_s=60, status=JobStatus.running, progress=0,
              attempts=1, host_id=host_id, created_at=project_b.created_at, programs=[])
    db.add(job)
    # B's search for a commit (made as its beat would leave it: a step measuring).
    bisection = Bisection(
        project_id=project_b.id, repo=f"{MARK}-repo", suite=f"{MARK}-suite",
        scenario="default", params={}, series={"client": MARK}, metric="p99", host_tags=[],
        repetitions=10, commits=[{"sha": f"{n}" * 40, "subject": f"{MARK} {n}",
                                  "author": MARK} for n in (1, 2)],
        good=0, bad=1, unbuildable=[], steps=[], status="running",
        created_at=project_b.created_at)
    db.add(bisection)
    db.flush()
    series_id = client.get(f"/api/v1/runs/{second['id']}").json()["series"][0]["id"]
    (profile,) = client.get(f"/api/v1/runs/{second['id']}/profiles").json()
    client.cookies.clear()
    return {"tokens": tokens, "alpha_run": alpha_run["id"], "ids": {
        "run_id": second["id"], "series_id": series_id, "alert_id": alerts[0]["id"],
        "job_id": job.id, "slug": MARK, "host_id": host_id, "channel_id": channel["id"], "index": 0,
        "rule_id": rule["id"], "baseline_id": baseline["id"], "schedule_id": schedule.json()["id"],
        "profile_id": profile["id"], "name": f"{MARK}-repo", "bisection_id": bisection.id,
        "annotation_id": annotation.json()["id"], "link_id": link.json()["id"],
        # A token no link has: a shared page is anyone's who holds its token, and no one's
        # else, whatever project they are in.
        "token": "lls_" + "0" * 32},
        "queries": {"baseline": first["id"], "candidate": second["id"],
                    "suite": f"{MARK}-suite", "scenario": "medium", "series_id": series_id}}


def _walk(client, headers: dict[str, str], found: dict[str, Any]) -> list[str]:
    """Every GET route, aimed at project B's objects; returns what was looked at."""
    spec = client.get("/api/v1/openapi.json").json()
    looked = []
    for path, operations in spec["paths"].items():
        if "get" not in operations:
            continue
        names = re.findall(r"{(\w+)}", path)
        url = path
        for name in names:
            url = url.replace(f"{{{name}}}", str(found["ids"][name]))
        query = {p["name"]: found["queries"][p["name"]]
                 for p in operations["get"].get("parameters", [])
                 if p["in"] == "query" and p.get("required")}
        response = client.get(url, params=query, headers=headers)
        aimed = bool(names) and not path.startswith("/api/v1/hosts")
        # Another project's runs, looked for by their suite: "no run of ...", as no run at all.
        if aimed or path in ("/api/v1/compare", "/api/v1/compare/profiles",
                             "/api/v1/trends/series"):
            assert response.status_code == 404, (path, response.status_code, response.text)
        else:
            assert response.status_code in (200, 403), (path, response.status_code)
            text = response.text  # less what it echoes of the question
            for value in query.values():
                text = text.replace(f'"{value}"', "")
            assert MARK not in text.lower(), (path, response.text[:500])
        looked.append(path)
    return looked


def test_a_token_of_project_a_sees_nothing_of_project_b(client, two_projects) -> None:
    headers = two_projects["tokens"]["alpha"]
    looked = _walk(client, headers, two_projects)
    assert {"/api/v1/runs", "/api/v1/alerts", "/api/v1/sla-rules", "/api/v1/channels",
            "/api/v1/baselines", "/api/v1/schedules", "/api/v1/jobs",
            "/api/v1/alerts/{alert_id}/deliveries", "/api/v1/projects", "/api/v1/bisections",
            "/api/v1/bisections/{bisection_id}", "/api/v1/annotations",
            "/api/v1/share-links"} <= set(looked)
    # The walk is not blind: A's own data is there.
    assert [r["id"] for r in client.get("/api/v1/runs", headers=headers).json()["items"]] == [
        two_projects["alpha_run"]]


def test_a_member_of_project_a_sees_nothing_of_project_b(client, actors, db,
                                                         two_projects) -> None:
    user = actors.login(client, Role.member)
    client.cookies.clear()
    actors.login(client, Role.admin)
    client.patch(f"/api/v1/users/{user.id}", json={"projects": ["alpha"]})
    client.cookies.clear()
    response = client.post("/api/v1/auth/login", json={
        "email": user.email, "password": PASSWORD})
    assert response.json()["project"]["slug"] == "alpha"
    _walk(client, {}, two_projects)
    assert client.put("/api/v1/auth/project", json={"project": MARK}).status_code == 403


def test_project_b_objects_cannot_be_changed_from_project_a(client, actors,
                                                            two_projects) -> None:
    headers = two_projects["tokens"]["alpha"]
    ids = two_projects["ids"]
    for cancel in (f"/api/v1/jobs/{ids['job_id']}/cancel",
                   f"/api/v1/bisections/{ids['bisection_id']}/cancel"):
        assert client.post(cancel, headers=headers).status_code == 404, cancel
    actors.login(client, Role.member)
    client.put("/api/v1/auth/project", json={"project": "default"})
    for method, url in [
        ("POST", f"/api/v1/alerts/{ids['alert_id']}/acknowledge"),
        ("POST", f"/api/v1/alerts/{ids['alert_id']}/resolve"),
        ("POST", f"/api/v1/channels/{ids['channel_id']}/test"),
        ("DELETE", f"/api/v1/channels/{ids['channel_id']}"),
        ("PATCH", f"/api/v1/sla-rules/{ids['rule_id']}"),
        ("DELETE", f"/api/v1/sla-rules/{ids['rule_id']}"),
        ("DELETE", f"/api/v1/baselines/{ids['baseline_id']}"),
        ("DELETE", f"/api/v1/schedules/{ids['schedule_id']}"),
        ("PATCH", f"/api/v1/repositories/{ids['name']}"),
        ("DELETE", f"/api/v1/repositories/{ids['name']}"),
        ("DELETE", f"/api/v1/annotations/{ids['annotation_id']}"),
        ("DELETE", f"/api/v1/share-links/{ids['link_id']}"),
    ]:
        response = client.request(method, url, json={} if method == "PATCH" else None)
        assert response.status_code == 404, (method, url, response.status_code)
    pinned = client.post("/api/v1/baselines", json={"run_id": ids["run_id"]})
    assert pinned.status_code == 404
