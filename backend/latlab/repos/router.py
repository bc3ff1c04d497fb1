from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query, status

from latlab.auth.dependencies import Member, Reader
from latlab.core.db import DbSession
from latlab.core.errors import Conflict, NotFound, Unprocessable
from latlab.core.openapi import documented, raises
from latlab.core.routing import ApiRoute
from latlab.models import Repository
from latlab.projects import service as projects
from latlab.repos import git, service
from latlab.repos.schemas import (
    CommitRead,
    Name,
    Ref,
    RepositoryCreate,
    RepositoryRead,
    RepositoryUpdate,
)

router = APIRouter(tags=["repositories"], route_class=ApiRoute)


@raises(NotFound)
def get_repository(name: Annotated[Name, Path()], principal: Reader,
                   session: DbSession) -> Repository:
    return service.get(session, principal.project_id, name)


RepositoryFromPath = Annotated[Repository, Depends(get_repository)]


@router.post("/repositories", status_code=status.HTTP_201_CREATED,
             responses=documented(Conflict, Unprocessable))
def create_repository(body: RepositoryCreate, principal: Member,
                      session: DbSession) -> RepositoryRead:
    """Register a git repository whose code the lab's hosts may build and measure at a
    commit. The lab reads its default branch first, with the credentials given: a repository
    it cannot read is refused, saying why."""
    return repository_read(service.create(session, projects.writable(principal.project), body))


@router.get("/repositories")
def list_repositories(principal: Reader, session: DbSession) -> list[RepositoryRead]:
    """The project's repositories (never their credentials)."""
    return [repository_read(r) for r in service.list_repositories(session, principal.project_id)]


@router.get("/repositories/{name}")
def get_repository_route(repo: RepositoryFromPath) -> RepositoryRead:
    """A repository (never its credentials)."""
    return repository_read(repo)


@router.patch("/repositories/{name}", responses=documented(Unprocessable))
def update_repository(repo: RepositoryFromPath, body: RepositoryUpdate, principal: Member,
                      session: DbSession) -> RepositoryRead:
    """Change a repository's address, default branch, credentials, build network or commit
    URL (null removes it); a new address, branch or secret is read first."""
    projects.writable(principal.project)
    return repository_read(service.update(session, repo, body))


@router.delete("/repositories/{name}", status_code=status.HTTP_204_NO_CONTENT)
def delete_repository(repo: RepositoryFromPath, principal: Member, session: DbSession) -> None:
    """Remove a repository: its runs keep its name and commits; its queued jobs fail."""
    service.delete(session, repo)


@router.get("/repositories/{name}/commits", responses=documented(Unprocessable))
def list_commits(repo: RepositoryFromPath,
                 ref: Annotated[Ref | None, Query(description="Branch, tag or commit; "
                                                  "default: the default branch")] = None,
                 limit: Annotated[int, Query(ge=1, le=200)] = 30) -> list[CommitRead]:
    """The newest commits reachable from `ref`, newest first, fetched now: what a try job
    or a job at a commit may name."""
    return [CommitRead(sha=c.sha, subject=c.subject, author=c.author,
                       committed_at=c.committed_at)
            for c in git.commits(repo, ref or repo.default_branch, limit)]


def repository_read(repo: Repository) -> RepositoryRead:
    return RepositoryRead(id=repo.id, name=repo.name, url=repo.url,
                          default_branch=repo.default_branch, has_secret=repo.secret is not None,
                          build_network=repo.build_network, commit_url=repo.commit_url,
                          created_at=repo.created_at)
