"""A project's repositories: registered once the lab has read them with their credentials,
seen by the project's members only; and a job's source, the commits its refs name now."""

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from latlab.core.clock import get_clock
from latlab.core.errors import Conflict, NotFound, Unprocessable
from latlab.models import Project, Repository
from latlab.repos import git
from latlab.repos.schemas import RepositoryCreate, RepositoryUpdate
from latlab_contract.repos import check_secret


def get(session: Session, project_id: int, name: str, path: str | None = None) -> Repository:
    repo = session.scalar(select(Repository).where(Repository.project_id == project_id,
                                                   Repository.name == name))
    if repo is None:
        message = f"no repository '{name}' in this project"
        raise NotFound(message) if path is None else Unprocessable(message, path)
    return repo


def list_repositories(session: Session, project_id: int) -> list[Repository]:
    return list(session.scalars(select(Repository).where(Repository.project_id == project_id)
                                .order_by(Repository.name)))


def create(session: Session, project: Project, request: RepositoryCreate) -> Repository:
    """Registers a repository after reading its default branch with its credentials: one the
    lab cannot read is refused, saying why, and nothing is stored."""
    if session.scalar(select(Repository.id).where(Repository.project_id == project.id,
                                                  Repository.name == request.name)):
        raise Conflict(f"a repository '{request.name}' exists in this project")
    git.check(request.url, request.secret, request.default_branch)
    repo = Repository(project_id=project.id, name=request.name, url=request.url,
                      default_branch=request.default_branch, secret=request.secret,
                      build_network=request.build_network, commit_url=request.commit_url,
                      created_at=get_clock().now())
    session.add(repo)
    session.flush()
    return repo


def update(session: Session, repo: Repository, request: RepositoryUpdate) -> Repository:
    """Changes a repository; a new address, branch or secret is read first, as at
    registration. Its commit URL changes when the request names it (null removes it)."""
    url = request.url or repo.url
    secret = None if request.forget_secret else request.secret or repo.secret
    branch = request.default_branch or repo.default_branch
    try:
        check_secret(url, secret)
    except ValueError as error:
        raise Unprocessable(str(error), "$.secret") from None
    if (url, secret, branch) != (repo.url, repo.secret, repo.default_branch):
        git.check(url, secret, branch)
    if url != repo.url:
        git.forget(repo)
    repo.url, repo.secret, repo.default_branch = url, secret, branch
    if request.build_network is not None:
        repo.build_network = request.build_network
    if "commit_url" in request.model_fields_set:
        repo.commit_url = request.commit_url
    session.flush()
    return repo


def delete(session: Session, repo: Repository) -> None:
    """Removes a repository (its runs keep its name and commits; queued jobs of it fail)."""
    git.forget(repo)
    session.delete(repo)


def source(session: Session, project_id: int, name: str, ref: str | None,
           compare: tuple[str, str] | None) -> tuple[Repository, dict[str, Any]]:
    """A job's source: the repository and the commits its refs name now (`compare`: a try
    job's base and head)."""
    repo = get(session, project_id, name, "$.repo")
    if compare is not None:
        base, head = compare
        return repo, {"repo": repo.name, "ref": head,
                      "commit": git.resolve(repo, head, "$.compare.head"),
                      "base": {"ref": base, "commit": git.resolve(repo, base,
                                                                  "$.compare.base")}}
    ref = ref or repo.default_branch
    return repo, {"repo": repo.name, "ref": ref, "commit": git.resolve(repo, ref)}
