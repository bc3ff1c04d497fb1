"""The audit log in the dashboard (Chromium): changes made through the API, read by an admin
in the Settings page's "Audit log", a page at a time (frontend/tests/e2e/audit.test.mjs,
screenshots)."""

from latlab.models import Role
from tests.browser import assert_built, run_browser
from tests.factories import Actors


def test_an_admin_reads_the_audit_log_in_settings(committed_db, live_server) -> None:
    assert_built()
    client, admin = Actors(committed_db).signed_in(live_server, Role.admin)
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

    run_browser("audit", live_server, email=admin.email, LATLAB_RULE=str(rule["id"]),
                LATLAB_AUDIT_TOTAL=str(total))
