"""The lab's REST API (`/api/v1`), as the dashboard calls it: the CLI is one more client."""

import json
from typing import Any

import httpx

from latlab.cli.config import Settings
from latlab.cli.errors import CliError, Rejected, Unreachable


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

    def send(self, method: str, path: str, **request: Any) -> httpx.Response:
        try:
            response = self._http.request(method, path, **request)
        except httpx.HTTPError as error:
            raise Unreachable(f"cannot reach {self.url}: {error}") from error
        if response.status_code >= 400:
            raise Rejected(response.status_code, message(response))
        return response

    def page(self, path: str) -> str:
        """A dashboard page's address."""
        return f"{self.url}{path}"


def message(response: httpx.Response) -> str:
    """The lab's error message: its `detail`, each problem with its JSON path."""
    try:
        detail = response.json().get("detail")
    except (json.JSONDecodeError, AttributeError):
        return response.text[:2000]
    if isinstance(detail, list):
        return "; ".join(f"{p.get('path')}: {p.get('message')}" for p in detail)
    return str(detail)
