"""Users, dashboard sessions and API tokens, and who is calling (the `Principal`)."""

from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session, joinedload

from latlab.audit.recorder import Actor
from latlab.auth import throttle
from latlab.auth.schemas import TokenCreate, UserCreate, UserUpdate
from latlab.core.clock import get_clock
from latlab.core.errors import Conflict, Forbidden, NotFound, Unauthorized, Unprocessable
from latlab.core.security import (
    TOKEN_PREFIX,
    dummy_verify,
    hash_password,
    new_secret,
    secret_hash,
    verify_password,
)
from latlab.core.settings import get_settings
from latlab.models import ApiToken, LoginSession, Project, Role, Scope, User
from latlab.projects import service as projects

# A token's last use is kept to the minute: written on every request, it made every read a
# write and a commit.
LAST_USED_EVERY = timedelta(minutes=1)

ROLE_SCOPES: dict[Role, frozenset[Scope]] = {
    Role.viewer: frozenset({Scope.read, Scope.metrics_read}),
    Role.member: frozenset({Scope.read, Scope.runs_write, Scope.jobs_write, Scope.metrics_read}),
    Role.admin: frozenset({Scope.read, Scope.runs_write, Scope.jobs_write, Scope.metrics_read}),
}


@dataclass(frozen=True)
class Principal:
    """Who is calling, and in which project: a dashboard user (in the project their session
    shows), or an API token (in its project, with its scopes clipped to its owner's role)."""

    user: User | None = None
    token: ApiToken | None = None
    login: LoginSession | None = None
    current_project: Project | None = None

    @property
    def scopes(self) -> frozenset[Scope]:
        if self.token is not None:
            assert self.token.created_by is not None
            return frozenset(Scope(s) for s in self.token.scopes) & ROLE_SCOPES[
                self.token.created_by.role]
        assert self.user is not None
        return ROLE_SCOPES[self.user.role]

    @property
    def actor(self) -> Actor:
        """Who the audit log says made the caller's changes."""
        if self.token is not None:
            return Actor(f"token {self.token.name} ({self.token.prefix})",
                         token_id=self.token.id)
        return Actor(self.signed_in.email, user_id=self.signed_in.id)

    @property
    def is_admin(self) -> bool:
        return self.user is not None and self.user.role is Role.admin

    @property
    def signed_in(self) -> User:
        if self.user is None:
            raise Forbidden("this action needs a signed-in user, not an API token")
        return self.user

    @property
    def project(self) -> Project:
        """The caller's project; every read and write of project data is scoped to it."""
        if self.current_project is None:
            raise Forbidden("you are not a member of any project; ask an admin to add you")
        return self.current_project

    @property
    def project_id(self) -> int:
        return self.project.id

    def require(self, scope: Scope) -> None:
        if scope not in self.scopes:
            who = ("this token" if self.token is not None
                   else f"role {self.user.role}")  # type: ignore[union-attr]
            raise Forbidden(f"{who} lacks the '{scope}' permission")


def authenticate(session: Session, email: str, password: str, address: str,
                 device: str | None) -> tuple[User, str | None]:
    """The user with this email and password, and the device cookie to give the browser.
    Unknown emails cost the same password check as known ones; failures are throttled per
    account, address and device (`throttle`)."""
    email = email.strip().lower()
    throttle.check(email, address, device)
    user = session.scalar(select(User).where(User.email == email))
    if user is None:
        dummy_verify(password)
        valid = False
    else:
        valid = verify_password(user.password_hash, password) and user.is_active
    if user is None or not valid:
        throttle.failed(email, address, device)
        raise Unauthorized("wrong email or password")
    return user, throttle.succeeded(email, device)


def open_session(session: Session, user: User) -> str:
    """Starts a dashboard session in the user's default project; returns the cookie value
    (stored only as a hash)."""
    secret = new_secret()
    now = get_clock().now()
    landing = projects.default_for(session, user)
    session.add(LoginSession(
        user_id=user.id, token_hash=secret_hash(secret), created_at=now,
        expires_at=now + timedelta(days=get_settings().session_days),
        project_id=None if landing is None else landing.id,
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
    project = None
    if login.project_id is not None and projects.may_use(session, login.user, login.project_id):
        project = session.get(Project, login.project_id)
    if project is None:
        project = projects.default_for(session, login.user)
        login.project_id = None if project is None else project.id
    return Principal(user=login.user, login=login, current_project=project)


def principal_from_token(session: Session, secret: str) -> Principal:
    """A token acts for its owner: it dies with the owner's deactivation or removal from
    the project, and never holds a scope the owner's role lacks."""
    now = get_clock().now()
    token = session.scalar(
        select(ApiToken)
        .options(joinedload(ApiToken.project), joinedload(ApiToken.created_by))
        .where(ApiToken.token_hash == secret_hash(secret))
    )
    if token is None:
        raise Unauthorized("unknown API token")
    if token.revoked_at is not None:
        raise Unauthorized("this API token was revoked")
    if token.expires_at is not None and token.expires_at <= now:
        raise Unauthorized("this API token has expired")
    owner = token.created_by
    if owner is None or not owner.is_active:
        raise Unauthorized("this API token's owner is deactivated")
    if not projects.may_use(session, owner, token.project_id):
        raise Unauthorized(
            f"this API token's owner is no longer a member of project '{token.project.slug}'")
    if token.last_used_at is None or now - token.last_used_at >= LAST_USED_EVERY:
        token.last_used_at = now
    return Principal(token=token, current_project=token.project)


def switch_project(session: Session, principal: Principal, slug: str) -> Project:
    """The dashboard session shows another project from now on."""
    if principal.login is None or principal.user is None:
        raise Forbidden("only a dashboard session has a current project; a token has its own")
    project = projects.get(session, slug)
    if not projects.may_use(session, principal.user, project.id):
        raise Forbidden(f"you are not a member of project '{slug}'")
    principal.login.project_id = project.id
    return project


def create_token(session: Session, user: User, request: TokenCreate,
                 current: Project | None = None) -> tuple[ApiToken, str]:
    """A token of the named project, else of the caller's current one (else their default)."""
    now = get_clock().now()
    if request.expires_at is not None and request.expires_at <= now:
        raise Unprocessable("expires_at must be in the future", "$.expires_at")
    if request.project is not None:
        project = projects.get(session, request.project)
        if not projects.may_use(session, user, project.id):
            raise Forbidden(f"you are not a member of project '{request.project}'")
    else:
        found = current or projects.default_for(session, user)
        if found is None:
            raise Forbidden("you are not a member of any project; ask an admin to add you")
        project = found
    projects.writable(project)
    secret = new_secret(TOKEN_PREFIX)
    token = ApiToken(
        project_id=project.id, project=project, created_by_id=user.id, created_by=user,
        name=request.name, prefix=secret[: len(TOKEN_PREFIX) + 6],
        token_hash=secret_hash(secret), scopes=sorted({s.value for s in request.scopes}),
        created_at=now, expires_at=request.expires_at,
    )
    session.add(token)
    session.flush()
    return token, secret


def list_tokens(session: Session, user: User) -> list[ApiToken]:
    """An admin sees every token; anyone else their own."""
    query = select(ApiToken).options(joinedload(ApiToken.project)).order_by(ApiToken.id.desc())
    if user.role is not Role.admin:
        query = query.where(ApiToken.created_by_id == user.id)
    return list(session.scalars(query))


def revoke_token(session: Session, token_id: int, user: User) -> None:
    token = session.get(ApiToken, token_id)
    if token is None or (user.role is not Role.admin and token.created_by_id != user.id):
        raise NotFound(f"no token {token_id}")
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
    default = get_settings().default_project
    slugs = request.projects
    if slugs is None:
        slugs = [default] if session.scalar(
            select(Project.id).where(Project.slug == default)) is not None else []
    projects.set_memberships(session, user, slugs)
    return user


def update_user(session: Session, user_id: int, request: UserUpdate,
                by: User | None = None) -> User:
    user = get_user(session, user_id)
    if by is not None and user.id == by.id and (request.is_active is False or request.role not in (
            None, Role.admin)):
        raise Conflict("an admin cannot deactivate or demote themselves")
    if request.name is not None:
        user.name = request.name
    if request.password is not None:
        user.password_hash = hash_password(request.password)
    if request.role is not None:
        user.role = request.role
    if request.is_active is not None:
        user.is_active = request.is_active
    if request.projects is not None:
        projects.set_memberships(session, user, request.projects)
    return user


def get_user(session: Session, user_id: int) -> User:
    user = session.get(User, user_id)
    if user is None:
        raise NotFound(f"no user {user_id}")
    return user


def list_users(session: Session) -> list[User]:
    return list(session.scalars(select(User).order_by(User.id)))
