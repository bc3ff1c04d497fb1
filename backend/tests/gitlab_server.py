"""A local stand-in for gitlab.com's REST API: the operations of GitLab's own OpenAPI v2
description that latlab calls, and of its source where that description has none
(golden/gitlab, vendored with their commits), and no other. Each request is checked against
them (forge_server.py): its path and query parameters, its JSON body, a token. The token is
taken as GitLab takes it: PRIVATE-TOKEN (a project access token) anywhere, JOB-TOKEN (the
job's CI_JOB_TOKEN) only where GitLab lets a job token in, which of these routes is reading a
merge request's notes. State is kept as GitLab keeps it: notes with their ids on each merge
request (listed in pages of `per_page`, oldest first with `sort=asc`, with a `Link` header;
a PUT changes the note in place), commit statuses on each commit."""

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from tests.forge_server import Answer, DescribedServer

DESCRIPTION = Path(__file__).resolve().parent / "golden" / "gitlab" / "gitlab.com.subset.json"
# lib/api/notes.rb lets a job token read a merge request's notes and no more
# (lib/api/helpers/notes_helpers.rb: "Job tokens are restricted to read-only operations");
# lib/api/commit_statuses.rb takes none.
JOB_TOKEN_ALLOWED = {"getApiV4ProjectsIdMergeRequestsNoteableIdNotes"}
NOTE_LIMIT = 1_000_000  # Notes::ActiveRecord: length maximum Gitlab::Database::MAX_TEXT_SIZE_LIMIT
DESCRIPTION_LIMIT = 255  # commit_statuses.rb: "Must be 255 characters or fewer."
# The keys of a Swagger 2.0 path or query parameter that are JSON Schema.
_SCHEMA_KEYS = ("type", "format", "enum", "items", "minimum", "maximum", "pattern")


class GitLabServer(DescribedServer):
    INVALID = 400  # Grape's answer to a parameter it does not take

    def __init__(self, token: str = "glpat-project-token", job_token: str = "glcbt-job-token",
                 writable: bool = True) -> None:
        self.token, self.job_token, self.writable = token, job_token, writable
        description = json.loads(DESCRIPTION.read_text())
        self.definitions: dict[str, Any] = description["definitions"]
        self.merge_requests: dict[tuple[str, int], int] = {}  # (project, iid): its id
        self.notes: dict[tuple[str, int], list[dict[str, Any]]] = {}
        self.statuses: dict[str, list[dict[str, Any]]] = {}  # by commit sha
        super().__init__(description["paths"])

    def open_merge_request(self, project: str, iid: int, notes_by_others: int = 0) -> None:
        """A merge request, with other people's notes (and GitLab's own) before latlab's."""
        self.merge_requests[(project, iid)] = next(self._ids)
        for n in range(notes_by_others):
            self._new_note(project, iid, "added 1 commit" if n % 10 == 0
                           else f"note {n} by someone", "janedoe", system=n % 10 == 0)

    # ---- what GitLab does ----------------------------------------------------------------

    def _new_note(self, project: str, iid: int, body: str, username: str,
                  system: bool = False) -> dict[str, Any]:
        now = _now()
        note = {"id": next(self._ids), "type": None, "body": body, "attachment": None,
                "author": _user(username), "created_at": now, "updated_at": now,
                "system": system, "noteable_id": self.merge_requests[(project, iid)],
                "noteable_type": "MergeRequest", "project_id": int(project),
                "resolvable": False, "confidential": False, "internal": False,
                "imported": False, "imported_from": "none", "noteable_iid": iid,
                "commands_changes": {}}
        self.notes.setdefault((project, iid), []).append(note)
        return note

    def _answer(self, method: str, path: str, match: dict[str, str], query: dict[str, str],
                body: Any) -> Answer:
        if method != "GET" and not self.writable:  # a token with the read_api scope only
            return 403, {"error": "insufficient_scope",
                         "error_description": "The request requires higher privileges than "
                                             "provided by the access token.",
                         "scope": "api"}, {}
        project = match["id"]
        if "sha" in match:
            return self._status(project, match["sha"], body)
        iid = int(match["noteable_id"])
        if (project, iid) not in self.merge_requests:
            return 404, {"message": "404 MergeRequest Not Found"}, {}
        if method == "GET":
            return self._listed(path, query, self.notes.get((project, iid), []))
        if len(body.get("body") or "") > NOTE_LIMIT:
            return 400, {"message": "400 Bad request - Note {:note=>[\"is too long (maximum "
                                    f"is {NOTE_LIMIT} characters)\"]}}"}, {}
        if method == "POST":
            return 201, self._new_note(project, iid, body["body"], "project_7_bot"), {}
        for note in self.notes.get((project, iid), []):
            if str(note["id"]) == match["note_id"]:
                note["body"], note["updated_at"] = body.get("body", note["body"]), _now()
                return 200, note, {}
        return 404, {"message": "404 Note Not Found"}, {}

    def _listed(self, path: str, query: dict[str, str], notes: list[dict[str, Any]]) -> Answer:
        per_page = min(int(query.get("per_page", 20)), 100)
        page = int(query.get("page", 1))
        ordered = sorted(notes, key=lambda note: note["id"],
                         reverse=query.get("sort", "desc") == "desc")
        headers = {"X-Page": str(page), "X-Per-Page": str(per_page),
                   "X-Total": str(len(ordered)), "X-Next-Page": ""}
        if page * per_page < len(ordered):
            headers["X-Next-Page"] = str(page + 1)
            following = urlencode({**query, "page": page + 1, "per_page": per_page})
            headers["Link"] = f'<{self.url}{path}?{following}>; rel="next"'
        return 200, ordered[(page - 1) * per_page:page * per_page], headers

    def _status(self, project: str, sha: str, body: dict[str, Any]) -> Answer:
        if not re.fullmatch(r"[0-9a-f]{40}", sha):
            return 404, {"message": "404 Commit Not Found"}, {}
        for field in ("description", "target_url", "ref"):
            if len(body.get(field) or "") > DESCRIPTION_LIMIT:
                return 400, {"message": {field: ["is too long (maximum is 255 characters)"]}}, {}
        now = _now()
        status = {"id": next(self._ids), "sha": sha, "ref": body.get("ref", "feature"),
                  "status": body["state"], "name": body.get("name") or body.get("context")
                  or "default", "target_url": body.get("target_url"),
                  "description": body.get("description"), "created_at": now,
                  "started_at": None, "finished_at": now, "allow_failure": False,
                  "coverage": body.get("coverage"), "pipeline_id": body.get("pipeline_id"),
                  "author": _user("project_7_bot")}
        self.statuses.setdefault(sha, []).append(status)
        return 201, status, {}  # Grape answers a POST 201, the description's 200 aside

    # ---- where Swagger 2.0 says it -------------------------------------------------------

    def _unauthorized(self, method: str, operation: dict[str, Any], headers: Any) -> str | None:
        if headers.get("PRIVATE-TOKEN") == self.token:
            return None
        if (headers.get("JOB-TOKEN") == self.job_token
                and operation["operationId"] in JOB_TOKEN_ALLOWED):
            return None
        return "no token, another, or a job token where GitLab takes none"

    def _parameter_schema(self, parameter: dict[str, Any]) -> dict[str, Any]:
        return {key: parameter[key] for key in _SCHEMA_KEYS if key in parameter}

    def _body_schema(self, operation: dict[str, Any]) -> dict[str, Any] | None:
        body = [p for p in operation.get("parameters", []) if p["in"] == "body"]
        return self._resolved(body[0]["schema"]) if body else None

    def _answer_schema(self, operation: dict[str, Any], status: int) -> dict[str, Any] | None:
        responses = operation["responses"]
        described = responses.get(str(status)) or (  # a success as the description has it
            next((r for code, r in responses.items() if code.startswith("2")), None)
            if 200 <= status < 300 else None)
        if described is None or "schema" not in described:
            return None
        return _nullable(self._resolved(described["schema"]))

    def _error(self, status: int, why: str) -> Any:
        return {401: {"message": "401 Unauthorized"},
                404: {"error": "404 Not Found"}}.get(status, {"error": why})

    def _resolved(self, schema: Any) -> Any:
        """The schema with each `#/definitions/` reference in place (the subset has no
        cycles)."""
        if isinstance(schema, list):
            return [self._resolved(item) for item in schema]
        if not isinstance(schema, dict):
            return schema
        if "$ref" in schema:
            return self._resolved(self.definitions[schema["$ref"].rsplit("/", 1)[1]])
        return {key: self._resolved(value) for key, value in schema.items()}


def _nullable(schema: Any) -> Any:
    """Every property may be null: GitLab answers null for what is unset (a status's
    `started_at`, a note's `type`), and its description, made from Grape's, never says which."""
    if isinstance(schema, list):
        return [_nullable(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    converted = {key: _nullable(value) for key, value in schema.items()}
    if isinstance(schema.get("properties"), dict):
        converted["properties"] = {name: {"anyOf": [_nullable(value), {"type": "null"}]}
                                   for name, value in schema["properties"].items()}
    return converted


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _user(username: str) -> dict[str, Any]:
    return {"id": 7, "username": username, "public_email": None, "name": username,
            "state": "active", "locked": False,
            "avatar_url": "https://secure.gravatar.com/avatar/0?s=80&d=identicon",
            "web_url": f"https://gitlab.example.com/{username}"}
