from fastapi import APIRouter, Request, Response, status

from latlab.auth import service
from latlab.auth.dependencies import SESSION_COOKIE, Admin, CurrentUser, Member
from latlab.auth.schemas import (
    LoginRequest,
    TokenCreate,
    TokenCreated,
    TokenRead,
    UserCreate,
    UserRead,
    UserUpdate,
)
from latlab.core.db import DbSession
from latlab.core.settings import get_settings
from latlab.models import ApiToken

router = APIRouter(tags=["auth"])


@router.post("/auth/login")
def login(body: LoginRequest, response: Response, session: DbSession) -> UserRead:
    """Sign in with email and password; sets the HttpOnly session cookie."""
    user = service.authenticate(session, body.email, body.password)
    cookie = service.open_session(session, user)
    settings = get_settings()
    response.set_cookie(
        SESSION_COOKIE, cookie, httponly=True, samesite="lax", secure=settings.cookie_secure,
        max_age=settings.session_days * 86400, path="/",
    )
    return UserRead.model_validate(user)


@router.post("/auth/logout", status_code=status.HTTP_204_NO_CONTENT)
def logout(request: Request, response: Response, session: DbSession) -> None:
    """Sign out: ends the session behind the cookie."""
    cookie = request.cookies.get(SESSION_COOKIE)
    if cookie:
        service.close_session(session, cookie)
    response.delete_cookie(SESSION_COOKIE, path="/")


@router.get("/auth/me")
def me(user: CurrentUser) -> UserRead:
    """The signed-in user."""
    return UserRead.model_validate(user)


@router.post("/tokens", status_code=status.HTTP_201_CREATED)
def create_token(body: TokenCreate, user: Member, session: DbSession) -> TokenCreated:
    """Create an API token for CI; the secret is in `token` and is never shown again."""
    token, secret = service.create_token(session, user, body)
    return TokenCreated(**_token_read(token).model_dump(), token=secret)


@router.get("/tokens")
def list_tokens(user: CurrentUser, session: DbSession) -> list[TokenRead]:
    """API tokens (without their secrets)."""
    return [_token_read(t) for t in service.list_tokens(session)]


@router.delete("/tokens/{token_id}", status_code=status.HTTP_204_NO_CONTENT)
def revoke_token(token_id: int, user: Member, session: DbSession) -> None:
    """Revoke a token: it is refused from now on."""
    service.revoke_token(session, token_id, service.Principal(user=user))


@router.get("/users")
def list_users(admin: Admin, session: DbSession) -> list[UserRead]:
    """All users (admin only)."""
    return [UserRead.model_validate(u) for u in service.list_users(session)]


@router.post("/users", status_code=status.HTTP_201_CREATED)
def create_user(body: UserCreate, admin: Admin, session: DbSession) -> UserRead:
    """Add a user with a role (admin only)."""
    return UserRead.model_validate(service.create_user(session, body))


@router.patch("/users/{user_id}")
def update_user(user_id: int, body: UserUpdate, admin: Admin, session: DbSession) -> UserRead:
    """Change a user's name, password, role or active flag (admin only)."""
    return UserRead.model_validate(service.update_user(session, user_id, body))


def _token_read(token: ApiToken) -> TokenRead:
    return TokenRead(
        id=token.id, name=token.name, project=token.project.slug, prefix=token.prefix,
        scopes=token.scopes, created_at=token.created_at, expires_at=token.expires_at,
        revoked_at=token.revoked_at, last_used_at=token.last_used_at,
    )
