from typing import Annotated

from fastapi import APIRouter, Query, status

from latlab.annotations import service
from latlab.annotations.schemas import AnnotationCreate, AnnotationRead
from latlab.auth.dependencies import Reader, RunWriter
from latlab.core.db import DbSession
from latlab.core.errors import Conflict, NotFound
from latlab.core.openapi import documented
from latlab.core.params import Id, Limit
from latlab.core.routing import ApiRoute
from latlab.core.schemas import Moment
from latlab.projects import service as projects
from latlab_contract.fields import HOST_NAME, SLUG

router = APIRouter(tags=["annotations"], route_class=ApiRoute)


@router.post("/annotations", status_code=status.HTTP_201_CREATED,
             responses=documented(Conflict))
def annotate(body: AnnotationCreate, principal: RunWriter, session: DbSession
             ) -> AnnotationRead:
    """Mark a moment on the project's trends: a deploy, a config change, a new machine. A
    token with runs:write may (a CI step after a deploy)."""
    annotation = service.create(session, projects.writable(principal.project), body,
                                principal.actor.label)
    return AnnotationRead.model_validate(annotation)


@router.get("/annotations")
def list_annotations(
    principal: Reader, session: DbSession,
    suite: Annotated[str | None, Query(
        pattern=SLUG, description="Those of this suite and of every suite")] = None,
    host: Annotated[str | None, Query(
        pattern=HOST_NAME, description="Those of this host and of every host")] = None,
    since: Annotated[Moment | None, Query(description="From this moment on (ISO 8601)")] = None,
    until: Annotated[Moment | None, Query(description="Up to this moment (ISO 8601)")] = None,
    limit: Limit = 100,
) -> list[AnnotationRead]:
    """The project's annotations, newest first: people's and CI's notes, and the lab's own
    (a host's tuning changed, a suite's version changed)."""
    return [AnnotationRead.model_validate(a) for a in service.listed(
        session, principal.project_id, suite=suite, host=host, since=since, until=until,
        limit=limit)]


@router.delete("/annotations/{annotation_id}", status_code=status.HTTP_204_NO_CONTENT,
               responses=documented(NotFound, Conflict))
def delete_annotation(annotation_id: Id, principal: RunWriter, session: DbSession) -> None:
    """Remove an annotation, the lab's own included (the audit log keeps what it said)."""
    service.delete(session, projects.writable(principal.project).id, annotation_id)
