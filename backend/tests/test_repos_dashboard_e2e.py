"""A team's repository in the dashboard (Chromium; frontend/tests/e2e/repos.test.mjs,
screenshots), on a real lab: the example order server's git repository (conftest's
`orders_repo`: six commits, the fifth slowing every order) registered over file:// in the
browser, a real runner building both commits of a try job launched from the repository's
page, the ingest worker judging head against base."""

import pytest

from latlab.models import Role
from tests.browser import assert_built, run_browser
from tests.factories import PASSWORD, Actors
from tests.test_jobs_e2e import _online

# The try job's reasons (each metric's change, interval and the smallest change it could see)
# come from trials measured side by side: under four labs at once one came out without the
# smallest change it could see (CI of stop 61: "—" where a percentage was expected).
pytestmark = pytest.mark.serial

HOST = "lab-repos"


def test_a_try_job_launched_from_a_repository_page_reads_as_a_comparison(
        committed_db, live_server, member, start_runner, orders_repo) -> None:
    assert_built()
    actors = Actors(committed_db)
    user = actors.user(Role.member, email="e2e-repos@lab.test")
    viewer = actors.user(Role.viewer, email="e2e-repos-viewer@lab.test")
    committed_db.commit()
    [(tag, tagged)] = orders_repo["tags"].items()
    start_runner(HOST)
    _online(member, HOST)

    run_browser("repos", live_server, email=user.email, timeout=900,
                LATLAB_VIEWER_EMAIL=viewer.email, LATLAB_VIEWER_PASSWORD=PASSWORD,
                LATLAB_REPO_URL=f"file://{orders_repo['path']}",
                LATLAB_REPO_COMMITS=",".join(orders_repo["commits"]),
                LATLAB_REPO_BASE=orders_repo["before_slow"],
                LATLAB_REPO_HEAD=orders_repo["slow"], LATLAB_REPO_TAG=f"{tag}={tagged}")

    # What the browser launched is the try job it asked for, measured at both commits.
    [job] = member.get("/api/v1/jobs").json()["items"]
    assert (job["repo"], job["commit"], job["base"]["commit"]) == (
        "orders", orders_repo["slow"], orders_repo["before_slow"])
    run = member.get(f"/api/v1/runs/{job['run_id']}").json()
    assert sorted(s["labels"]["side"] for s in run["series"]) == ["base", "head"]
