"""Triaging alerts in the dashboard (Chromium): the alerts of two commits grouped by commit,
each linking to its run and its trend; one acknowledged with a note, one assigned, and one
commit's alerts resolved at once (frontend/tests/e2e/alerts.test.mjs, screenshots)."""

import os
import subprocess
from pathlib import Path

import httpx
from sqlalchemy import select

from latlab.models import Alert, AlertState, Role, Scope
from latlab.projects import service as projects
from tests.conftest import Actors
from tests.factories import result

FRONTEND = Path(__file__).resolve().parents[2] / "frontend"
PASSWORD = "correct horse battery"
NOTE = "bisecting: the pool size change"


def _breach(client: httpx.Client, token: dict[str, str], commit: str, branch: str,
            scenario: str) -> int:
    """A run whose two series breach the two rules: four alerts of one commit."""
    series = [{"labels": {"client": name}, "trials": [
        {"latency": {"samples_ns": [300_000 + i for i in range(500)]}}]}
        for name in ("go", "rust")]
    response = client.post("/api/v1/runs", headers=token, json=result(
        series=series, commit=commit, branch=branch, scenario=scenario))
    assert response.status_code == 201, response.text
    return int(response.json()["id"])


def test_alerts_are_triaged_by_commit_in_the_dashboard(committed_db, live_server) -> None:
    assert (FRONTEND / "dist" / "index.html").is_file(), "build the dashboard: make test does"
    actors = Actors(committed_db)
    admin = actors.user(Role.admin)
    grace = actors.user(Role.member, email="grace@lab.test")
    projects.add_member(committed_db, projects.ensure(committed_db, "default"), grace)
    token = actors.token(Scope.runs_write, Scope.read)
    committed_db.commit()

    client = httpx.Client(base_url=live_server, timeout=60)
    assert client.post("/api/v1/auth/login", json={"email": admin.email,
                                                  "password": PASSWORD}).status_code == 200
    for metric in ("p50", "p99"):
        assert client.post("/api/v1/sla-rules", json={
            "name": f"{metric} over 1 ns", "suite": "http-order", "metric": metric, "op": ">",
            "threshold": 1, "unit": "ns"}).status_code == 201
    feature_run = _breach(client, token, "aaaa111", "feature", "medium")
    main_run = _breach(client, token, "bbbb222", "main", "stress")

    completed = subprocess.run(
        ["node", "--test", "tests/e2e/alerts.test.mjs"], cwd=FRONTEND,
        env={**os.environ, "LATLAB_URL": live_server, "LATLAB_EMAIL": admin.email,
             "LATLAB_PASSWORD": PASSWORD, "LATLAB_FEATURE_RUN_ID": str(feature_run),
             "LATLAB_MAIN_RUN_ID": str(main_run), "LATLAB_ASSIGNEE": grace.email,
             "LATLAB_NOTE": NOTE,
             "LATLAB_SCREENSHOT_DIR": str(FRONTEND / "tests" / "e2e" / "screenshots")},
        capture_output=True, text=True, timeout=600, check=False,
    )
    assert completed.returncode == 0, completed.stdout[-6000:] + completed.stderr[-4000:]

    # What the browser did is what the lab stored.
    committed_db.expire_all()
    alerts = list(committed_db.scalars(select(Alert)))
    assert {a.state for a in alerts if a.run_id == feature_run} == {AlertState.resolved}
    assert [(a.note, a.acknowledged_by_id) for a in alerts
            if a.run_id == feature_run and a.note] == [(f"row: {NOTE}", admin.id)]
    on_main = [a for a in alerts if a.run_id == main_run]
    assert sorted(a.state.value for a in on_main) == ["acknowledged", "open", "open", "open"]
    assert [a.note for a in on_main if a.state is AlertState.acknowledged] == [NOTE]
    assert [a.id for a in alerts if a.assignee_id == grace.id] == [
        a.id for a in on_main if a.state is AlertState.acknowledged]
