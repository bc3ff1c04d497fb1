"""A local stand-in for api.github.com: the operations of GitHub's own OpenAPI description that
latlab calls (golden/github, vendored with their version), and no other. Each request is
checked against it — its path and query parameters, its JSON body, a bearer token — and a
request it does not describe is answered 404 and kept in `refused`; each answer is checked
against the description's response schema before it is sent. State is kept as GitHub keeps it:
comments with their ids on each issue (listed in pages of `per_page`, with a `Link` header),
check runs."""

import copy
import json
import re
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import jsonschema

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


def _operations() -> Iterator[tuple[str, re.Pattern[str], dict[str, Any]]]:
    paths = json.loads(DESCRIPTION.read_text())["paths"]
    for template, methods in paths.items():
        pattern = re.compile("^" + re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", template) + "$")
        for method, operation in methods.items():
            yield method.upper(), pattern, operation


class GitHubServer:
    def __init__(self, token: str = "ghs_job_token", writable: bool = True) -> None:
        self.token, self.writable = token, writable
        self.operations = list(_operations())
        self.comments: dict[str, list[dict[str, Any]]] = {}
        self.check_runs: list[dict[str, Any]] = []
        self.requests: list[tuple[str, str]] = []
        self.refused: list[str] = []
        self._ids = iter(range(1000, 10**9))
        self._lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

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
                body: Any) -> tuple[int, Any, dict[str, str]]:
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

    # ---- checked against the description -------------------------------------------------

    def _handle(self, method: str, target: str, headers: Any, raw: bytes
                ) -> tuple[int, Any, dict[str, str]]:
        split = urlsplit(target)
        query = {k: v[-1] for k, v in parse_qs(split.query).items()}
        found = [(operation, m.groupdict()) for verb, pattern, operation in self.operations
                 if verb == method and (m := pattern.match(split.path))]
        if not found:
            return self._refuse(f"{method} {split.path}: no such operation", 404)
        operation, match = found[0]
        if headers.get("Authorization") != f"Bearer {self.token}":
            return self._refuse(f"{method} {split.path}: no or another token", 401)
        for parameter in operation.get("parameters", []):
            value = (match if parameter["in"] == "path" else query).get(parameter["name"])
            if parameter["in"] not in ("path", "query"):
                continue
            if value is None:
                if parameter.get("required"):
                    return self._refuse(f"{parameter['name']} missing", 422)
                continue
            schema = _nullable(parameter.get("schema", {}))
            typed: Any = int(value) if schema.get("type") == "integer" and value.isdigit() \
                else value
            try:
                jsonschema.validate(typed, schema)
            except jsonschema.ValidationError as error:
                return self._refuse(f"{parameter['name']}: {error.message}", 422)
        body = None
        if "requestBody" in operation:
            try:
                body = json.loads(raw or b"null")
                schema = operation["requestBody"]["content"]["application/json"]["schema"]
                jsonschema.validate(body, _nullable(schema))
            except (ValueError, jsonschema.ValidationError) as error:
                return self._refuse(f"{method} {split.path}: body: {error}", 422)
        with self._lock:
            self.requests.append((method, split.path))
            status, answer, extra = self._answer(method, split.path, match, query, body)
        described = operation["responses"].get(str(status), {}).get("content", {}).get(
            "application/json", {}).get("schema")
        if described is not None:
            jsonschema.validate(copy.deepcopy(answer), _nullable(described))
        return status, answer, extra

    def _refuse(self, why: str, status: int) -> tuple[int, Any, dict[str, str]]:
        self.refused.append(why)
        return status, {"message": why, "documentation_url": ""}, {}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def _serve(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                status, answer, extra = server._handle(self.command, self.path, self.headers, raw)
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                self.send_header("Content-Length", str(len(data)))
                for name, value in extra.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            do_GET = do_POST = do_PATCH = _serve

            def log_message(self, *args: Any) -> None:
                pass

        return Handler


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
