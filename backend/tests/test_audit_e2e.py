"""The audit log in the dashboard (Chromium): changes made through the API, read by an admin
in the Settings page's "Audit log", a page at a time (frontend/tests/e2e/audit.test.mjs,
screenshots)."""

import os
import subprocess
from pathlib import Path

import httpx

from latlab.models import Role
from tests.conftest import JSON, Actors

FRONTEND = Path(__file__).resolve().parents[2] / "frontend"
PASSWORD = "correct horse battery"


def test_an_admin_reads_the_audit_log_in_settings(committed_db, live_server) -> None:
    assert (FRONTEND / "dist" / "index.html").is_file(), "build the dashboard: make test does"
    admin = Actors(committed_db).user(Role.admin)
    committed_db.commit()
    client = httpx.Client(base_url=live_server, timeout=60, headers=JSON)
    assert client.post("/api/v1/auth/login", json={"email": admin.email,
                                                   "password": PASSWORD}).status_code == 200
    for index in range(22):  # more than a page (20)
        assert client.post("/api/v1/tokens", json={"name": f"ci-{index}", "scopes": ["read"]}
                           ).status_code == 201
    rule = client.post("/api/v1/sla-rules", json={
        "name": "p99", "suite": "http-order", "metric": "p99", "op": ">", "threshold": 2,
        "unit": "ms", "severity": "critical"}).json()
    assert client.patch(f"/api/v1/sla-rules/{rule['id']}", json={"threshold": 3}
                        ).status_code == 200
    # Also the fixtures' own changes (the admin made, the default project), by "system".
    total = client.get("/api/v1/audit").json()["total"]
    assert 24 <= total <= 30

    completed = subprocess.run(
        ["node", "--test", "tests/e2e/audit.test.mjs"], cwd=FRONTEND,
        env={**os.environ, "LATLAB_URL": live_server, "LATLAB_EMAIL": admin.email,
             "LATLAB_PASSWORD": PASSWORD, "LATLAB_RULE": str(rule["id"]),
             "LATLAB_AUDIT_TOTAL": str(total),
             "LATLAB_SCREENSHOT_DIR": str(FRONTEND / "tests" / "e2e" / "screenshots")},
        capture_output=True, text=True, timeout=300, check=False,
    )
    assert completed.returncode == 0, completed.stdout[-6000:] + completed.stderr[-4000:]
