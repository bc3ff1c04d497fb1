"""A repository's commit URL, through the API: a template with {sha} once in it, kept when it
is an http(s) URL without credentials (a refused one says why, on its field, and stores
nothing), changed or removed by PATCH, and given with the repository's bisections."""

import pytest
from git_servers import git_repository
from sqlalchemy import select

from latlab.bisections.router import bisection_read
from latlab.models import Bisection, Project, Repository
from latlab.repos.schemas import MAX_COMMIT_URL

GITHUB = "https://github.com/team/orders/commit/{sha}"
SHAS = [f"{n}" * 40 for n in (1, 2)]


@pytest.fixture
def member(client, actors):
    actors.login(client)
    return client


@pytest.fixture
def code_url(tmp_path) -> str:
    git_repository(tmp_path / "orders", [{"a": "1"}])
    return f"file://{tmp_path / 'orders'}"


def _register(client, url: str, **body):
    return client.post("/api/v1/repositories", json={"name": "orders", "url": url, **body})


def test_a_commit_url_is_kept_returned_changed_and_removed(member, code_url) -> None:
    created = _register(member, code_url, commit_url=GITHUB)
    assert created.status_code == 201, created.text
    assert created.json()["commit_url"] == GITHUB
    assert member.get("/api/v1/repositories/orders").json()["commit_url"] == GITHUB
    assert member.get("/api/v1/repositories").json()[0]["commit_url"] == GITHUB

    # A PATCH that does not name it keeps it.
    kept = member.patch("/api/v1/repositories/orders", json={"build_network": True})
    assert kept.status_code == 200 and kept.json()["commit_url"] == GITHUB, kept.text
    gitlab = "http://git.example.com:8080/team/orders/-/commit/{sha}?view=parallel#diff"
    changed = member.patch("/api/v1/repositories/orders", json={"commit_url": gitlab})
    assert changed.status_code == 200 and changed.json()["commit_url"] == gitlab, changed.text
    removed = member.patch("/api/v1/repositories/orders", json={"commit_url": None})
    assert removed.status_code == 200 and removed.json()["commit_url"] is None, removed.text
    assert member.get("/api/v1/repositories/orders").json()["commit_url"] is None


def test_a_repository_without_a_commit_url_has_none(member, code_url) -> None:
    created = _register(member, code_url)
    assert created.status_code == 201 and created.json()["commit_url"] is None, created.text


REFUSED = {
    "ftp://example.com/{sha}": "starts with http:// or https://",
    "javascript:alert('{sha}')": "starts with http:// or https://",
    "//github.com/team/orders/commit/{sha}": "starts with http:// or https://",
    "https://github.com/team/orders/commit/": "exactly once",
    "https://github.com/team/orders/commit/{SHA}": "exactly once",
    "https://github.com/{sha}/compare/{sha}": "exactly once",
    "https://github.com/team/{repo}/commit/{sha}": "no braces but its one",
    "https://bot:tok-3f9a@github.com/team/orders/commit/{sha}": "no credentials",
    "https://bot@github.com/team/orders/commit/{sha}": "no credentials",
    "https://{sha}.example.com/": "not its host",
    "https:///team/orders/commit/{sha}": "names a host",
    "https://github.com:port/team/orders/commit/{sha}": "port is a number",
    "https://github.com/team/orders/commit/{sha} ": "no spaces",
    "https://github.com/team orders/commit/{sha}": "no spaces",
    "https://github.com/" + "x" * MAX_COMMIT_URL + "/{sha}": f"at most {MAX_COMMIT_URL}",
}


@pytest.mark.parametrize("template", REFUSED)
def test_a_refused_commit_url_says_why_on_its_field_and_stores_nothing(
        member, code_url, template) -> None:
    refused = _register(member, code_url, commit_url=template)
    assert refused.status_code == 422, refused.text
    [problem] = refused.json()["detail"]
    assert problem["path"] == "$.commit_url", problem
    assert REFUSED[template] in problem["message"], problem
    assert "tok-3f9a" not in refused.text  # what was refused is not echoed back
    assert member.get("/api/v1/repositories").json() == []

    assert _register(member, code_url, commit_url=GITHUB).status_code == 201
    patched = member.patch("/api/v1/repositories/orders",
                           json={"commit_url": template, "build_network": True})
    assert patched.status_code == 422, patched.text
    assert [p["path"] for p in patched.json()["detail"]] == ["$.commit_url"]
    unchanged = member.get("/api/v1/repositories/orders").json()
    assert (unchanged["commit_url"], unchanged["build_network"]) == (GITHUB, False)


def test_a_bisection_gives_its_repositorys_commit_url(db, tmp_path) -> None:
    project = db.scalar(select(Project).where(Project.slug == "default"))
    repository = Repository(project_id=project.id, name="orders", url="file:///srv/orders",
                            default_branch="main", commit_url=GITHUB,
                            created_at=project.created_at)
    db.add(repository)
    db.flush()
    bisection = Bisection(
        project_id=project.id, repository_id=repository.id, repo="orders", suite="s",
        scenario="default", params={}, series={}, metric="p99", host_tags=[],
        repetitions=10, commits=[{"sha": sha, "subject": "s", "author": "a"} for sha in SHAS],
        good=0, bad=1, unbuildable=[], steps=[], status="running",
        created_at=project.created_at)
    db.add(bisection)
    db.flush()
    assert bisection_read(bisection).commit_url == GITHUB
    repository.commit_url = None
    assert bisection_read(bisection).commit_url is None
    db.delete(repository)
    db.flush()
    db.refresh(bisection)  # its repository_id set null by the database
    assert bisection.repository_id is None and bisection_read(bisection).commit_url is None
