"""Dark and light themes, and a phone-wide viewport, in Chromium (frontend/tests/e2e/
themes.test.mjs, screenshots): a lab with a short history of http-order `medium` on main, so
the overview, the runs list, a run, a comparison and a trend each have something to draw."""

from datetime import UTC, datetime, timedelta

from latlab.models import Role
from tests.browser import assert_built, run_browser
from tests.factories import Actors, one_series, result, samples, submit

T0 = datetime(2026, 11, 1, tzinfo=UTC)


def test_themes_and_a_phone_wide_viewport_in_chromium(committed_db, live_server) -> None:
    assert_built()
    actors = Actors(committed_db)
    admin = actors.user(Role.admin, email="themes-admin@lab.test")
    client = actors.submitter(live_server)

    runs = []
    for i in range(4):
        at = T0 + timedelta(hours=i)
        document = result(started_at=at.isoformat(),
                          finished_at=(at + timedelta(seconds=12)).isoformat(),
                          commit=f"c0ffee{i}",
                          series=one_series([{"latency": {"samples_ns": samples(seed=i)},
                                              "metrics": {"throughput": 1000.0 + i}}],
                                            client="rust"))
        runs.append(str(submit(client, document)["id"]))

    run_browser("themes", live_server, email=admin.email, timeout=600,
                LATLAB_RUNS=",".join(runs))
