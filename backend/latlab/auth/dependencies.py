from collections.abc import Awaitable, Callable
from functools import lru_cache
from ipaddress import IPv4Network, IPv6Network, ip_address, ip_network
from typing import Annotated

from fastapi import Depends, Request
from fastapi import params as fastapi_params
from starlette.concurrency import run_in_threadpool

from latlab.audit import recorder
from latlab.auth import service
from latlab.auth.service import Principal
from latlab.core import rate_limits
from latlab.core.db import DbSession
from latlab.core.errors import Forbidden, TooManyRequests, Unauthorized
from latlab.core.limits import NO_CREDENTIALS
from latlab.core.openapi import raises
from latlab.core.rate_limits import Use
from latlab.core.settings import get_settings
from latlab.models import Role, Scope

SESSION_COOKIE = "latlab_session"
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


@raises(Unauthorized, Forbidden)
def get_principal(request: Request, session: DbSession) -> Principal:
    """A bearer token wins over a session cookie; neither is a 401. The request's changes
    are audited as the caller's."""
    principal = _authenticate(request, session)
    recorder.act_as(session, principal.actor)
    return principal


def _authenticate(request: Request, session: DbSession) -> Principal:
    header = request.headers.get("authorization")
    if header:
        scheme, _, credential = header.partition(" ")
        if scheme.lower() != "bearer" or not credential.strip():
            raise Unauthorized("use 'Authorization: Bearer <token>'")
        return service.principal_from_token(session, credential.strip())
    cookie = request.cookies.get(SESSION_COOKIE)
    if cookie:
        principal = service.principal_from_cookie(session, cookie)
        require_json_write(request)
        return principal
    raise Unauthorized(NO_CREDENTIALS)


def require_json_write(request: Request) -> None:
    """CSRF: a write riding on the session cookie must say `Content-Type: application/json`,
    which no cross-site form can send and no cross-site script can without a CORS preflight
    (the api answers none)."""
    media_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if request.method not in SAFE_METHODS and media_type != "application/json":
        raise Forbidden("a signed-in write must send 'Content-Type: application/json'")


# Checks that do no I/O are coroutines: FastAPI runs a plain function's dependency on a worker
# thread, a hand-off each way that a busy host makes cost more than the check.


def requires(scope: Scope) -> Callable[[Principal], Awaitable[Principal]]:
    @raises(Forbidden)
    async def check(principal: Annotated[Principal, Depends(get_principal)]) -> Principal:
        principal.require(scope)
        return principal

    return check


@raises(Forbidden)
async def get_signed_in(principal: Annotated[Principal, Depends(get_principal)]) -> Principal:
    if principal.user is None:
        raise Forbidden("this action needs a signed-in user, not an API token")
    return principal


@raises(Forbidden)
async def get_member(principal: Annotated[Principal, Depends(get_signed_in)]) -> Principal:
    if principal.signed_in.role is Role.viewer:
        raise Forbidden("viewers cannot change anything")
    return principal


@raises(Forbidden)
async def get_admin(principal: Annotated[Principal, Depends(get_signed_in)]) -> Principal:
    if principal.signed_in.role is not Role.admin:
        raise Forbidden("only an admin can do this")
    return principal


def rate_limited(use: Use) -> list[fastapi_params.Depends]:
    """A route's fair-use check, before its caller's scopes and before its body is read.
    A caller spends from its own budget and its address's at once, so a caller refused does
    not spend the address's budget of the others behind it; requests with no credentials
    spend from their address's alone (and are then refused with 401)."""

    @raises(TooManyRequests)
    async def per_address(request: Request) -> None:
        if not (request.headers.get("authorization") or request.cookies.get(SESSION_COOKIE)):
            await run_in_threadpool(rate_limits.spend, use, None, client_address(request))

    @raises(TooManyRequests)
    def per_caller(request: Request,
                   principal: Annotated[Principal, Depends(get_principal)]) -> None:
        caller = (f"token:{principal.token.id}" if principal.token is not None
                  else f"user:{principal.signed_in.id}")
        rate_limits.spend(use, caller, client_address(request))

    return [Depends(per_address), Depends(per_caller)]


def address_limited(use: Use) -> list[fastapi_params.Depends]:
    """A public route's fair-use check (a shared page): its address's budget alone."""

    @raises(TooManyRequests)
    async def per_address(request: Request) -> None:
        await run_in_threadpool(rate_limits.spend, use, None, client_address(request))

    return [Depends(per_address)]


def client_address(request: Request) -> str:
    """The client's address: the peer's, or, when the peer is a trusted proxy, the last
    address in X-Forwarded-For that is not one (a client can prepend anything; what a trusted
    proxy appended is true). The api runs with uvicorn's own proxy handling off."""
    peer = request.client.host if request.client else "unknown"
    proxies = _trusted_proxies(get_settings().trusted_proxies)
    if not _trusted(peer, proxies):
        return peer
    chain = [hop.strip() for header in request.headers.getlist("x-forwarded-for")
             for hop in header.split(",") if hop.strip()]
    for hop in reversed(chain):
        if not _trusted(hop, proxies):
            return hop
    return chain[0] if chain else peer


@lru_cache
def _trusted_proxies(setting: str) -> tuple[IPv4Network | IPv6Network, ...]:
    return tuple(ip_network(each.strip(), strict=False) for each in setting.split(",")
                 if each.strip())


def _trusted(address: str, proxies: tuple[IPv4Network | IPv6Network, ...]) -> bool:
    try:
        ip = ip_address(address)
    except ValueError:  # not an address (e.g. a test client's name): never a proxy
        return False
    return any(ip in network for network in proxies)


Reader = Annotated[Principal, Depends(requires(Scope.read))]
RunWriter = Annotated[Principal, Depends(requires(Scope.runs_write))]
JobWriter = Annotated[Principal, Depends(requires(Scope.jobs_write))]
MetricsReader = Annotated[Principal, Depends(requires(Scope.metrics_read))]
SignedIn = Annotated[Principal, Depends(get_signed_in)]
Member = Annotated[Principal, Depends(get_member)]
Admin = Annotated[Principal, Depends(get_admin)]
