"""The api's view of a project's repositories, through git itself (argument lists, never a
shell; credentials in the environment, never on a command line): a repository is checked
when it is registered, and a bare mirror of it, fetched on demand, resolves a job's ref to
the commit it measures and lists recent commits."""

import fcntl
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from latlab.core.errors import Unprocessable
from latlab.core.settings import get_settings
from latlab.models import Repository
from latlab_contract.repos import BASE_ENV, git_env, git_error

_SHA = re.compile(r"^[0-9a-f]{40}$")
_REFS = ["+refs/heads/*:refs/heads/*", "+refs/tags/*:refs/tags/*"]


@dataclass(frozen=True)
class Commit:
    sha: str
    subject: str
    author: str
    committed_at: datetime


class GitFailed(Unprocessable):
    """git could not do what was asked; the detail says why, in git's words."""


def check(url: str, secret: str | None, branch: str) -> None:
    """That the lab can read the repository at `url` with `secret` and that it has `branch`."""
    with _scratch() as scratch:
        found = _git(["ls-remote", "--heads", "--end-of-options", url,
                      f"refs/heads/{branch}"], scratch, url, secret, f"cannot read {url}")
    if not found.strip():
        raise GitFailed(f"{url} has no branch '{branch}'", "$.default_branch")


def resolve(repo: Repository, ref: str, path: str = "$.ref") -> str:
    """The commit `ref` (a branch, a tag, or a commit's sha, whole or abbreviated) names in
    the repository now."""
    return _lookup(repo, _sync(repo), ref, path)


def commits(repo: Repository, ref: str, limit: int) -> list[Commit]:
    """The newest `limit` commits reachable from `ref`, newest first."""
    mirror = _sync(repo)
    sha = _lookup(repo, mirror, ref, "query.ref")
    with _scratch() as scratch:
        text = _git(["log", f"--max-count={limit}", "--format=%H%x00%s%x00%an%x00%cI", sha,
                     "--"], scratch, repo.url, None, "cannot list commits", cwd=mirror)
    found = []
    for line in text.splitlines():
        sha, subject, author, when = line.split("\x00")
        found.append(Commit(sha, subject, author, datetime.fromisoformat(when)))
    return found


def first_parent(repo: Repository, good: str, bad: str, limit: int) -> list[Commit]:
    """The commits from `good` to `bad` along `bad`'s first parents (a merge is one commit),
    oldest first, both included: a bisection's range. Refused when `good` is not on that path
    (not an ancestor, or only through a merged branch), or when more than `limit` commits
    lie between them."""
    mirror = _sync(repo)
    with _scratch() as scratch:
        text = _git(["log", "--first-parent", "--reverse", f"--max-count={limit + 1}",
                     "--format=%H%x00%P%x00%s%x00%an%x00%cI", f"{bad}", f"^{good}", "--"],
                    scratch, repo.url, None, "cannot list commits", cwd=mirror, path="$.bad")
    rows = [line.split("\x00") for line in text.splitlines()]
    if not rows:
        raise GitFailed(f"{bad[:10]} is {good[:10]} or older: nothing lies between them",
                        "$.bad")
    if len(rows) > limit:
        raise GitFailed(f"more than {limit} commits lie between {good[:10]} and {bad[:10]}",
                        "$.good")
    if rows[0][1].split(" ")[0] != good:
        raise GitFailed(f"{good[:10]} is not on {bad[:10]}'s first-parent history", "$.good")
    found = [Commit(good, *_described(mirror, good))]
    return found + [Commit(sha, subject, author, datetime.fromisoformat(when))
                    for sha, _, subject, author, when in rows]


def _described(mirror: Path, sha: str) -> tuple[str, str, datetime]:
    completed = subprocess.run(["git", "log", "-1", "--format=%s%x00%an%x00%cI", sha, "--"],
                               cwd=mirror, capture_output=True, check=True, env=BASE_ENV,
                               timeout=get_settings().git_timeout_s)
    subject, author, when = completed.stdout.decode(errors="replace").strip().split("\x00")
    return subject, author, datetime.fromisoformat(when)


def forget(repo: Repository) -> None:
    """Deletes the repository's mirror (it was removed, or now points elsewhere)."""
    shutil.rmtree(_mirror_path(repo), ignore_errors=True)


def _sync(repo: Repository) -> Path:
    """The repository's mirror, its branches and tags fetched now."""
    mirror = _mirror_path(repo)
    mirror.parent.mkdir(parents=True, exist_ok=True)
    with _locked(mirror), _scratch() as scratch:
        if not (mirror / "HEAD").exists():
            _git(["init", "--quiet", "--bare", str(mirror)], scratch, repo.url, None,
                 "cannot make a mirror")
        _git(["fetch", "--quiet", "--prune", "--force", "--end-of-options", repo.url, *_REFS],
             scratch, repo.url, repo.secret, f"cannot fetch {repo.name}", cwd=mirror,
             path="$.repo")
    return mirror


def _lookup(repo: Repository, mirror: Path, ref: str, path: str) -> str:
    sha = _rev_parse(mirror, ref)
    if sha is None and _SHA.match(ref):  # a commit no branch or tag holds (a PR's head)
        with _locked(mirror), _scratch() as scratch:
            _git(["fetch", "--quiet", "--depth=1", "--end-of-options", repo.url, ref],
                 scratch, repo.url, repo.secret, f"{repo.name} has no commit {ref}",
                 cwd=mirror, path=path)
        sha = _rev_parse(mirror, ref)
    if sha is None:
        raise GitFailed(f"repository '{repo.name}' has no branch, tag or commit '{ref}'", path)
    return sha


def _rev_parse(mirror: Path, ref: str) -> str | None:
    completed = subprocess.run(
        ["git", "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"],
        cwd=mirror, capture_output=True, timeout=get_settings().git_timeout_s, check=False,
        env=BASE_ENV)
    sha = completed.stdout.decode().strip()
    return sha if completed.returncode == 0 and _SHA.match(sha) else None


def _git(args: list[str], scratch: Path, url: str, secret: str | None, failure: str,
         cwd: Path | None = None, path: str = "$.url") -> str:
    """Runs git with the repository's credentials; a failure is a `GitFailed` saying
    `failure` and git's reason."""
    env = git_env(url, secret, scratch)
    try:
        completed = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True,
                                   timeout=get_settings().git_timeout_s, check=False)
    except subprocess.TimeoutExpired:
        raise GitFailed(f"{failure}: git took longer than "
                        f"{get_settings().git_timeout_s:.0f} s", path) from None
    if completed.returncode != 0:
        raise GitFailed(f"{failure}: {git_error(completed.stderr)}", path)
    return completed.stdout.decode(errors="replace")


def _mirror_path(repo: Repository) -> Path:
    return get_settings().repo_mirrors / f"{repo.id}.git"


@contextmanager
def _locked(mirror: Path) -> Iterator[None]:
    """One fetch of a mirror at a time (api processes share the mirrors)."""
    with open(mirror.with_suffix(".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        yield


@contextmanager
def _scratch() -> Iterator[Path]:
    """A private folder for what git needs beside its environment (an ssh key)."""
    with tempfile.TemporaryDirectory(prefix="latlab-git-") as folder:
        yield Path(folder)
