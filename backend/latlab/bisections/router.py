from typing import Annotated

from fastapi import APIRouter, Depends, Response, status
from sqlalchemy import select
from sqlalchemy.orm import object_session

from latlab.auth.dependencies import JobWriter, Reader, rate_limited
from latlab.bisections import service
from latlab.bisections.schemas import BisectionCreate, BisectionRead, CommitState, Step
from latlab.core.db import DbSession
from latlab.core.errors import Conflict, NotFound, Unprocessable
from latlab.core.openapi import documented, raises
from latlab.core.params import Id, Limit
from latlab.core.rate_limits import Use
from latlab.core.routing import ApiRoute
from latlab.models import Bisection, Repository
from latlab.projects import service as projects

router = APIRouter(tags=["bisections"], route_class=ApiRoute)


@raises(NotFound)
def get_bisection(bisection_id: Id, principal: Reader, session: DbSession) -> Bisection:
    found = session.get(Bisection, bisection_id)
    if found is None or found.project_id != principal.project_id:
        raise NotFound(f"bisection {bisection_id} not found")
    return found


BisectionFromPath = Annotated[Bisection, Depends(get_bisection)]


@router.post("/bisections", status_code=status.HTTP_201_CREATED,
             responses=documented(Conflict, Unprocessable),
             dependencies=rate_limited(Use.job_launches))
def create_bisection(body: BisectionCreate, principal: JobWriter, session: DbSession,
                     response: Response) -> BisectionRead:
    """Search the commits between `good` and `bad` (first-parent history) for the one that
    made the series' metric worse, each step a try job on one host: the ends side by side
    first ("not reproduced" when they show no regression), then halving the range. The same
    question asked again answers with the bisection already asked (200)."""
    bisection, new = service.create(
        session, projects.writable(principal.project), body,
        None if principal.user is None else principal.user.id)
    if not new:
        response.status_code = status.HTTP_200_OK
    return bisection_read(bisection)


@router.get("/bisections")
def list_bisections(principal: Reader, session: DbSession, limit: Limit = 50
                    ) -> list[BisectionRead]:
    """The project's bisections, newest first."""
    return [bisection_read(b) for b in session.scalars(
        select(Bisection).where(Bisection.project_id == principal.project_id)
        .order_by(Bisection.id.desc()).limit(limit))]


@router.get("/bisections/{bisection_id}")
def read_bisection(bisection: BisectionFromPath) -> BisectionRead:
    """A bisection: its commits as the search knows them, its steps, how it ended."""
    return bisection_read(bisection)


@router.post("/bisections/{bisection_id}/cancel", responses=documented(Conflict))
def cancel_bisection(bisection: BisectionFromPath, principal: JobWriter,
                     session: DbSession) -> BisectionRead:
    """End a running bisection; its step's job is cancelled."""
    projects.writable(principal.project)
    service.cancel(session, bisection)
    return bisection_read(bisection)


def bisection_read(bisection: Bisection) -> BisectionRead:
    return BisectionRead(
        id=bisection.id, repo=bisection.repo, commit_url=_commit_url(bisection),
        good=bisection.commits[0]["sha"],
        bad=bisection.commits[-1]["sha"], suite=bisection.suite, scenario=bisection.scenario,
        params=bisection.params, series=bisection.series, metric=bisection.metric,
        status=bisection.status,
        commits=[CommitState(**commit, state=service.state(bisection, index))
                 for index, commit in enumerate(bisection.commits)],
        steps=[Step(**{k: v for k, v in step.items() if not k.endswith("_index")})
               for step in bisection.steps], result=bisection.result,
        message=bisection.message, max_minutes=bisection.max_minutes,
        created_at=bisection.created_at, finished_at=bisection.finished_at)


def _commit_url(bisection: Bisection) -> str | None:
    """The commit URL of the bisection's repository, while it is registered (one query per
    repository a session reads, its identity map remembering it)."""
    session = object_session(bisection)
    if session is None or bisection.repository_id is None:
        return None
    repository = session.get(Repository, bisection.repository_id)
    return None if repository is None else repository.commit_url
