"""A local stand-in for api.github.com: the operations of GitHub's own OpenAPI description that
latlab calls (golden/github, vendored with their version), and no other. Each request is
checked against it — its path and query parameters, its JSON body, a bearer token — and a
request it does not describe is answered 404 and kept in `refused`; each answer is checked
against the description's response schema before it is sent. State is kept as GitHub keeps it:
comments with their ids on each issue (listed in pages of `per_page`, with a `Link` header),
check runs."""

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tests.forge_server import Answer, DescribedServer

DESCRIPTION = Path(__file__).resolve().parent / "golden" / "github" / "api.github.com.subset.json"


def _nullable(schema: Any) -> Any:
    """OpenAPI 3.0's `nullable: true` as JSON Schema's `null` type, all the way down."""
    if isinstance(schema, list):
        return [_nullable(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    converted = {key: _nullable(value) for key, value in schema.items() if key != "nullable"}
    if schema.get("nullable"):
        return {"anyOf": [converted, {"type": "null"}]}
    return converted


class GitHubServer(DescribedServer):
    INVALID = 422

    def __init__(self, token: str = "ghs_job_token", writable: bool = True) -> None:
        self.token, self.writable = token, writable
        self.comments: dict[str, list[dict[str, Any]]] = {}
        self.check_runs: list[dict[str, Any]] = []
        super().__init__(json.loads(DESCRIPTION.read_text())["paths"])

    def seed_comments(self, repository: str, issue: int, count: int) -> None:
        """Other people's comments, before latlab's."""
        for n in range(count):
            self._new_comment(repository, issue, f"comment {n} by someone", "octocat")

    # ---- what GitHub does ----------------------------------------------------------------

    def _new_comment(self, repository: str, issue: int, body: str, login: str) -> dict[str, Any]:
        now = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        number = next(self._ids)
        web = f"https://github.com/{repository}"
        comment = {
            "id": number, "node_id": f"IC_{number}", "body": body,
            "url": f"{self.url}/repos/{repository}/issues/comments/{number}",
            "html_url": f"{web}/pull/{issue}#issuecomment-{number}",
            "issue_url": f"{self.url}/repos/{repository}/issues/{issue}",
            "user": _user(login), "created_at": now, "updated_at": now,
            "author_association": "NONE"}
        self.comments.setdefault(f"{repository}#{issue}", []).append(comment)
        return comment

    def _answer(self, method: str, path: str, match: dict[str, str], query: dict[str, str],
                body: Any) -> Answer:
        repository = f"{match.get('owner')}/{match.get('repo')}"
        if method != "GET" and not self.writable:
            return 403, {"message": "Resource not accessible by integration",
                         "documentation_url": "https://docs.github.com/rest"}, {}
        if path.endswith("/check-runs"):
            number = next(self._ids)
            run = {"id": number, "node_id": f"CR_{number}", "head_sha": body["head_sha"],
                   "name": body["name"], "external_id": body.get("external_id"),
                   "url": f"{self.url}/repos/{repository}/check-runs/{number}",
                   "html_url": f"https://github.com/{repository}/runs/{number}",
                   "details_url": body.get("details_url"), "status": body.get("status",
                                                                               "queued"),
                   "conclusion": body.get("conclusion"), "started_at": None,
                   "completed_at": None, "output": {
                       "title": body.get("output", {}).get("title"),
                       "summary": body.get("output", {}).get("summary"), "text": None,
                       "annotations_count": 0, "annotations_url": f"{self.url}/annotations"},
                   "check_suite": {"id": 1}, "app": None, "pull_requests": []}
            self.check_runs.append(run)
            return 201, run, {}
        if "issue_number" in match:
            key = f"{repository}#{match['issue_number']}"
            if method == "POST":
                return 201, self._new_comment(repository, int(match["issue_number"]),
                                              body["body"], "github-actions[bot]"), {}
            per_page, page = int(query.get("per_page", 30)), int(query.get("page", 1))
            listed = self.comments.get(key, [])
            headers = {}
            if page * per_page < len(listed):
                headers["Link"] = (f'<{self.url}{path}?per_page={per_page}&page={page + 1}>; '
                                   'rel="next"')
            return 200, listed[(page - 1) * per_page:page * per_page], headers
        for comments in self.comments.values():
            for comment in comments:
                if str(comment["id"]) == match["comment_id"]:
                    comment["body"] = body["body"]
                    comment["updated_at"] = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
                    return 200, comment, {}
        return 404, {"message": "Not Found", "documentation_url": ""}, {}

    # ---- where OpenAPI 3 says it --------------------------------------------------------

    def _unauthorized(self, method: str, operation: dict[str, Any], headers: Any) -> str | None:
        return (None if headers.get("Authorization") == f"Bearer {self.token}"
                else "no or another token")

    def _parameter_schema(self, parameter: dict[str, Any]) -> dict[str, Any]:
        schema: dict[str, Any] = _nullable(parameter.get("schema", {}))
        return schema

    def _body_schema(self, operation: dict[str, Any]) -> dict[str, Any] | None:
        if "requestBody" not in operation:
            return None
        schema: dict[str, Any] = _nullable(
            operation["requestBody"]["content"]["application/json"]["schema"])
        return schema

    def _answer_schema(self, operation: dict[str, Any], status: int) -> dict[str, Any] | None:
        described = operation["responses"].get(str(status), {}).get("content", {}).get(
            "application/json", {}).get("schema")
        return None if described is None else _nullable(described)

    def _error(self, status: int, why: str) -> Any:
        return {"message": why, "documentation_url": ""}


def _user(login: str) -> dict[str, Any]:
    base = f"https://api.github.com/users/{login}"
    return {"login": login, "id": 41898282, "node_id": "MDM6Qm90NDE4OTgyODI=",
            "avatar_url": "https://avatars.githubusercontent.com/in/15368?v=4", "gravatar_id": "",
            "url": base, "html_url": f"https://github.com/{login}",
            "followers_url": f"{base}/followers", "following_url": f"{base}/following{{/other}}",
            "gists_url": f"{base}/gists{{/gist_id}}", "starred_url": f"{base}/starred{{/o}}",
            "subscriptions_url": f"{base}/subscriptions", "organizations_url": f"{base}/orgs",
            "repos_url": f"{base}/repos", "events_url": f"{base}/events{{/privacy}}",
            "received_events_url": f"{base}/received_events", "type": "Bot",
            "site_admin": False}
