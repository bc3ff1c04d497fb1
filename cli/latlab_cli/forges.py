"""The verdict where the pull request is: one comment per pull request and suite, updated in
place on every push (found again by the marker on its first line), and a check run whose
conclusion follows the verdict, so branch protection can require it.

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

# A check run's conclusion for each verdict: a failed gate fails the check.
CONCLUSIONS = {"pass": "success", "fail": "failure"}
LIMIT = 65_535  # GitHub's longest comment body and check run summary


@dataclass(frozen=True)
class GitHub:
    api: str
    repository: str
    token: str
    sha: str
    pull_request: int | None

    @classmethod
    def from_env(cls, environ: Mapping[str, str] = os.environ) -> "GitHub":
        token = environ.get("LATLAB_GITHUB_TOKEN") or environ.get("GITHUB_TOKEN")
        repository = environ.get("GITHUB_REPOSITORY")
        if not token or not repository:
            raise CliError("--comment needs GitHub Actions' GITHUB_TOKEN and GITHUB_REPOSITORY "
                           "(or LATLAB_GITHUB_TOKEN)")
        event = _event(environ.get("GITHUB_EVENT_PATH"))
        pull = event.get("pull_request") or {}
        number = pull.get("number")
        return cls(api=environ.get("GITHUB_API_URL", "https://api.github.com").rstrip("/"),
                   repository=repository, token=token,
                   sha=(pull.get("head") or {}).get("sha") or environ.get("GITHUB_SHA", ""),
                   pull_request=number if isinstance(number, int) else None)

    def post(self, suite: str, verdict: str | None, markdown: str, details_url: str
             ) -> list[str]:
        """The comment (on a pull request) and the check run (on its head commit); what was
        done, or why not, a line each."""
        said = []
        with httpx.Client(base_url=self.api, timeout=30, headers={
                "Authorization": f"Bearer {self.token}",
                "Accept": "application/vnd.github+json",
                "X-GitHub-Api-Version": "2022-11-28"}) as client:
            try:
                if self.pull_request is None:
                    said.append("not a pull request: no comment, only the check run")
                else:
                    said.append(self._comment(client, suite, markdown))
                if self.sha:
                    said.append(self._check(client, suite, verdict, markdown, details_url))
            except httpx.HTTPError as error:
                said.append(f"could not reach {self.api}: {type(error).__name__}: {error}")
        return said

    def _comment(self, client: httpx.Client, suite: str, markdown: str) -> str:
        marker = f"<!-- latlab: suite={suite} -->"
        body = f"{marker}\n{markdown}"[:LIMIT]
        comments = f"/repos/{self.repository}/issues/{self.pull_request}/comments"
        found = None
        url: str | None = comments
        params: dict[str, Any] | None = {"per_page": 100}
        while url and found is None:
            listed = client.get(url, params=params)
            if listed.status_code != 200:
                return _failed("read the pull request's comments", listed)
            found = next((c for c in listed.json()
                          if (c.get("body") or "").startswith(marker)), None)
            url, params = listed.links.get("next", {}).get("url"), None
        if found is not None:
            answer = client.patch(f"/repos/{self.repository}/issues/comments/{found['id']}",
                                  json={"body": body})
            return (f"comment updated: {answer.json()['html_url']}"
                    if answer.status_code == 200 else _failed("update the comment", answer))
        answer = client.post(comments, json={"body": body})
        return (f"comment posted: {answer.json()['html_url']}" if answer.status_code == 201
                else _failed("post the comment", answer))

    def _check(self, client: httpx.Client, suite: str, verdict: str | None, markdown: str,
               details_url: str) -> str:
        conclusion = CONCLUSIONS.get(verdict or "", "neutral")
        answer = client.post(f"/repos/{self.repository}/check-runs", json={
            "name": f"latlab: {suite}", "head_sha": self.sha, "status": "completed",
            "conclusion": conclusion, "details_url": details_url,
            "output": {"title": f"latlab: {verdict or 'not judged'}",
                       "summary": markdown[:LIMIT]}})
        return (f"check run {conclusion}: {answer.json()['html_url']}"
                if answer.status_code == 201 else _failed("create the check run", answer))


def _event(path: str | None) -> dict[str, Any]:
    if not path:
        return {}
    try:
        event = json.loads(Path(path).read_text())
    except (OSError, ValueError) as error:
        raise CliError(f"cannot read GITHUB_EVENT_PATH {path}: {error}") from error
    return event if isinstance(event, dict) else {}


def _failed(what: str, answer: httpx.Response) -> str:
    try:
        message = answer.json().get("message", "")
    except ValueError:
        message = answer.text[:200]
    fork = (" (a pull request from a fork gets a read-only token: the verdict is in the "
            "job's summary, --summary)" if answer.status_code in (401, 403) else "")
    return f"could not {what}: HTTP {answer.status_code} {message}{fork}"
