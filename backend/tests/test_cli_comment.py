"""`latlab submit --comment` in a pull request's CI job, against a local GitHub that checks
every request against GitHub's own OpenAPI description (github_server.py): one comment per
pull request and suite, updated in place on the next push (found again past a page of other
comments), a check run per push whose conclusion follows the verdict; a fork's read-only
token says so and changes nothing else."""

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from latlab.models import Scope
from tests.conftest import Actors
from tests.github_server import GitHubServer

GOLDEN = Path(__file__).resolve().parents[2] / "workers" / "tests" / "golden" / "adapters"
REPOSITORY, PULL = "trading/orders", 42


@pytest.fixture
def github() -> Iterator[GitHubServer]:
    server = GitHubServer()
    yield server
    server.stop()


def _event(tmp_path: Path, sha: str) -> Path:
    path = tmp_path / f"event-{sha}.json"
    path.write_text(json.dumps({"pull_request": {"number": PULL, "head": {"sha": sha}}}))
    return path


def _submit(live_server: str, token: str, github: GitHubServer, event: Path, speed: str,
            *extra: str, github_token: str = "ghs_job_token", comment: bool = True
            ) -> subprocess.CompletedProcess[str]:
    logs = [str(GOLDEN / "hlog" / f"python-{speed}-{i}.hlog") for i in range(1, 11)]
    return subprocess.run(
        [sys.executable, "-m", "latlab_cli", "submit", "--url", live_server, "--adapter",
         "hlog", "--suite", "zlib-pr", "--scenario", "ci", *(["--comment"] if comment else []),
         *extra, *logs],
        env={"LATLAB_TOKEN": token, "PATH": "/usr/bin:/bin", "GITHUB_TOKEN": github_token,
             "GITHUB_REPOSITORY": REPOSITORY, "GITHUB_API_URL": github.url,
             "GITHUB_EVENT_PATH": str(event), "GITHUB_SHA": "f" * 40},
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
