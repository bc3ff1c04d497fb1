"""Triaging alerts in the dashboard (Chromium): the alerts of two commits grouped by commit,
each linking to its run and its trend; one acknowledged with a note, one assigned, and one
commit's alerts resolved at once (frontend/tests/e2e/alerts.test.mjs, screenshots)."""

from sqlalchemy import select

from latlab.models import Alert, AlertState, Role, Scope
from latlab.projects import service as projects
from tests.browser import assert_built, run_browser
from tests.factories import Actors
from tests.test_alerts_triage import breach

NOTE = "bisecting: the pool size change"


def test_alerts_are_triaged_by_commit_in_the_dashboard(committed_db, live_server) -> None:
    assert_built()
    actors = Actors(committed_db)
    client, admin = actors.signed_in(live_server, Role.admin)
    grace = actors.user(Role.member, email="grace@lab.test")
    projects.add_member(committed_db, projects.ensure(committed_db, "default"), grace)
    token = actors.token(Scope.runs_write, Scope.read)
    committed_db.commit()
    for metric in ("p50", "p99"):
        assert client.post("/api/v1/sla-rules", json={
            "name": f"{metric} over 1 ns", "suite": "http-order", "metric": metric, "op": ">",
            "threshold": 1, "unit": "ns"}).status_code == 201
    feature_run = breach(client, token, "aaaa111", "feature", "medium", samples=500)
    main_run = breach(client, token, "bbbb222", "main", "stress", samples=500)

    run_browser("alerts", live_server, email=admin.email, timeout=600,
                LATLAB_FEATURE_RUN_ID=str(feature_run), LATLAB_MAIN_RUN_ID=str(main_run),
                LATLAB_ASSIGNEE=grace.email, LATLAB_NOTE=NOTE)

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
