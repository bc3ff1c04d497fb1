"""Trends, the gate's evidence and its settings in the dashboard (Chromium): a history of main
with an older params set (on an older kernel: the lab marks the upgrade), seven runs of main
submitted with one `started_at`, a slower run of a feature branch, and a deploy marked by CI
(frontend/tests/e2e/trends.test.mjs, screenshots)."""

import httpx
import numpy as np

from latlab.models import Role
from tests.browser import assert_built, run_browser
from tests.factories import Actors, one_series, result, submit, trial

PARAMS = {"orders": 1000, "connections": 50}


def _submit(client: httpx.Client, index: int, started_at: str, *, level: float = 1.0,
            branch: str = "main", params: dict[str, int] | None = None,
            kernel: str = "6.14.0") -> int:
    trials = [trial(np.random.default_rng(index * 10 + number), 350_000 * level, n=3000,
                    throughput=(100_000 / level, 300)) for number in range(3)]
    document = result(series=one_series(trials, client="rust"),
                      branch=branch, commit=f"{index:04x}c0ffee", params=params or PARAMS,
                      started_at=started_at, finished_at=started_at.replace(":00Z", ":30Z"))
    document["host"]["fingerprint"]["kernel"] = kernel
    return int(submit(client, document)["id"])


def test_trends_draw_one_history_and_a_point_opens_its_run(committed_db, live_server) -> None:
    assert_built()
    actors = Actors(committed_db)
    admin = actors.user(Role.admin)
    client = actors.submitter(live_server)

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

    run_browser("trends", live_server, email=admin.email, timeout=600,
                LATLAB_SAME_SECOND_RUN_IDS=",".join(map(str, same_second)),
                LATLAB_FEATURE_RUN_ID=str(feature), LATLAB_LATEST_RUN_ID=str(latest))
