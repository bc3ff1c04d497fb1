"""The FastAPI application: REST at /api/v1, Prometheus' /metrics, the built dashboard at /."""

import logging
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from kombu.exceptions import OperationalError as BrokerError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from sqlalchemy.exc import InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeout

from latlab.api import api_router
from latlab.audit import recorder
from latlab.auth.dependencies import SESSION_COOKIE
from latlab.core import openapi
from latlab.core.db import DbSession
from latlab.core.errors import AppError, Unprocessable
from latlab.core.headers import SecurityHeaders, framed_by
from latlab.core.limits import BodyLimits
from latlab.core.memory import ReleaseMemory
from latlab.core.settings import get_settings
from latlab.core.validation import BodyInvalid, problems
from latlab.monitoring.router import router as monitoring_router
from latlab.sharing import router as sharing

DEFAULT_DIST = Path(__file__).resolve().parents[2] / "frontend" / "dist"
# Postgres or Redis unreachable, or too slow: the request may succeed later.
UNAVAILABLE = (OperationalError, InterfaceError, PoolTimeout, BrokerError, RedisConnectionError,
               RedisTimeoutError)
RETRY_AFTER_S = 5
log = logging.getLogger(__name__)


def create_app() -> FastAPI:
    settings = get_settings()
    recorder.install()
    app = FastAPI(
        title="latlab",
        version="0.1.0",
        description="A latency lab: store, compare and guard latency distributions.",
        openapi_url="/api/v1/openapi.json",
        docs_url="/api/v1/docs",
        redoc_url=None,
    )
    app.include_router(api_router)
    app.include_router(monitoring_router)
    _add_error_handlers(app)
    app.add_middleware(BodyLimits, max_body_bytes=settings.max_body_bytes,
                       max_json_bytes=settings.max_json_bytes, session_cookie=SESSION_COOKIE)
    if settings.release_memory_after_bytes:
        app.add_middleware(ReleaseMemory, min_bytes=settings.release_memory_after_bytes)
    app.add_middleware(SecurityHeaders, https=settings.public_url.startswith("https://"))
    app.openapi = lambda: _openapi(app)  # type: ignore[method-assign]
    _serve_dashboard(app, Path(settings.frontend_dist) if settings.frontend_dist else DEFAULT_DIST)
    return app


def _add_error_handlers(app: FastAPI) -> None:
    @app.exception_handler(AppError)
    async def app_error(request: Request, error: AppError) -> JSONResponse:
        if isinstance(error, Unprocessable):
            detail: Any = [{"path": error.path, "message": error.detail, "type": "invalid"}]
        else:
            detail = error.detail
        headers = {"WWW-Authenticate": "Bearer"} if error.status_code == 401 else None
        if error.retry_after is not None:
            headers = {"Retry-After": str(error.retry_after)}
        return JSONResponse({"detail": detail}, status_code=error.status_code, headers=headers)

    async def unavailable(request: Request, error: Exception) -> JSONResponse:
        log.warning("503 for %s %s: %s", request.method, request.url.path,
                    str(error).splitlines()[0] if str(error) else type(error).__name__)
        return JSONResponse(
            {"detail": "the lab's database or broker is unreachable; retry shortly"},
            status_code=503, headers={"Retry-After": str(RETRY_AFTER_S)})

    for kind in UNAVAILABLE:
        app.add_exception_handler(kind, unavailable)

    @app.exception_handler(BodyInvalid)
    async def body_invalid(request: Request, error: BodyInvalid) -> JSONResponse:
        return JSONResponse({"detail": error.problems}, status_code=422)

    @app.exception_handler(RequestValidationError)
    async def request_invalid(request: Request, error: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": problems(error.errors())}, status_code=422)


def _openapi(app: FastAPI) -> dict[str, Any]:
    if not app.openapi_schema:
        app.openapi_schema = openapi.build(app)
    return app.openapi_schema


def _serve_dashboard(app: FastAPI, dist: Path) -> None:
    """Serves the built SPA; every non-API path falls back to index.html."""
    if (dist / "assets").is_dir():
        app.mount("/assets", StaticFiles(directory=dist / "assets"), name="assets")

    @app.get("/shared/{token}", include_in_schema=False, response_model=None)
    def shared(token: str, session: DbSession) -> Response:
        """A shared page: the dashboard, framed only by its project's embed origins."""
        index = dist / "index.html"
        if not index.is_file():
            return JSONResponse({"detail": "the dashboard is not built"}, status_code=503)
        return FileResponse(index, headers={"Content-Security-Policy": framed_by(
            sharing.frame_ancestors(session, token))})

    @app.get("/{path:path}", include_in_schema=False, response_model=None)
    async def spa(path: str) -> Response:
        if path.startswith("api/"):
            return JSONResponse({"detail": "Not Found"}, status_code=404)
        candidate = (dist / path).resolve()
        if path and candidate.is_file() and candidate.is_relative_to(dist.resolve()):
            return FileResponse(candidate)
        index = dist / "index.html"
        if not index.is_file():
            return JSONResponse({"detail": "the dashboard is not built; run `make up` (or `cd "
                                           "frontend && npm run build`)"}, status_code=503)
        return FileResponse(index)


app = create_app()
