"""The lab's REST API (`/api/v1`), as the dashboard calls it: the CLI is one more client."""

import itertools
import json
import time
from typing import Any

import httpx

from latlab_cli.config import Settings
from latlab_cli.errors import CliError, Rejected, Unreachable

# What `Lab.send` retries: the lab's own "not now" answers, and a connection that ended
# before any answer (refused, reset, closed); not a timeout.
RETRIED_STATUSES = (429, 503)
RETRIED_ERRORS = (httpx.NetworkError, httpx.RemoteProtocolError)


class Lab:
    """An API client with the token; answers are JSON, errors become `Rejected`/`Unreachable`
    with the lab's own message."""

    def __init__(self, settings: Settings, timeout: float = 30.0) -> None:
        self.url = settings.url
        headers = {"Authorization": f"Bearer {settings.token}"} if settings.token else {}
        self._http = httpx.Client(base_url=f"{self.url}/api/v1", headers=headers,
                                  timeout=timeout)

    @classmethod
    def with_token(cls, settings: Settings, timeout: float = 30.0) -> "Lab":
        if not settings.token:
            raise CliError("no token; pass --token, set LATLAB_TOKEN or run `latlab login`")
        return cls(settings, timeout)

    def get(self, path: str, **params: Any) -> Any:
        return self.send("GET", path, params=params).json()

    def post(self, path: str, body: Any = None) -> Any:
        return self.send("POST", path, json=body).json()

    def send(self, method: str, path: str, retry_for: float = 0.0,
             **request: Any) -> httpx.Response:
        """One request; with `retry_for` (seconds), sent again while the lab could not
        answer it: the connection refused, reset or closed before the answer (a restarting
        api, an idle connection the server dropped), or 503/429 (after its `Retry-After`,
        else 0.5 s doubling to 8 s), as long as the next try starts within `retry_for`. Only
        for a request that is safe to send twice: a read, or a submission with its
        `Idempotency-Key` (the lab stores it once and answers the repeat with that run). A
        timeout is not retried: the lab may still be working on it."""
        deadline = time.monotonic() + retry_for
        for tries in itertools.count():
            wait = min(0.5 * 2 ** min(tries, 4), 8.0)
            try:
                response = self._http.request(method, path, **request)
            except httpx.HTTPError as error:
                if not isinstance(error, RETRIED_ERRORS) or time.monotonic() + wait > deadline:
                    raise Unreachable(f"cannot reach {self.url}: {error}") from error
            else:
                if response.status_code < 400:
                    return response
                wait = retry_after(response) or wait
                if (response.status_code not in RETRIED_STATUSES
                        or time.monotonic() + wait > deadline):
                    raise Rejected(response.status_code, message(response))
            time.sleep(wait)
        raise AssertionError("unreachable")

    def page(self, path: str) -> str:
        """A dashboard page's address."""
        return f"{self.url}{path}"


def retry_after(response: httpx.Response) -> float | None:
    """The seconds an answer asks the client to wait (`Retry-After` in seconds), if any."""
    value = response.headers.get("Retry-After", "")
    return float(value) if value.isdigit() else None


def message(response: httpx.Response) -> str:
    """The lab's error message: its `detail`, each problem with its JSON path."""
    try:
        detail = response.json().get("detail")
    except (json.JSONDecodeError, AttributeError):
        return response.text[:2000]
    if isinstance(detail, list):
        return "; ".join(f"{p.get('path')}: {p.get('message')}" for p in detail)
    return str(detail)
