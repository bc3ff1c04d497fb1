"""Trends, the gate's evidence and its settings in the dashboard (Chromium): a history of main
with an older params set (on an older kernel: the lab marks the upgrade), seven runs of main
submitted with one `started_at`, a slower run of a feature branch, and a deploy marked by CI
(frontend/tests/e2e/trends.test.mjs, screenshots)."""

import os
import subprocess
from pathlib import Path

import httpx
import numpy as np

from latlab.models import Role, Scope
from tests.conftest import Actors
from tests.factories import result

FRONTEND = Path(__file__).resolve().parents[2] / "frontend"
PASSWORD = "correct horse battery"
PARAMS = {"orders": 1000, "connections": 50}


def _submit(client: httpx.Client, index: int, started_at: str, *, level: float = 1.0,
            branch: str = "main", params: dict[str, int] | None = None,
            kernel: str = "6.14.0") -> int:
    trials = []
    for trial in range(3):
        rng = np.random.default_rng(index * 10 + trial)
        trials.append({"latency": {"samples_ns": [int(v) for v in rng.lognormal(
            np.log(350_000 * level), 0.2, 3000)]},
            "metrics": {"throughput": float(rng.normal(100_000 / level, 300))}})
    document = result(series=[{"labels": {"client": "rust"}, "trials": trials}],
                      branch=branch, commit=f"{index:04x}c0ffee", params=params or PARAMS,
                      started_at=started_at, finished_at=started_at.replace(":00Z", ":30Z"))
    document["host"]["fingerprint"]["kernel"] = kernel
    response = client.post("/api/v1/runs", json=document)
    assert response.status_code == 201, response.text
    return int(response.json()["id"])


def test_trends_draw_one_history_and_a_point_opens_its_run(committed_db, live_server) -> None:
    assert (FRONTEND / "dist" / "index.html").is_file(), "build the dashboard: make test does"
    actors = Actors(committed_db)
    admin = actors.user(Role.admin)
    token = actors.token(Scope.runs_write, Scope.read)
    committed_db.commit()
    client = httpx.Client(base_url=live_server, timeout=60, headers=token)

    for index in range(3):  # an older history of main with other params
        _submit(client, index, f"2026-11-0{1 + index}T09:00:00Z",
                params={"orders": 1000, "connections": 200}, kernel="6.1.0")
    for index in range(8):
        _submit(client, 10 + index, f"2026-11-{10 + index}T10:00:00Z")
    # Seven runs of main started in the same second (a CI matrix, a retried job).
    same_second = [_submit(client, 20 + index, "2026-11-20T10:00:00Z") for index in range(7)]
    feature = _submit(client, 30, "2026-11-21T10:00:00Z", level=1.3, branch="feature")
    latest = _submit(client, 31, "2026-11-22T10:00:00Z")
    deploy = client.post("/api/v1/annotations", json={
        "text": "deployed orders 2.4", "suite": "http-order", "at": "2026-11-15T12:00:00Z",
        "link": "https://ci.example.com/deploys/812"})
    assert deploy.status_code == 201, deploy.text
    run = client.get(f"/api/v1/runs/{latest}").json()
    assert {e["metric"] for e in run["gate_evidence"]} == {"p99", "throughput"}, run

    completed = subprocess.run(
        ["node", "--test", "tests/e2e/trends.test.mjs"], cwd=FRONTEND,
        env={**os.environ, "LATLAB_URL": live_server, "LATLAB_EMAIL": admin.email,
             "LATLAB_PASSWORD": PASSWORD,
             "LATLAB_SAME_SECOND_RUN_IDS": ",".join(map(str, same_second)),
             "LATLAB_FEATURE_RUN_ID": str(feature), "LATLAB_LATEST_RUN_ID": str(latest),
             "LATLAB_SCREENSHOT_DIR": str(FRONTEND / "tests" / "e2e" / "screenshots")},
        capture_output=True, text=True, timeout=600, check=False,
    )
    assert completed.returncode == 0, completed.stdout[-6000:] + completed.stderr[-4000:]
