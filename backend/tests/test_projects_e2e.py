"""Projects in the dashboard (Chromium): two projects made through the API, a run in each, an
admin switching between them, and a run's URL opened in the other project; a member of both
(not of a third, charlie, with a run of its own) opening a comparison and a trend of the other
project's runs, and links to charlie's run (frontend/tests/e2e/projects.test.mjs, screenshots)."""

import os
import subprocess
from pathlib import Path

import httpx

from latlab.models import Role
from tests.conftest import JSON, Actors
from tests.factories import result

FRONTEND = Path(__file__).resolve().parents[2] / "frontend"
PASSWORD = "correct horse battery"


def test_the_dashboard_switches_between_projects(committed_db, live_server) -> None:
    assert (FRONTEND / "dist" / "index.html").is_file(), "build the dashboard: make test does"
    admin = Actors(committed_db).user(Role.admin)
    committed_db.commit()
    client = httpx.Client(base_url=live_server, timeout=60, headers=JSON)
    assert client.post("/api/v1/auth/login", json={"email": admin.email,
                                                   "password": PASSWORD}).status_code == 200
    projects, suites, runs = ["alpha", "bravo"], ["alpha-suite", "bravo-suite"], []

    def submit(slug: str, suite: str, commit: str) -> str:
        token = client.post("/api/v1/tokens", json={"name": "ci", "scopes": ["runs:write"],
                                                    "project": slug}).json()["token"]
        submitted = client.post("/api/v1/runs", json=result(suite=suite, commit=commit),
                                headers={"Authorization": f"Bearer {token}"})
        assert submitted.status_code == 201, submitted.text
        return str(submitted.json()["id"])

    for slug in [*projects, "charlie"]:
        assert client.post("/api/v1/projects", json={"slug": slug, "name": slug.title()}
                           ).status_code == 201
    # bravo's first run: the baseline its second is compared with.
    baseline = submit("bravo", "bravo-suite", "1a2b3c4")
    for slug, suite in zip(projects, suites, strict=True):
        runs.append(submit(slug, suite, "9f1c2e7"))
    outsider = submit("charlie", "charlie-suite", "9f1c2e7")
    member = client.post("/api/v1/users", json={
        "email": "member-of-two@lab.test", "password": PASSWORD, "role": "member",
        "projects": projects})
    assert member.status_code == 201, member.text

    completed = subprocess.run(
        ["node", "--test", "tests/e2e/projects.test.mjs"], cwd=FRONTEND,
        env={**os.environ, "LATLAB_URL": live_server, "LATLAB_EMAIL": admin.email,
             "LATLAB_PASSWORD": PASSWORD, "LATLAB_PROJECTS": ",".join(projects),
             "LATLAB_SUITES": ",".join(suites), "LATLAB_RUNS": ",".join(runs),
             "LATLAB_BASELINE_RUN": baseline, "LATLAB_MEMBER_EMAIL": "member-of-two@lab.test",
             "LATLAB_OUTSIDER_RUN": outsider, "LATLAB_OUTSIDER_SUITE": "charlie-suite",
             "LATLAB_SCREENSHOT_DIR": str(FRONTEND / "tests" / "e2e" / "screenshots")},
        capture_output=True, text=True, timeout=300, check=False,
    )
    assert completed.returncode == 0, completed.stdout[-6000:] + completed.stderr[-4000:]
