from typing import Annotated

from fastapi import APIRouter, Depends, status

from latlab.auth.dependencies import Admin, Reader
from latlab.core.db import DbSession
from latlab.core.errors import Conflict, NotFound
from latlab.core.openapi import documented, raises
from latlab.core.routing import ApiRoute
from latlab.models import Project
from latlab.projects import service
from latlab.projects.schemas import ProjectCreate, ProjectRead, ProjectSlug, ProjectUpdate

router = APIRouter(tags=["projects"], route_class=ApiRoute)


@raises(NotFound)
def get_project(slug: ProjectSlug, principal: Reader, session: DbSession) -> Project:
    """A project the caller may see (a token sees its own only)."""
    project = service.get(session, slug)
    visible = (project.id == principal.project_id if principal.user is None
               else service.may_use(session, principal.user, project.id))
    if not visible:
        raise NotFound(f"no project '{slug}'")
    return project


ProjectFromPath = Annotated[Project, Depends(get_project)]


@router.get("/projects")
def list_projects(principal: Reader, session: DbSession) -> list[ProjectRead]:
    """The projects the caller may use: an admin's are all, a token's is its own."""
    found = ([principal.project] if principal.user is None
             else service.visible(session, principal.user))
    return [ProjectRead.model_validate(p) for p in found]


@router.post("/projects", status_code=status.HTTP_201_CREATED, responses=documented(Conflict))
def create_project(body: ProjectCreate, admin: Admin, session: DbSession) -> ProjectRead:
    """Create a project (admin only); its creator is a member."""
    return ProjectRead.model_validate(service.create(session, body, admin.signed_in))


@router.get("/projects/{slug}")
def read_project(project: ProjectFromPath) -> ProjectRead:
    """One project."""
    return ProjectRead.model_validate(project)


@router.patch("/projects/{slug}")
def update_project(project: ProjectFromPath, body: ProjectUpdate, admin: Admin,
                   session: DbSession) -> ProjectRead:
    """Rename a project, change its settings, archive or restore it (admin only)."""
    return ProjectRead.model_validate(service.update(session, project, body))
