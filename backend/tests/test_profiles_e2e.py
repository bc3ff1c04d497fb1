"""CPU profiles in the dashboard (Chromium): a run's flame graph (zoom, search, the folded
download), and the differential flame graph opened from the compare page, from a confirmation
run and from the alert it confirmed (frontend/tests/e2e/profiles.test.mjs, screenshots)."""

from datetime import UTC, datetime
from typing import Any

from latlab.models import Alert, AlertState, Role, Run, Severity
from tests.browser import assert_built, run_browser
from tests.factories import Actors, result, samples, submit

WHEN = datetime(2026, 11, 22, 10, 0, tzinfo=UTC)

_HANDLER = "order_server::main;order_server::accept_loop;order_server::handle_request"
# The server's stacks: 1000 samples before; after, the same plus 1000 spinning in a new frame.
BEFORE = (f"{_HANDLER};order_server::parse_order 400\n"
          f"{_HANDLER};order_server::match_order 300\n"
          f"{_HANDLER};order_server::send_reply;libc::write 200\n"
          "order_server::main;order_server::accept_loop;libc::epoll_wait 100\n")
AFTER = BEFORE + f"{_HANDLER};order_server::spin_work 1000\n"


def _run(commit: str, folded: str) -> dict[str, Any]:
    return result(series=[{"labels": {"client": "rust"}, "trials": [
        {"latency": {"samples_ns": samples()}, "metrics": {"throughput": 1000.0}}]}],
        commit=commit, profiles=[{"labels": {"client": "rust"}, "program": "server",
                                  "tool": "perf", "frequency_hz": 997, "folded": folded}])


def _confirmation() -> dict[str, Any]:
    """Both versions measured and profiled in one run, as a confirmation does."""
    variants = {"baseline": BEFORE, "candidate": AFTER}
    return result(series=[{"labels": {"client": "rust", "variant": variant}, "trials": [
        {"latency": {"samples_ns": samples()}}]} for variant in variants],
        commit="c0ffee2", profiles=[
            {"labels": {"client": "rust", "variant": variant}, "program": "server",
             "tool": "perf", "folded": folded} for variant, folded in variants.items()])


def test_flame_graphs_zoom_search_and_show_what_grew(committed_db, live_server) -> None:
    assert_built()
    actors = Actors(committed_db)
    viewer = actors.user(Role.member)
    client = actors.submitter(live_server)

    baseline = int(submit(client, _run("c0ffee0", BEFORE))["id"])
    candidate = int(submit(client, _run("c0ffee1", AFTER))["id"])
    confirmation = int(submit(client, _confirmation())["id"])
    # A confirmation is the lab's own run (a job); here its link to the run it confirms is set
    # by hand, with the alert the confirmed regression raised.
    committed_db.get_one(Run, confirmation).confirms_run_id = candidate
    alert = Alert(project_id=committed_db.get_one(Run, candidate).project_id,
                  source="regression", history_key=f"profiles-e2e-{candidate}",
                  kind="regression", severity=Severity.critical, state=AlertState.open,
                  suite="http-order", scenario="medium", series_labels={"client": "rust"},
                  metric="p99", unit="ns", message="p99 regressed (confirmed)",
                  run_id=candidate, baseline_run_id=baseline, confirmation_run_id=confirmation,
                  occurrences=1, opened_at=WHEN, updated_at=WHEN)
    committed_db.add(alert)
    committed_db.commit()

    listed = client.get(f"/api/v1/runs/{candidate}/profiles").json()
    assert [(p["program"], p["samples"]) for p in listed] == [("server", 2000)], listed
    compared = client.get("/api/v1/compare/profiles",
                          params={"baseline": baseline, "candidate": candidate}).json()
    assert compared["profiles"][0]["frames"][0]["frame"] == "order_server::spin_work"

    run_browser("profiles", live_server, email=viewer.email, timeout=600,
                LATLAB_BASELINE_RUN_ID=str(baseline), LATLAB_CANDIDATE_RUN_ID=str(candidate),
                LATLAB_CONFIRMATION_RUN_ID=str(confirmation), LATLAB_ALERT_ID=str(alert.id))
