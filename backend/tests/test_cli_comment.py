"""`latlab submit --comment` in a pull request's CI job (GitHub Actions) and a merge request's
(GitLab CI), against a local GitHub and GitLab that check every request against the forge's
own API description (github_server.py, gitlab_server.py): one comment (note) per request and
suite, updated in place on the next push (found again past a page of other comments), a
status per push whose state follows the verdict (a check run, a commit status); a token the
forge refuses (a fork's, a job token) is said and changes nothing else."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from latlab.models import Scope
from tests.factories import Actors
from tests.github_server import GitHubServer
from tests.gitlab_server import GitLabServer

GOLDEN = Path(__file__).resolve().parents[2] / "workers" / "tests" / "golden" / "adapters"
REPOSITORY, PULL = "trading/orders", 42
PROJECT, MERGE_REQUEST, PIPELINE = "7", 42, 9001
MARKER = "<!-- latlab: suite=zlib-pr -->"


def _event(tmp_path: Path, sha: str) -> Path:
    path = tmp_path / f"event-{sha}.json"
    path.write_text(json.dumps({"pull_request": {"number": PULL, "head": {"sha": sha}}}))
    return path


def _submit(live_server: str, token: str, github: GitHubServer, event: Path, speed: str,
            *extra: str, github_token: str = "ghs_job_token", comment: bool = True
            ) -> subprocess.CompletedProcess[str]:
    return _run(live_server, token, speed, *extra, comment=comment, env={
        "GITHUB_ACTIONS": "true", "GITHUB_TOKEN": github_token,
        "GITHUB_REPOSITORY": REPOSITORY, "GITHUB_API_URL": github.url,
        "GITHUB_EVENT_PATH": str(event), "GITHUB_SHA": "f" * 40})


def _in_gitlab_ci(live_server: str, token: str, gitlab: GitLabServer, sha: str, speed: str,
                  *extra: str, private_token: str | None = "glpat-project-token",
                  merge_request: bool = True, comment: bool = True
                  ) -> subprocess.CompletedProcess[str]:
    """A merge request pipeline's job (or a branch pipeline's, without `merge_request`), with
    GitLab CI's own variables."""
    return _run(live_server, token, speed, *extra, comment=comment, env={
        "GITLAB_CI": "true", "CI_API_V4_URL": f"{gitlab.url}/api/v4",
        "CI_PROJECT_ID": PROJECT, "CI_PROJECT_URL": f"https://gitlab.example.com/{REPOSITORY}",
        "CI_COMMIT_SHA": sha, "CI_PIPELINE_ID": str(PIPELINE), "CI_JOB_TOKEN": gitlab.job_token,
        **({"CI_MERGE_REQUEST_IID": str(MERGE_REQUEST)} if merge_request else {}),
        **({"LATLAB_GITLAB_TOKEN": private_token} if private_token else {})})


def _run(live_server: str, token: str, speed: str, *extra: str, env: dict[str, str],
         comment: bool = True) -> subprocess.CompletedProcess[str]:
    """The CLI as CI runs it: ten trials of the hlog golden output, submitted."""
    logs = [str(GOLDEN / "hlog" / f"python-{speed}-{i}.hlog") for i in range(1, 11)]
    return subprocess.run(
        [sys.executable, "-m", "latlab_cli", "submit", "--url", live_server, "--adapter",
         "hlog", "--suite", "zlib-pr", "--scenario", "ci", *(["--comment"] if comment else []),
         *extra, *logs],
        env={"LATLAB_TOKEN": token, "PATH": "/usr/bin:/bin", **env},
        capture_output=True, text=True, timeout=180, check=False)


def _token(committed_db) -> str:
    token = Actors(committed_db).token(Scope.runs_write, Scope.read)
    committed_db.commit()
    return token["Authorization"].split()[1]


def test_one_comment_per_pull_request_updated_and_a_check_run_per_push(
        committed_db, live_server, github, tmp_path) -> None:
    token = _token(committed_db)
    github.seed_comments(REPOSITORY, PULL, 120)  # latlab's comment will be on page 2
    main = _submit(live_server, token, github, _event(tmp_path, "a" * 40), "fast",
                   "--branch", "main", comment=False)  # main's history, as its CI made it
    assert main.returncode == 0, main.stderr
    first = _submit(live_server, token, github, _event(tmp_path, "b" * 40), "slow",
                    "--branch", "feature", "--fail-on", "regression")
    assert first.returncode == 1, first.stderr  # the verdict fails, posted or not
    assert "comment posted: https://github.com/trading/orders/pull/42#issuecomment-" in (
        first.stderr)
    second = _submit(live_server, token, github, _event(tmp_path, "c" * 40), "fast",
                     "--branch", "feature")
    assert second.returncode == 0, second.stderr
    assert "comment updated: " in second.stderr

    ours = [c for c in github.comments[f"{REPOSITORY}#{PULL}"]
            if c["body"].startswith("<!-- latlab: suite=zlib-pr -->")]
    assert len(ours) == 1, "one comment per pull request and suite, updated in place"
    verdict = second.stderr.split("verdict: ", 1)[1].split()[0]
    assert f"### latlab: {verdict}" in ours[0]["body"]
    assert "- trend: " in ours[0]["body"] and "/trends?suite=zlib-pr" in ours[0]["body"]
    conclusions = {"pass": "success", "fail": "failure"}
    assert [(r["head_sha"][0], r["name"], r["conclusion"]) for r in github.check_runs] == [
        ("b", "latlab: zlib-pr", "failure"),
        ("c", "latlab: zlib-pr", conclusions.get(verdict, "neutral"))]
    assert github.check_runs[1]["details_url"].startswith(f"{live_server}/runs/")
    assert github.refused == [], "every request as GitHub's description has it"


def test_a_forks_read_only_token_is_said_and_the_verdict_stands(
        committed_db, live_server, tmp_path) -> None:
    token = _token(committed_db)
    github = GitHubServer(writable=False)
    try:
        done = _submit(live_server, token, github, _event(tmp_path, "d" * 40), "fast",
                       "--branch", "fork-feature", "--summary", str(tmp_path / "summary.md"))
    finally:
        github.stop()
    assert done.returncode == 0, done.stderr
    assert "could not post the comment: HTTP 403 Resource not accessible by integration" in (
        done.stderr)
    assert "a pull request from a fork gets a read-only token" in done.stderr
    assert (tmp_path / "summary.md").read_text().startswith("### latlab:")
    assert github.comments.get(f"{REPOSITORY}#{PULL}", []) == [] and github.check_runs == []


def test_without_a_token_comment_is_a_usage_error(committed_db, live_server, github,
                                                  tmp_path) -> None:
    token = _token(committed_db)
    done = _submit(live_server, token, github, _event(tmp_path, "e" * 40), "fast",
                   github_token="")
    assert done.returncode == 2
    assert "--comment needs GitHub Actions' GITHUB_TOKEN" in done.stderr
    assert github.requests == []
    assert "http" not in done.stdout, "nothing was submitted"


def test_one_note_per_merge_request_updated_and_a_commit_status_per_push(
        committed_db, live_server, gitlab, tmp_path) -> None:
    token = _token(committed_db)
    gitlab.open_merge_request(PROJECT, MERGE_REQUEST, notes_by_others=120)  # ours on page 2
    main = _in_gitlab_ci(live_server, token, gitlab, "a" * 40, "fast", "--branch", "main",
                         merge_request=False, comment=False)  # main's history, from its CI
    assert main.returncode == 0, main.stderr
    first = _in_gitlab_ci(live_server, token, gitlab, "b" * 40, "slow", "--branch", "feature",
                          "--fail-on", "regression")
    assert first.returncode == 1, first.stderr  # the verdict fails, posted or not
    assert ("note posted: https://gitlab.example.com/trading/orders/-/merge_requests/42#note_"
            in first.stderr)
    assert "commit status failed: latlab: zlib-pr on bbbbbbbbbbbb" in first.stderr
    second = _in_gitlab_ci(live_server, token, gitlab, "c" * 40, "fast", "--branch", "feature")
    assert second.returncode == 0, second.stderr
    assert "note updated: " in second.stderr

    ours = [n for n in gitlab.notes[(PROJECT, MERGE_REQUEST)] if n["body"].startswith(MARKER)]
    assert len(ours) == 1, "one note per merge request and suite, updated in place"
    verdict = second.stderr.split("verdict: ", 1)[1].split()[0]
    assert f"### latlab: {verdict}" in ours[0]["body"]
    assert "/trends?suite=zlib-pr" in ours[0]["body"]
    states = {"pass": "success", "fail": "failed"}
    assert [(s["sha"][0], s["name"], s["status"], s["pipeline_id"])
            for sha in ("b" * 40, "c" * 40) for s in gitlab.statuses[sha]] == [
        ("b", "latlab: zlib-pr", "failed", PIPELINE),
        ("c", "latlab: zlib-pr", states.get(verdict, "skipped"), PIPELINE)]
    assert gitlab.statuses["c" * 40][0]["target_url"].startswith(f"{live_server}/runs/")
    assert gitlab.statuses["c" * 40][0]["description"] == f"latlab: {verdict}"
    assert gitlab.refused == [], "every request as GitLab's description has it"


def test_outside_a_merge_request_only_the_commit_status(committed_db, live_server, gitlab
                                                        ) -> None:
    token = _token(committed_db)
    done = _in_gitlab_ci(live_server, token, gitlab, "d" * 40, "fast", "--branch", "main",
                         merge_request=False)
    assert done.returncode == 0, done.stderr
    assert "not a merge request pipeline: no note, only the commit status" in done.stderr
    assert [s["name"] for s in gitlab.statuses["d" * 40]] == ["latlab: zlib-pr"]
    assert gitlab.notes == {}
    assert gitlab.requests == [("POST", f"/api/v4/projects/{PROJECT}/statuses/{'d' * 40}")]


@pytest.mark.parametrize(("private_token", "writable", "said"), [
    # No LATLAB_GITLAB_TOKEN: the job's own token reads the notes but may write nothing.
    (None, True, "HTTP 401 401 Unauthorized (GitLab lets CI_JOB_TOKEN read notes but neither "
                 "write them nor post commit statuses: set LATLAB_GITLAB_TOKEN"),
    # A project access token with the read_api scope only.
    ("glpat-project-token", False,
     "HTTP 403 The request requires higher privileges than provided by the access token. "
     "(LATLAB_GITLAB_TOKEN needs the api scope"),
], ids=["job-token", "read-api-token"])
def test_a_refused_token_is_said_and_the_verdict_stands(
        committed_db, live_server, tmp_path, private_token, writable, said) -> None:
    token = _token(committed_db)
    gitlab = GitLabServer(writable=writable)
    gitlab.open_merge_request(PROJECT, MERGE_REQUEST)
    try:
        done = _in_gitlab_ci(live_server, token, gitlab, "e" * 40, "fast", "--branch", "feature",
                             "--summary", str(tmp_path / "summary.md"),
                             private_token=private_token)
    finally:
        gitlab.stop()
    assert done.returncode == 0, done.stderr
    assert f"could not post the note: {said}" in done.stderr
    assert f"could not post the commit status: {said}" in done.stderr
    assert "the verdict is in --summary's file" in done.stderr
    assert (tmp_path / "summary.md").read_text().startswith("### latlab:")
    assert gitlab.notes.get((PROJECT, MERGE_REQUEST), []) == [] and gitlab.statuses == {}
    assert ("GET", f"/api/v4/projects/{PROJECT}/merge_requests/{MERGE_REQUEST}/notes") in (
        gitlab.requests), "the notes were read: the token was refused only where it writes"


def test_in_gitlab_ci_without_a_token_comment_is_a_usage_error(committed_db, live_server,
                                                                gitlab) -> None:
    token = _token(committed_db)
    gitlab.job_token = ""
    done = _in_gitlab_ci(live_server, token, gitlab, "f" * 40, "fast", private_token=None)
    assert done.returncode == 2
    assert "--comment in GitLab CI needs CI_API_V4_URL, CI_PROJECT_ID and a token" in done.stderr
    assert gitlab.requests == []
    assert "http" not in done.stdout, "nothing was submitted"
