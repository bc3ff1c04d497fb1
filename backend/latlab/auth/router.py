from typing import Annotated
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Path, Query, Request, Response, status
from fastapi.responses import RedirectResponse

from latlab.audit import service as audit
from latlab.audit.schemas import Action, AuditEventRead, AuditPage, EntityType
from latlab.auth import oidc, service, throttle
from latlab.auth.dependencies import (
    SESSION_COOKIE,
    Admin,
    Member,
    Reader,
    SignedIn,
    client_address,
    require_json_write,
)
from latlab.auth.schemas import (
    LoginRequest,
    MeRead,
    SignInOptions,
    SignInProvider,
    TokenCreate,
    TokenCreated,
    TokenRead,
    UserCreate,
    UserRead,
    UserUpdate,
)
from latlab.core.db import DbSession
from latlab.core.errors import Conflict, Forbidden, NotFound, TooManyRequests, Unauthorized
from latlab.core.openapi import documented, raises
from latlab.core.params import Id, IdQuery, Limit, Offset
from latlab.core.routing import ApiRoute
from latlab.core.schemas import Moment
from latlab.core.settings import get_settings
from latlab.models import ApiToken, Project, User
from latlab.projects import service as projects
from latlab.projects.schemas import (
    CurrentProject,
    ProjectCreate,
    ProjectRead,
    ProjectSlug,
    ProjectUpdate,
)

router = APIRouter(tags=["auth"], route_class=ApiRoute)
# Projects are where users may work: the same access rules, so the same room.
projects_router = APIRouter(tags=["projects"], route_class=ApiRoute)


@router.post("/auth/login", responses=documented(Unauthorized, TooManyRequests, Forbidden))
def login(body: LoginRequest, request: Request, response: Response,
          session: DbSession) -> MeRead:
    """Sign in with email and password; sets the HttpOnly session cookie, and a device
    cookie that lets this browser past other clients' failed sign-ins later. Failed sign-ins
    are throttled per account (429 with Retry-After) and slowed per address. Refused (403)
    when the lab signs in through its providers only."""
    if not get_settings().password_sign_in:
        raise Forbidden("sign-in with a password is off here: use your organisation's "
                        "sign-in (GET /auth/providers)")
    device = request.cookies.get(throttle.DEVICE_COOKIE)
    user, device = service.authenticate(
        session, body.email, body.password, client_address(request),
        device if device and len(device) <= 64 else None)
    secure = _session_cookie(response, service.open_session(session, user))
    settings = get_settings()
    if device:
        response.set_cookie(throttle.DEVICE_COOKIE, device, httponly=True, samesite="strict",
                            secure=secure, max_age=settings.login_device_days * 86400,
                            path="/api/v1/auth/login")
    return _me(session, user, projects.default_for(session, user))


def _session_cookie(response: Response, cookie: str) -> bool:
    """Sets the session cookie; whether cookies are `Secure` (an https lab)."""
    settings = get_settings()
    secure = settings.public_url.startswith("https://")
    response.set_cookie(SESSION_COOKIE, cookie, httponly=True, samesite="lax", secure=secure,
                        max_age=settings.session_days * 86400, path="/")
    return secure


ProviderName = Annotated[str, Path(pattern=oidc.NAME)]


@router.get("/auth/providers")
def sign_in_options() -> SignInOptions:
    """How to sign in here: with a password, and with which OpenID Connect providers."""
    return SignInOptions(passwords=get_settings().password_sign_in, providers=[
        SignInProvider(name=p.name, label=p.label) for p in oidc.providers().values()])


@router.get("/auth/oidc/{name}/start", response_class=RedirectResponse, status_code=302,
            responses=documented(NotFound))
def oidc_start(name: ProviderName, next: Annotated[str, Query(max_length=2000)] = "/"
               ) -> RedirectResponse:
    """Sign in with a provider: to its sign-in page, with this browser's state cookie."""
    started = oidc.start(name, _callback_url(name), next)
    redirect = RedirectResponse(started.url, status_code=302)
    redirect.set_cookie(oidc.STATE_COOKIE, started.state, httponly=True, samesite="lax",
                        secure=get_settings().public_url.startswith("https://"),
                        max_age=oidc.STATE_TTL_S, path="/api/v1/auth/oidc")
    return redirect


@router.get("/auth/oidc/{name}/callback", response_class=RedirectResponse, status_code=302,
            responses=documented(NotFound))
def oidc_callback(name: ProviderName, request: Request, session: DbSession,
                  code: Annotated[str, Query(max_length=4000)] = "",
                  state: Annotated[str, Query(max_length=200)] = "",
                  error: Annotated[str | None, Query(max_length=500)] = None,
                  error_description: Annotated[str | None, Query(max_length=2000)] = None,
                  ) -> RedirectResponse:
    """Back from the provider: the session cookie and the page the sign-in started from, or
    the sign-in page saying what went wrong. A provider the lab does not know is 404."""
    oidc.provider(name)
    try:
        if error is not None:
            raise oidc.SignInFailed(f"the provider said: {error_description or error}")
        user, landing = oidc.finish(session, name, code, state,
                                    request.cookies.get(oidc.STATE_COOKIE))
    except (oidc.SignInFailed, Forbidden, NotFound) as failed:
        redirect = RedirectResponse(f"/login?{urlencode({'error': failed.detail})}", 302)
    else:
        redirect = RedirectResponse(landing, status_code=302)
        _session_cookie(redirect, service.open_session(session, user))
    redirect.delete_cookie(oidc.STATE_COOKIE, path="/api/v1/auth/oidc")
    return redirect


def _callback_url(name: str) -> str:
    return f"{get_settings().public_url.rstrip('/')}/api/v1/auth/oidc/{name}/callback"


@router.post("/auth/logout", status_code=status.HTTP_204_NO_CONTENT,
             responses=documented(Forbidden))
def logout(request: Request, response: Response, session: DbSession) -> None:
    """Sign out: ends the session behind the cookie."""
    cookie = request.cookies.get(SESSION_COOKIE)
    if cookie:
        require_json_write(request)
        service.close_session(session, cookie)
    response.delete_cookie(SESSION_COOKIE, path="/")


@router.get("/auth/me")
def me(principal: SignedIn, session: DbSession) -> MeRead:
    """The signed-in user and the project the dashboard shows."""
    return _me(session, principal.signed_in, principal.current_project)


@router.put("/auth/project", responses=documented(NotFound))
def switch_project(body: CurrentProject, principal: SignedIn, session: DbSession) -> MeRead:
    """Show another of your projects in this dashboard session."""
    project = service.switch_project(session, principal, body.project)
    return _me(session, principal.signed_in, project)


@router.post("/tokens", status_code=status.HTTP_201_CREATED,
             responses=documented(Conflict, NotFound))
def create_token(body: TokenCreate, principal: Member, session: DbSession) -> TokenCreated:
    """Create an API token for CI, in the current project unless one is named; the secret is
    in `token` and is never shown again. The token never does more than its creator's role
    allows, and dies with the creator's deactivation."""
    token, secret = service.create_token(session, principal.signed_in, body,
                                         principal.current_project)
    return TokenCreated(**_token_read(token).model_dump(), token=secret)


@router.get("/tokens")
def list_tokens(principal: SignedIn, session: DbSession) -> list[TokenRead]:
    """Your API tokens (an admin sees everyone's), without their secrets."""
    return [_token_read(t) for t in service.list_tokens(session, principal.signed_in)]


@router.delete("/tokens/{token_id}", status_code=status.HTTP_204_NO_CONTENT)
def revoke_token(token_id: Id, principal: Member, session: DbSession) -> None:
    """Revoke one of your tokens (an admin: anyone's); it is refused from now on."""
    service.revoke_token(session, token_id, principal.signed_in)


@router.get("/users")
def list_users(admin: Admin, session: DbSession) -> list[UserRead]:
    """All users (admin only)."""
    return _users(session, service.list_users(session))


@router.post("/users", status_code=status.HTTP_201_CREATED,
             responses=documented(Conflict, NotFound))
def create_user(body: UserCreate, admin: Admin, session: DbSession) -> UserRead:
    """Add a user with a role and projects (admin only)."""
    return _users(session, [service.create_user(session, body)])[0]


@router.patch("/users/{user_id}", responses=documented(Conflict))
def update_user(user_id: Id, body: UserUpdate, admin: Admin, session: DbSession) -> UserRead:
    """Change a user's name, password, role, projects or active flag (admin only; not your
    own role or active flag)."""
    user = service.update_user(session, user_id, body, admin.signed_in)
    return _users(session, [user])[0]


@raises(NotFound)
def get_project(slug: ProjectSlug, principal: Reader, session: DbSession) -> Project:
    """A project the caller may see (a token sees its own only)."""
    project = projects.get(session, slug)
    visible = (project.id == principal.project_id if principal.user is None
               else projects.may_use(session, principal.user, project.id))
    if not visible:
        raise NotFound(f"no project '{slug}'")
    return project


ProjectFromPath = Annotated[Project, Depends(get_project)]


@projects_router.get("/projects")
def list_projects(principal: Reader, session: DbSession) -> list[ProjectRead]:
    """The projects the caller may use: an admin's are all, a token's is its own."""
    found = ([principal.project] if principal.user is None
             else projects.visible(session, principal.user))
    return [ProjectRead.model_validate(p) for p in found]


@projects_router.post("/projects", status_code=status.HTTP_201_CREATED,
                      responses=documented(Conflict))
def create_project(body: ProjectCreate, admin: Admin, session: DbSession) -> ProjectRead:
    """Create a project (admin only); its creator is a member."""
    return ProjectRead.model_validate(projects.create(session, body, admin.signed_in))


@projects_router.get("/projects/{slug}")
def read_project(project: ProjectFromPath) -> ProjectRead:
    """One project."""
    return ProjectRead.model_validate(project)


@projects_router.patch("/projects/{slug}")
def update_project(project: ProjectFromPath, body: ProjectUpdate, admin: Admin,
                   session: DbSession) -> ProjectRead:
    """Rename a project, change its settings, archive or restore it (admin only)."""
    return ProjectRead.model_validate(projects.update(session, project, body))


def _users(session: DbSession, users: list[User]) -> list[UserRead]:
    slugs = projects.memberships(session, [u.id for u in users])
    return [UserRead(id=u.id, email=u.email, name=u.name, role=u.role, is_active=u.is_active,
                     projects=slugs[u.id]) for u in users]


def _me(session: DbSession, user: User, project: Project | None) -> MeRead:
    read = _users(session, [user])[0]
    return MeRead(**read.model_dump(),
                  project=None if project is None else ProjectRead.model_validate(project))


def _token_read(token: ApiToken) -> TokenRead:
    return TokenRead(
        id=token.id, name=token.name, project=token.project.slug, prefix=token.prefix,
        scopes=token.scopes, created_by_id=token.created_by_id, created_at=token.created_at,
        expires_at=token.expires_at, revoked_at=token.revoked_at,
        last_used_at=token.last_used_at,
    )


@router.get("/audit", tags=["audit"])
def list_audit_events(
    admin: Admin, session: DbSession,
    entity_type: EntityType | None = None, entity_id: IdQuery | None = None,
    action: Action | None = None,
    actor_user_id: IdQuery | None = None,
    since: Annotated[Moment | None, Query(description="ISO 8601, inclusive")] = None,
    until: Annotated[Moment | None, Query(description="ISO 8601, exclusive")] = None,
    limit: Limit = 50, offset: Offset = 0,
) -> AuditPage:
    """Who changed what and when (admins): the current project's users, tokens, rules,
    channels, baselines, schedules and settings, and the lab's users; newest first."""
    events, total = audit.list_events(session, audit.AuditFilters(
        project_id=admin.project_id, entity_type=entity_type, entity_id=entity_id,
        action=action, actor_user_id=actor_user_id, since=since, until=until), limit, offset)
    return AuditPage(items=[AuditEventRead.model_validate(e) for e in events], total=total,
                     limit=limit, offset=offset)
