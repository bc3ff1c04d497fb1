"""The dashboard in Debian's Chromium (playwright-core) against the whole stack.

The browser steps live in frontend/tests/e2e/; this test gives them a real lab: an admin and a
viewer, a runner worker on a host (so an echo job can run) and the ingest worker, a history
with a step change (for the trend), and a baseline and a candidate whose p99 is 30 % worse
(a `regressed` comparison and an open alert). The api serves the built dashboard.
"""

from typing import Any

import httpx

from latlab.models import Role
from tests.browser import assert_built, run_browser
from tests.conftest import wait_for
from tests.factories import PASSWORD, Actors, one_series, result, submit, tail_trials

HOST = "lab-e2e"


def submitted(client: httpx.Client, trials: list[dict[str, Any]], commit: str, *,
              scenario: str = "medium", branch: str = "main", day: int = 22) -> int:
    """A run of one series (a rust client's) with `trials`, started on `day` of November."""
    document = result(series=one_series(trials, client="rust"),
                      scenario=scenario, commit=commit, branch=branch,
                      started_at=f"2026-11-{day:02d}T10:00:00Z",
                      finished_at=f"2026-11-{day:02d}T10:00:12Z")
    return int(submit(client, document)["id"])


def _honesty_run(client: httpx.Client) -> int:
    """A run that shares no series with its baseline, whose harness counted 950 failed
    requests of 1,000, printed its machine and could not give a p99 (a note says so)."""
    submitted(client, tail_trials(30, n=2, samples=2_000), "cccc333", scenario="honesty")
    failing = tail_trials(31, n=1, samples=2_000)[0]
    failing["failures"] = {"failed": 950, "total": 1000,
                           "detail": "k6 http_req_failed: 95.00 % of 1,000 requests"}
    document = result(series=[{"labels": {"client": "k6"}, "trials": [failing]}],
                      scenario="honesty", commit="dddd444", started_at="2026-11-23T10:00:00Z",
                      finished_at="2026-11-23T10:00:12Z",
                      harness={"context": {"cpu_model": "AMD EPYC 7B13", "cpu_count": 2},
                               "notes": ["k6 printed no p(99): run it with "
                                         "--summary-trend-stats to gate on it"]})
    created = submit(client, document)
    assert created["verdict"] == "fail"  # 95 % failed
    return int(created["id"])


def test_dashboard_walk_through(committed_db, live_server, ingest_worker, start_runner) -> None:
    assert_built()
    actors = Actors(committed_db)
    admin = actors.user(Role.admin, email="e2e-admin@lab.test")
    viewer = actors.user(Role.viewer, email="e2e-viewer@lab.test")
    client = actors.submitter(live_server)

    # A history of `large` with a step change half way, for the trend's change point.
    for day in range(12):
        submitted(client, tail_trials(10 + day, 1.0 if day < 6 else 1.3, n=3, samples=5_000),
                  f"{day:04x}beef", scenario="large", day=day + 1)
    baseline = submitted(client, tail_trials(1), "aaaa111", day=21)
    # Ten trials: enough for the gate to call a regression without a confirmation; the
    # fifth of eleven the runner found disturbed (left out: ten remain).
    candidate_trials = tail_trials(2, tail_factor=1.3, n=11)
    candidate_trials[4]["disturbed"] = (
        "other processes used 1.40 CPUs during it, 0.10 during the series' median trial: "
        "they took CPU time from the programs measured")
    candidate = submitted(client, candidate_trials, "bbbb222", branch="feature")
    compare = client.get("/api/v1/compare",
                         params={"baseline": baseline, "candidate": candidate}).json()
    p99 = next(m for m in compare["series"][0]["metrics"] if m["metric"] == "p99")
    assert p99["verdict"] == "regressed", p99

    honesty = _honesty_run(client)
    start_runner(HOST, tags="local,x86")
    wait_for(lambda: any(h["name"] == HOST and h["online"]
                         for h in client.get("/api/v1/hosts").json()))
    wait_for(lambda: any(s["id"] == "echo" and HOST in s["hosts"]
                         for s in client.get("/api/v1/suites").json()))

    run_browser("dashboard", live_server, email=admin.email, timeout=600,
                LATLAB_VIEWER_EMAIL=viewer.email, LATLAB_VIEWER_PASSWORD=PASSWORD,
                LATLAB_BASELINE_RUN_ID=str(baseline), LATLAB_CANDIDATE_RUN_ID=str(candidate),
                LATLAB_TREND_SCENARIO="large", LATLAB_HOST_NAME=HOST,
                LATLAB_HONESTY_RUN_ID=str(honesty))
