"""The dashboard in Debian's Chromium (playwright-core) against the live api and database.

The browser steps live in frontend/tests/e2e/; this test gives them a real stack: a user,
a run submitted through the API, and the api serving the built dashboard.
"""

import os
import subprocess
from pathlib import Path

import httpx

from latlab.models import Role, Scope
from tests.conftest import Actors
from tests.factories import result

FRONTEND = Path(__file__).resolve().parents[2] / "frontend"


def test_sign_in_and_open_a_submitted_run(committed_db, live_server) -> None:
    actors = Actors(committed_db)
    user = actors.user(Role.member, email="e2e@lab.test")
    headers = actors.token(Scope.runs_write)
    committed_db.commit()
    response = httpx.post(f"{live_server}/api/v1/runs", json=result(), headers=headers,
                          timeout=60)
    assert response.status_code == 201, response.text
    assert (FRONTEND / "dist" / "index.html").is_file(), "build the dashboard: make test does"
    completed = subprocess.run(
        ["node", "--test", "tests/e2e/"],
        cwd=FRONTEND,
        env={**os.environ, "LATLAB_URL": live_server, "LATLAB_EMAIL": user.email,
             "LATLAB_PASSWORD": "correct horse battery",
             "LATLAB_RUN_ID": str(response.json()["id"])},
        capture_output=True, text=True, timeout=300, check=False,
    )
    assert completed.returncode == 0, completed.stdout[-4000:] + completed.stderr[-4000:]
