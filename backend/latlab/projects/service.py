"""Projects and their members. Admins see every project; other users the ones they belong to."""

from collections.abc import Iterable

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from latlab.core.clock import get_clock
from latlab.core.errors import Conflict, NotFound
from latlab.core.settings import get_settings
from latlab.models import Project, ProjectMember, Role, User
from latlab.projects.schemas import ProjectCreate, ProjectUpdate


class ProjectArchived(Conflict):
    pass


def get(session: Session, slug: str) -> Project:
    project = session.scalar(select(Project).where(Project.slug == slug))
    if project is None:
        raise NotFound(f"no project '{slug}'")
    return project


def ensure(session: Session, slug: str) -> Project:
    """The project with this slug, made if missing (the default project of a new lab)."""
    project = session.scalar(select(Project).where(Project.slug == slug))
    if project is None:
        project = Project(slug=slug, name=slug, created_at=get_clock().now())
        session.add(project)
        session.flush()
    return project


def create(session: Session, request: ProjectCreate, creator: User) -> Project:
    if session.scalar(select(Project.id).where(Project.slug == request.slug)) is not None:
        raise Conflict(f"a project '{request.slug}' exists")
    project = Project(slug=request.slug, name=request.name,
                      confirm_regressions=request.confirm_regressions,
                      bisect_regressions=request.bisect_regressions,
                      created_at=get_clock().now())
    session.add(project)
    session.flush()
    add_member(session, project, creator)
    return project


def update(session: Session, project: Project, request: ProjectUpdate) -> Project:
    if request.name is not None:
        project.name = request.name
    if request.confirm_regressions is not None:
        project.confirm_regressions = request.confirm_regressions
    if request.bisect_regressions is not None:
        project.bisect_regressions = request.bisect_regressions
    if request.allow_private_webhooks is not None:
        project.allow_private_webhooks = request.allow_private_webhooks
    if request.archived is not None:
        archived = project.archived_at is not None
        if request.archived and not archived:
            project.archived_at = get_clock().now()
        elif not request.archived and archived:
            project.archived_at = None
    session.flush()
    return project


def writable(project: Project) -> Project:
    """The project, if it takes new data."""
    if project.archived_at is not None:
        raise ProjectArchived(f"project '{project.slug}' is archived; it takes nothing new")
    return project


def visible(session: Session, user: User) -> list[Project]:
    """The projects a user may switch to: all for an admin, else their memberships."""
    query = select(Project).order_by(Project.slug)
    if user.role is not Role.admin:
        query = query.join(ProjectMember, ProjectMember.project_id == Project.id).where(
            ProjectMember.user_id == user.id)
    return list(session.scalars(query))


def may_use(session: Session, user: User, project_id: int) -> bool:
    if user.role is Role.admin:
        return True
    return session.scalar(select(ProjectMember.user_id).where(
        ProjectMember.project_id == project_id, ProjectMember.user_id == user.id)) is not None


def writers(session: Session, project_id: int, user_id: int | None = None) -> list[User]:
    """The project's active users who may change its data (its members who are not viewers,
    and the lab's admins), by email; with `user_id`, that user if they are one."""
    members = select(ProjectMember.user_id).where(ProjectMember.project_id == project_id)
    query = select(User).where(
        User.is_active,
        or_(User.role == Role.admin, (User.role == Role.member) & User.id.in_(members)))
    if user_id is not None:
        query = query.where(User.id == user_id)
    return list(session.scalars(query.order_by(User.email)))


def default_for(session: Session, user: User) -> Project | None:
    """Where a user lands: the lab's default project if they may use it, else their first
    project that is not archived, else their first."""
    projects = visible(session, user)
    preferred = get_settings().default_project
    for project in projects:
        if project.slug == preferred and project.archived_at is None:
            return project
    active = [p for p in projects if p.archived_at is None]
    return next(iter(active or projects), None)


def add_member(session: Session, project: Project, user: User) -> None:
    if session.get(ProjectMember, (project.id, user.id)) is None:
        session.add(ProjectMember(project_id=project.id, user_id=user.id,
                                  created_at=get_clock().now()))
        session.flush()


def set_memberships(session: Session, user: User, slugs: Iterable[str]) -> None:
    """The user belongs to exactly these projects. Memberships are removed one by one through
    the session, not in bulk, so the audit log records each."""
    wanted = [get(session, slug) for slug in dict.fromkeys(slugs)]
    for member in session.scalars(select(ProjectMember).where(
            ProjectMember.user_id == user.id,
            ProjectMember.project_id.not_in([p.id for p in wanted]))).all():
        session.delete(member)
    session.flush()
    for project in wanted:
        add_member(session, project, user)


def memberships(session: Session, user_ids: list[int]) -> dict[int, list[str]]:
    """Each user's project slugs."""
    found: dict[int, list[str]] = {user_id: [] for user_id in user_ids}
    rows = session.execute(
        select(ProjectMember.user_id, Project.slug)
        .join(Project, Project.id == ProjectMember.project_id)
        .where(ProjectMember.user_id.in_(user_ids)).order_by(Project.slug))
    for user_id, slug in rows:
        found[user_id].append(slug)
    return found
