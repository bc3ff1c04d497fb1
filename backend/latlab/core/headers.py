"""Security headers on every answer, the dashboard's and the api's."""

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

# The dashboard loads only its own files and talks only to its own origin; nothing may frame
# it. (React sets inline styles through the CSSOM, which style-src does not govern.)
POLICY = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
          "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
          "form-action 'self'; frame-ancestors 'none'")
# The interactive API docs (Swagger UI) come from a CDN with an inline bootstrap script.
DOCS_POLICY = ("default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
               "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
               "img-src 'self' data: https://fastapi.tiangolo.com; object-src 'none'; "
               "base-uri 'none'; frame-ancestors 'none'")
DOCS_PATH = "/api/v1/docs"


def framed_by(origins: list[str]) -> str:
    """The dashboard's policy, letting pages of `origins` frame it (none: no page may)."""
    ancestors = " ".join(origins) if origins else "'none'"
    return POLICY.replace("frame-ancestors 'none'", f"frame-ancestors {ancestors}")


class SecurityHeaders:
    def __init__(self, app: ASGIApp, https: bool) -> None:
        self.app = app
        self.https = https

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        policy = DOCS_POLICY if scope["path"] == DOCS_PATH else POLICY

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                # A shared page sets its own (the origins its project lets frame it).
                if "content-security-policy" not in headers:
                    headers["Content-Security-Policy"] = policy
                    headers["X-Frame-Options"] = "DENY"
                headers["X-Content-Type-Options"] = "nosniff"
                headers["Referrer-Policy"] = "same-origin"
                if self.https:
                    headers["Strict-Transport-Security"] = "max-age=31536000"
            await send(message)

        await self.app(scope, receive, with_headers)
