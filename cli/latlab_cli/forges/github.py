"""GitHub: the comment is an issue comment on the pull request, the status a check run.

GitHub Actions gives what it needs: `GITHUB_TOKEN` (the job's, with `pull-requests: write`
and `checks: write`; or `LATLAB_GITHUB_TOKEN`), `GITHUB_REPOSITORY`, `GITHUB_API_URL`,
`GITHUB_EVENT_PATH` (the pull request's number and head commit) and `GITHUB_SHA`. A pull
request from a fork gets a token that may not write: what could not be posted is said, and
the submission's exit status is the verdict's, as without `--comment`."""

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from latlab_cli.errors import CliError
from latlab_cli.forges.shared import Forge, find_marked, marked, marker, status_name

# A check run's conclusion for each verdict: a failed gate fails the check.
CONCLUSIONS = {"pass": "success", "fail": "failure"}
LIMIT = 65_535  # GitHub's longest comment body and check run summary


@dataclass(frozen=True)
class GitHub(Forge):
    repository: str

    OUTSIDE = "not a pull request: no comment, only the check run"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> "GitHub":
        token = environ.get("LATLAB_GITHUB_TOKEN") or environ.get("GITHUB_TOKEN")
        repository = environ.get("GITHUB_REPOSITORY")
        if not token or not repository:
            raise CliError("--comment needs GitHub Actions' GITHUB_TOKEN and GITHUB_REPOSITORY "
                           "(or LATLAB_GITHUB_TOKEN), or GitLab CI (GITLAB_CI)")
        event = _event(environ.get("GITHUB_EVENT_PATH"))
        pull = event.get("pull_request") or {}
        number = pull.get("number")
        return cls(api=environ.get("GITHUB_API_URL", "https://api.github.com").rstrip("/"),
                   repository=repository, token=token,
                   sha=(pull.get("head") or {}).get("sha") or environ.get("GITHUB_SHA", ""),
                   review=number if isinstance(number, int) else None)

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}", "Accept": "application/vnd.github+json",
                "X-GitHub-Api-Version": "2022-11-28"}

    def refused(self) -> str:
        return ("a pull request from a fork gets a read-only token: the verdict is in the "
                "job's summary, --summary")

    def comment(self, client: httpx.Client, suite: str, markdown: str) -> str:
        comments = f"/repos/{self.repository}/issues/{self.review}/comments"
        found, listed = find_marked(client, comments, {"per_page": 100}, marker(suite))
        if not listed.is_success:
            return self.failed("read the pull request's comments", listed)
        body = {"body": marked(suite, markdown, LIMIT)}
        if found is not None:
            answer = client.patch(f"/repos/{self.repository}/issues/comments/{found['id']}",
                                  json=body)
            return (f"comment updated: {answer.json()['html_url']}"
                    if answer.status_code == 200 else self.failed("update the comment", answer))
        answer = client.post(comments, json=body)
        return (f"comment posted: {answer.json()['html_url']}" if answer.status_code == 201
                else self.failed("post the comment", answer))

    def status(self, client: httpx.Client, suite: str, verdict: str | None, markdown: str,
               details_url: str) -> str:
        conclusion = CONCLUSIONS.get(verdict or "", "neutral")
        answer = client.post(f"/repos/{self.repository}/check-runs", json={
            "name": status_name(suite), "head_sha": self.sha, "status": "completed",
            "conclusion": conclusion, "details_url": details_url,
            "output": {"title": f"latlab: {verdict or 'not judged'}",
                       "summary": markdown[:LIMIT]}})
        return (f"check run {conclusion}: {answer.json()['html_url']}"
                if answer.status_code == 201 else self.failed("create the check run", answer))


def _event(path: str | None) -> dict[str, Any]:
    if not path:
        return {}
    try:
        event = json.loads(Path(path).read_text())
    except (OSError, ValueError) as error:
        raise CliError(f"cannot read GITHUB_EVENT_PATH {path}: {error}") from error
    return event if isinstance(event, dict) else {}
