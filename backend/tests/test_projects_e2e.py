"""Projects in the dashboard (Chromium): two projects made through the API, a run in each, an
admin switching between them, and a run's URL opened in the other project; a member of both
(not of a third, charlie, with a run of its own) opening a comparison and a trend of the other
project's runs, and links to charlie's run (frontend/tests/e2e/projects.test.mjs, screenshots)."""

from latlab.models import Role
from tests.browser import assert_built, run_browser
from tests.factories import PASSWORD, Actors, result, submit


def test_the_dashboard_switches_between_projects(committed_db, live_server) -> None:
    assert_built()
    client, admin = Actors(committed_db).signed_in(live_server, Role.admin)
    projects, suites, runs = ["alpha", "bravo"], ["alpha-suite", "bravo-suite"], []

    def submit_to(slug: str, suite: str, commit: str) -> str:
        token = client.post("/api/v1/tokens", json={"name": "ci", "scopes": ["runs:write"],
                                                    "project": slug}).json()["token"]
        return str(submit(client, result(suite=suite, commit=commit),
                          {"Authorization": f"Bearer {token}"})["id"])

    for slug in [*projects, "charlie"]:
        assert client.post("/api/v1/projects", json={"slug": slug, "name": slug.title()}
                           ).status_code == 201
    # bravo's first run: the baseline its second is compared with.
    baseline = submit_to("bravo", "bravo-suite", "1a2b3c4")
    for slug, suite in zip(projects, suites, strict=True):
        runs.append(submit_to(slug, suite, "9f1c2e7"))
    outsider = submit_to("charlie", "charlie-suite", "9f1c2e7")
    member = client.post("/api/v1/users", json={
        "email": "member-of-two@lab.test", "password": PASSWORD, "role": "member",
        "projects": projects})
    assert member.status_code == 201, member.text

    run_browser("projects", live_server, email=admin.email, LATLAB_PROJECTS=",".join(projects),
                LATLAB_SUITES=",".join(suites), LATLAB_RUNS=",".join(runs),
                LATLAB_BASELINE_RUN=baseline, LATLAB_MEMBER_EMAIL="member-of-two@lab.test",
                LATLAB_OUTSIDER_RUN=outsider, LATLAB_OUTSIDER_SUITE="charlie-suite")
