from collections.abc import Callable
from typing import Annotated

from fastapi import Depends, Request

from latlab.auth import service
from latlab.auth.service import Principal
from latlab.core.db import DbSession
from latlab.core.errors import Forbidden, Unauthorized
from latlab.models import Role, Scope, User

SESSION_COOKIE = "latlab_session"


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
        return service.principal_from_cookie(session, cookie)
    raise Unauthorized("sign in, or send 'Authorization: Bearer <token>'")


def requires(scope: Scope) -> Callable[[Principal], Principal]:
    def check(principal: Annotated[Principal, Depends(get_principal)]) -> Principal:
        principal.require(scope)
        return principal

    return check


def get_user(principal: Annotated[Principal, Depends(get_principal)]) -> User:
    if principal.user is None:
        raise Forbidden("this action needs a signed-in user, not an API token")
    return principal.user


def get_member(user: Annotated[User, Depends(get_user)]) -> User:
    if user.role is Role.viewer:
        raise Forbidden("viewers cannot change anything")
    return user


def get_admin(user: Annotated[User, Depends(get_user)]) -> User:
    if user.role is not Role.admin:
        raise Forbidden("only an admin can do this")
    return user


CurrentPrincipal = Annotated[Principal, Depends(get_principal)]
Reader = Annotated[Principal, Depends(requires(Scope.read))]
RunWriter = Annotated[Principal, Depends(requires(Scope.runs_write))]
JobWriter = Annotated[Principal, Depends(requires(Scope.jobs_write))]
CurrentUser = Annotated[User, Depends(get_user)]
Member = Annotated[User, Depends(get_member)]
Admin = Annotated[User, Depends(get_admin)]
