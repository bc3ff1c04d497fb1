"""Users, dashboard sessions and API tokens."""

from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session, joinedload

from latlab.auth.schemas import TokenCreate, UserCreate, UserUpdate
from latlab.core.clock import get_clock
from latlab.core.errors import Conflict, Forbidden, NotFound, Unauthorized, Unprocessable
from latlab.core.security import (
    TOKEN_PREFIX,
    hash_password,
    new_secret,
    secret_hash,
    verify_password,
)
from latlab.core.settings import get_settings
from latlab.models import ApiToken, LoginSession, Project, Role, Scope, User

ROLE_SCOPES: dict[Role, frozenset[Scope]] = {
    Role.viewer: frozenset({Scope.read}),
    Role.member: frozenset({Scope.read, Scope.runs_write, Scope.jobs_write}),
    Role.admin: frozenset({Scope.read, Scope.runs_write, Scope.jobs_write}),
}


@dataclass(frozen=True)
class Principal:
    """Who is calling: a dashboard user, or an API token acting for one project."""

    user: User | None = None
    token: ApiToken | None = None

    @property
    def scopes(self) -> frozenset[Scope]:
        if self.token is not None:
            return frozenset(Scope(s) for s in self.token.scopes)
        assert self.user is not None
        return ROLE_SCOPES[self.user.role]

    @property
    def is_admin(self) -> bool:
        return self.user is not None and self.user.role is Role.admin

    @property
    def token_project_id(self) -> int | None:
        return None if self.token is None else self.token.project_id

    def require(self, scope: Scope) -> None:
        if scope not in self.scopes:
            who = "this token" if self.token is not None else f"role {self.user.role}"  # type: ignore[union-attr]
            raise Forbidden(f"{who} lacks the '{scope}' permission")


def authenticate(session: Session, email: str, password: str) -> User:
    user = session.scalar(select(User).where(User.email == email.strip().lower()))
    if user is None or not user.is_active or not verify_password(user.password_hash, password):
        raise Unauthorized("wrong email or password")
    return user


def open_session(session: Session, user: User) -> str:
    """Starts a dashboard session; returns the cookie value (stored only as a hash)."""
    secret = new_secret()
    now = get_clock().now()
    session.add(LoginSession(
        user_id=user.id, token_hash=secret_hash(secret), created_at=now,
        expires_at=now + timedelta(days=get_settings().session_days),
    ))
    return secret


def close_session(session: Session, cookie: str) -> None:
    login = session.scalar(
        select(LoginSession).where(LoginSession.token_hash == secret_hash(cookie))
    )
    if login is not None and login.revoked_at is None:
        login.revoked_at = get_clock().now()


def principal_from_cookie(session: Session, cookie: str) -> Principal:
    now = get_clock().now()
    login = session.scalar(
        select(LoginSession)
        .options(joinedload(LoginSession.user))
        .where(LoginSession.token_hash == secret_hash(cookie))
    )
    if login is None or login.revoked_at is not None or login.expires_at <= now:
        raise Unauthorized("the session has expired; sign in again")
    if not login.user.is_active:
        raise Unauthorized("this user is deactivated")
    return Principal(user=login.user)


def principal_from_token(session: Session, secret: str) -> Principal:
    now = get_clock().now()
    token = session.scalar(
        select(ApiToken)
        .options(joinedload(ApiToken.project))
        .where(ApiToken.token_hash == secret_hash(secret))
    )
    if token is None:
        raise Unauthorized("unknown API token")
    if token.revoked_at is not None:
        raise Unauthorized("this API token was revoked")
    if token.expires_at is not None and token.expires_at <= now:
        raise Unauthorized("this API token has expired")
    token.last_used_at = now
    return Principal(token=token)


def get_project(session: Session, slug: str | None) -> Project:
    slug = slug or get_settings().default_project
    project = session.scalar(select(Project).where(Project.slug == slug))
    if project is None:
        raise NotFound(f"no project '{slug}'")
    return project


def ensure_project(session: Session, slug: str) -> Project:
    project = session.scalar(select(Project).where(Project.slug == slug))
    if project is None:
        project = Project(slug=slug, name=slug, created_at=get_clock().now())
        session.add(project)
        session.flush()
    return project


def create_token(session: Session, user: User, request: TokenCreate) -> tuple[ApiToken, str]:
    now = get_clock().now()
    if request.expires_at is not None and request.expires_at <= now:
        raise Unprocessable("expires_at must be in the future", "$.expires_at")
    project = get_project(session, request.project)
    secret = new_secret(TOKEN_PREFIX)
    token = ApiToken(
        project_id=project.id, project=project, created_by_id=user.id, name=request.name,
        prefix=secret[: len(TOKEN_PREFIX) + 6], token_hash=secret_hash(secret),
        scopes=sorted({s.value for s in request.scopes}), created_at=now,
        expires_at=request.expires_at,
    )
    session.add(token)
    session.flush()
    return token, secret


def list_tokens(session: Session) -> list[ApiToken]:
    query = select(ApiToken).options(joinedload(ApiToken.project)).order_by(ApiToken.id.desc())
    return list(session.scalars(query))


def revoke_token(session: Session, token_id: int, principal: Principal) -> None:
    token = session.get(ApiToken, token_id)
    if token is None:
        raise NotFound(f"no token {token_id}")
    if not principal.is_admin and token.created_by_id != principal.user.id:  # type: ignore[union-attr]
        raise Forbidden("only its creator or an admin can revoke a token")
    if token.revoked_at is None:
        token.revoked_at = get_clock().now()


def create_user(session: Session, request: UserCreate) -> User:
    if session.scalar(select(User.id).where(User.email == request.email)) is not None:
        raise Conflict(f"a user with email {request.email} exists")
    user = User(
        email=request.email, name=request.name, password_hash=hash_password(request.password),
        role=request.role, is_active=True, created_at=get_clock().now(),
    )
    session.add(user)
    session.flush()
    return user


def update_user(session: Session, user_id: int, request: UserUpdate) -> User:
    user = session.get(User, user_id)
    if user is None:
        raise NotFound(f"no user {user_id}")
    if request.name is not None:
        user.name = request.name
    if request.password is not None:
        user.password_hash = hash_password(request.password)
    if request.role is not None:
        user.role = request.role
    if request.is_active is not None:
        user.is_active = request.is_active
    return user


def list_users(session: Session) -> list[User]:
    return list(session.scalars(select(User).order_by(User.id)))

