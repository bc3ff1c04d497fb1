"""Dark and light themes, and a phone-wide viewport, in Chromium (frontend/tests/e2e/
themes.test.mjs, screenshots): a lab with a short history of http-order `medium` on main, so
the overview, the runs list, a run, a comparison and a trend each have something to draw."""

import os
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx

from latlab.models import Role, Scope
from tests.conftest import Actors
from tests.factories import result, samples

FRONTEND = Path(__file__).resolve().parents[2] / "frontend"
PASSWORD = "correct horse battery"
T0 = datetime(2026, 11, 1, tzinfo=UTC)


def test_themes_and_a_phone_wide_viewport_in_chromium(committed_db, live_server) -> None:
    assert (FRONTEND / "dist" / "index.html").is_file(), "build the dashboard: make test does"
    actors = Actors(committed_db)
    admin = actors.user(Role.admin, email="themes-admin@lab.test")
    token = actors.token(Scope.runs_write, Scope.read)
    committed_db.commit()
    client = httpx.Client(base_url=live_server, timeout=60, headers=token)

    runs = []
    for i in range(4):
        at = T0 + timedelta(hours=i)
        document = result(started_at=at.isoformat(),
                          finished_at=(at + timedelta(seconds=12)).isoformat(),
                          commit=f"c0ffee{i}",
                          series=[{"labels": {"client": "rust"},
                                   "trials": [{"latency": {"samples_ns": samples(seed=i)},
                                               "metrics": {"throughput": 1000.0 + i}}]}])
        response = client.post("/api/v1/runs", json=document)
        assert response.status_code == 201, response.text
        runs.append(str(response.json()["id"]))

    completed = subprocess.run(
        ["node", "--test", "tests/e2e/themes.test.mjs"], cwd=FRONTEND,
        env={**os.environ, "LATLAB_URL": live_server, "LATLAB_EMAIL": admin.email,
             "LATLAB_PASSWORD": PASSWORD, "LATLAB_RUNS": ",".join(runs),
             "LATLAB_SCREENSHOT_DIR": str(FRONTEND / "tests" / "e2e" / "screenshots")},
        capture_output=True, text=True, timeout=600, check=False,
    )
    assert completed.returncode == 0, completed.stdout[-6000:] + completed.stderr[-4000:]
