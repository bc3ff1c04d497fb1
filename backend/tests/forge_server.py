"""What github_server.py and gitlab_server.py share: a local HTTP server that answers only the
operations of a vendored API description and checks each request against it (its path and
query parameters, its JSON body, a token) before the forge's own logic answers; a request it
does not describe, or describes otherwise, is refused and kept in `refused`. Each answer is
checked against the description's schema before it is sent. Where the two descriptions differ
(OpenAPI 3 and Swagger 2.0), each server says where a parameter's, a body's and an answer's
schemas are."""

import copy
import json
import re
import threading
from abc import ABC, abstractmethod
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import jsonschema

Answer = tuple[int, Any, dict[str, str]]  # status, JSON body, extra headers


class DescribedServer(ABC):
    INVALID: int  # the status of a request its description does not allow (422, 400)

    def __init__(self, paths: dict[str, Any]) -> None:
        self.operations = list(_operations(paths))
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

    # ---- what each forge and description say their own way ------------------------------

    @abstractmethod
    def _unauthorized(self, method: str, operation: dict[str, Any], headers: Any) -> str | None:
        """Why the forge would not take the request's token (a 401), or None."""

    @abstractmethod
    def _parameter_schema(self, parameter: dict[str, Any]) -> dict[str, Any]: ...

    @abstractmethod
    def _body_schema(self, operation: dict[str, Any]) -> dict[str, Any] | None: ...

    @abstractmethod
    def _answer_schema(self, operation: dict[str, Any], status: int) -> dict[str, Any] | None: ...

    @abstractmethod
    def _error(self, status: int, why: str) -> Any:
        """The forge's body for a refused request."""

    @abstractmethod
    def _answer(self, method: str, path: str, match: dict[str, str], query: dict[str, str],
                body: Any) -> Answer: ...

    # ---- checked against the description -------------------------------------------------

    def _handle(self, method: str, target: str, headers: Any, raw: bytes) -> Answer:
        split = urlsplit(target)
        query = {k: v[-1] for k, v in parse_qs(split.query).items()}
        found = [(operation, m.groupdict()) for verb, pattern, operation in self.operations
                 if verb == method and (m := pattern.match(split.path))]
        if not found:
            return self._refuse(f"{method} {split.path}: no such operation", 404)
        operation, match = found[0]
        if (why := self._unauthorized(method, operation, headers)) is not None:
            return self._refuse(f"{method} {split.path}: {why}", 401)
        for parameter in operation.get("parameters", []):
            if parameter["in"] not in ("path", "query"):
                continue
            value = (match if parameter["in"] == "path" else query).get(parameter["name"])
            if value is None:
                if parameter.get("required"):
                    return self._refuse(f"{parameter['name']} missing", self.INVALID)
                continue
            try:
                jsonschema.validate(_typed(value, schema := self._parameter_schema(parameter)),
                                    schema)
            except jsonschema.ValidationError as error:
                return self._refuse(f"{parameter['name']}: {error.message}", self.INVALID)
        body = None
        if (schema := self._body_schema(operation)) is not None:
            try:
                body = json.loads(raw or b"null")
                jsonschema.validate(body, schema)
            except (ValueError, jsonschema.ValidationError) as error:
                return self._refuse(f"{method} {split.path}: body: {error}", self.INVALID)
        with self._lock:
            self.requests.append((method, split.path))
            status, answer, extra = self._answer(method, split.path, match, query, body)
        if (described := self._answer_schema(operation, status)) is not None:
            jsonschema.validate(copy.deepcopy(answer), described)
        return status, answer, extra

    def _refuse(self, why: str, status: int) -> Answer:
        self.refused.append(why)
        return status, self._error(status, why), {}

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

            do_GET = do_POST = do_PATCH = do_PUT = _serve

            def log_message(self, *args: Any) -> None:
                pass

        return Handler


def _operations(paths: dict[str, Any]) -> Iterator[tuple[str, re.Pattern[str], dict[str, Any]]]:
    for template, methods in paths.items():
        pattern = re.compile("^" + re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", template) + "$")
        for method, operation in methods.items():
            yield method.upper(), pattern, operation


def _typed(value: str, schema: dict[str, Any]) -> Any:
    """A path or query value as the type its schema says, where it reads as one."""
    if schema.get("type") == "integer" and value.isdigit():
        return int(value)
    if schema.get("type") == "boolean" and value in ("true", "false"):
        return value == "true"
    return value
