"""The route class of every API router: JSON bodies are parsed strictly (see
`latlab.core.validation.strict_json`) before FastAPI validates them, and each route documents
the errors it can answer with (see `latlab.core.openapi`)."""

from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute

from latlab.core.openapi import responses_for
from latlab.core.validation import strict_json


class ApiRoute(APIRoute):
    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        kwargs["responses"] = responses_for(
            path, endpoint, list(kwargs.get("dependencies") or []),
            dict(kwargs.get("responses") or {}), reads_body=bool(kwargs.get("openapi_extra")))
        super().__init__(path, endpoint, **kwargs)

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        if self.body_field is None:
            return handler

        async def strict(request: Request) -> Response:
            media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
            if media_type in ("", "application/json"):
                raw = await request.body()
                if raw:
                    # Starlette's Request.json() answers from this cache.
                    request._json = strict_json(raw)
            return await handler(request)

        return strict
