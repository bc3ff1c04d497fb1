from collections.abc import Callable
from typing import Annotated

from fastapi import Depends, Request

from latlab.auth import service
from latlab.auth.service import Principal
from latlab.core.db import DbSession
from latlab.core.errors import Forbidden, Unauthorized
from latlab.core.limits import NO_CREDENTIALS
from latlab.core.openapi import raises
from latlab.models import Role, Scope

SESSION_COOKIE = "latlab_session"
SAFE_METHODS = ("GET", "HEAD", "OPTIONS")


@raises(Unauthorized, Forbidden)
def get_principal(request: Request, session: DbSession) -> Principal:
    """A bearer token wins over a session cookie; neither is a 401."""
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


def requires(scope: Scope) -> Callable[[Principal], Principal]:
    @raises(Forbidden)
    def check(principal: Annotated[Principal, Depends(get_principal)]) -> Principal:
        principal.require(scope)
        return principal

    return check


@raises(Forbidden)
def get_signed_in(principal: Annotated[Principal, Depends(get_principal)]) -> Principal:
    if principal.user is None:
        raise Forbidden("this action needs a signed-in user, not an API token")
    return principal


@raises(Forbidden)
def get_member(principal: Annotated[Principal, Depends(get_signed_in)]) -> Principal:
    if principal.signed_in.role is Role.viewer:
        raise Forbidden("viewers cannot change anything")
    return principal


@raises(Forbidden)
def get_admin(principal: Annotated[Principal, Depends(get_signed_in)]) -> Principal:
    if principal.signed_in.role is not Role.admin:
        raise Forbidden("only an admin can do this")
    return principal


Reader = Annotated[Principal, Depends(requires(Scope.read))]
RunWriter = Annotated[Principal, Depends(requires(Scope.runs_write))]
JobWriter = Annotated[Principal, Depends(requires(Scope.jobs_write))]
MetricsReader = Annotated[Principal, Depends(requires(Scope.metrics_read))]
SignedIn = Annotated[Principal, Depends(get_signed_in)]
Member = Annotated[Principal, Depends(get_member)]
Admin = Annotated[Principal, Depends(get_admin)]
