"""Request bodies: who may send one, and how large, decided before a byte of it is read.

A body to the api from a caller with no credentials at all (no bearer token, no session
cookie) is refused with 401 unread, except on sign-in and a host's join (whose invitation code,
in the body, is its credential). Run submissions may be up to
`max_body_bytes`; every other body up to `max_json_bytes`. Larger ones are refused with 413
before they are parsed, including chunked bodies without a Content-Length. (Run submissions
check the token itself before reading the body: see `latlab.runs.router`.)
"""

import json

from starlette.requests import cookie_parser
from starlette.types import ASGIApp, Message, Receive, Scope, Send

NO_CREDENTIALS = "sign in, or send 'Authorization: Bearer <token>'"
SUBMISSION = ("POST", "/api/v1/runs")
UNAUTHENTICATED = {("POST", "/api/v1/auth/login"), ("POST", "/api/v1/hosts/join")}


class BodyTooLarge(Exception):
    pass


class BodyLimits:
    def __init__(self, app: ASGIApp, max_body_bytes: int, max_json_bytes: int,
                 session_cookie: str) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.max_json_bytes = max_json_bytes
        self.session_cookie = session_cookie

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        route = (scope["method"], scope["path"].rstrip("/"))
        declared = headers.get(b"content-length")
        has_body = (declared not in (None, b"0")) or b"transfer-encoding" in headers
        if (has_body and route[1].startswith("/api/") and route not in UNAUTHENTICATED
                and not self._has_credentials(headers)):
            await _answer(send, 401, NO_CREDENTIALS, [(b"www-authenticate", b"Bearer")])
            return
        limit = self.max_body_bytes if route == SUBMISSION else self.max_json_bytes
        if declared is not None and declared.isdigit() and int(declared) > limit:
            await self._refuse(send, limit)
            return
        received = 0
        started = False

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge
            return message

        async def tracking_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counting_receive, tracking_send)
        except BodyTooLarge:
            if not started:
                await self._refuse(send, limit)

    def _has_credentials(self, headers: dict[bytes, bytes]) -> bool:
        if headers.get(b"authorization"):
            return True
        cookies = cookie_parser(headers.get(b"cookie", b"").decode("latin-1"))
        return bool(cookies.get(self.session_cookie))

    async def _refuse(self, send: Send, limit: int) -> None:
        await _answer(send, 413, f"the request body is larger than {limit} bytes")


async def _answer(send: Send, status: int, detail: str,
                  headers: list[tuple[bytes, bytes]] | None = None) -> None:
    body = json.dumps({"detail": detail}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()), *(headers or [])]})
    await send({"type": "http.response.body", "body": body})
