"""A repository at a commit, fetched and built on the runner: only that commit is fetched, and
it is built once per (repository, commit, recipe) into the runner's cache, the build running
as code under test (sandbox.py) with the checkout and its own HOME given to the code user."""

import fcntl
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from latlab_contract import RepoCheckout
from latlab_contract.repos import NO_SUCH_COMMIT, REFUSED_WANT, git_env, git_error
from latlab_workers.errors import JobError, JobTimedOut
from latlab_workers.processes import kill_group
from latlab_workers.sandbox import Sandbox

SHA = re.compile(r"[0-9a-f]{40}")
LOG_TAIL = 2000
# Every branch and tag: what a server that refuses a commit asked for by sha sends instead.
ALL_REFS = ["+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*"]


@dataclass(frozen=True)
class Recipe:
    """How a suite builds a repository: its command (rendered; empty builds nothing), its
    environment besides the sandbox's, and the paths (relative to the checkout) that must
    exist afterwards."""

    command: list[str]
    env: dict[str, str]
    artifacts: list[str]


def fetch(repo: RepoCheckout, commit: str, dest: Path, deadline: float) -> None:
    """Checks out `commit` of `repo` (a 40-hex sha) into `dest`, fetching only that commit
    (every branch and tag instead when the server will not send a commit by its sha). The
    secret reaches git through its environment, never a command line or a message."""
    if not SHA.fullmatch(commit):
        raise JobError(f"fetching {repo.repo}: '{commit[:50]}' is not a 40-hex commit sha")
    with tempfile.TemporaryDirectory(prefix="latlab-git-") as scratch:
        try:
            env = git_env(repo.url, repo.secret, Path(scratch))
        except ValueError as error:
            raise _fetch_failed(repo, commit, str(error)) from None

        def git(*args: str, check: bool = True) -> subprocess.CompletedProcess[bytes]:
            done = _git(list(args), dest, env, deadline, f"fetching {repo.repo}")
            if check and done.returncode != 0:
                raise _fetch_failed(repo, commit, git_error(done.stderr, repo.secret))
            return done

        dest.mkdir(parents=True, exist_ok=True)
        git("init", "-q", "--template=")
        by_sha = git("fetch", "--depth", "1", "--no-tags", repo.url, commit, check=False)
        if by_sha.returncode != 0:
            if not any(refusal.encode() in by_sha.stderr for refusal in REFUSED_WANT):
                raise _fetch_failed(repo, commit, git_error(by_sha.stderr, repo.secret))
            git("fetch", "--no-tags", repo.url, *ALL_REFS)
        if git("cat-file", "-e", f"{commit}^{{commit}}", check=False).returncode != 0:
            raise _fetch_failed(repo, commit, NO_SUCH_COMMIT)
        git("-c", "advice.detachedHead=false", "checkout", "-q", "--detach", commit)


def built(repo: RepoCheckout, commit: str, recipe: Recipe, root: Path, sandbox: Sandbox,
          deadline: float) -> Path:
    """The checkout of `commit` built by `recipe`, built once per (repository, secret,
    commit, recipe, code user) into `root/<key>/` (`src/` the checkout, `home/` the build's HOME,
    `build.log`); a lock serialises concurrent builds of one key. Returns `src/`.

    The key is salted with a secret of the runner's, so no build's path can be guessed, and
    `root` may be traversed but not listed: the code user, common to every project, finds no
    other project's build. It covers the secret, so a project that cannot fetch a repository
    is not handed another project's build of it."""
    root.mkdir(parents=True, exist_ok=True)
    os.chmod(root, 0o711)
    build_dir = root / _key(root, repo, commit, recipe, sandbox.user)
    src, marker = build_dir / "src", build_dir / ".built"
    if marker.exists():
        return src
    # The build's directory stays the runner's (the code user owns only src/ and home/):
    # the build can replace neither its log nor its marker, say by a link to a root file.
    build_dir.mkdir(mode=0o711, exist_ok=True)
    with open(build_dir / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if marker.exists():
            return src
        home = build_dir / "home"
        for stale in (src, home):  # a failed or interrupted build's
            shutil.rmtree(stale, ignore_errors=True)
        fetch(repo, commit, src, deadline)
        (home / "tmp").mkdir(parents=True)
        sandbox.give(src)
        sandbox.give(home)
        if recipe.command:
            _build(repo, commit, recipe, build_dir, sandbox, deadline)
        for artifact in recipe.artifacts:
            if Path(artifact).is_absolute() or ".." in Path(artifact).parts:
                raise JobError(f"building {repo.repo}: the artifact '{artifact}' is not a path "
                               "inside the checkout")
            if not os.path.lexists(src / artifact):
                raise JobError(f"building {repo.repo} at {commit[:12]} made no {artifact} "
                               "(an artifact the suite runs)")
        marker.touch()
    return src


def _build(repo: RepoCheckout, commit: str, recipe: Recipe, build_dir: Path, sandbox: Sandbox,
           deadline: float) -> None:
    """Runs the recipe's command in the checkout as code under test, its output in
    build.log; a build that outlives the deadline is killed with its process group (the
    sandbox kills what left the group when the job ends)."""
    what = f"building {repo.repo} at {commit[:12]}"
    log_path = build_dir / "build.log"
    with open(log_path, "wb") as log:
        try:
            process = subprocess.Popen(
                recipe.command, cwd=build_dir / "src", env=sandbox.env(build_dir / "home",
                                                                       recipe.env),
                stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True, preexec_fn=sandbox.confine(network=repo.build_network))
        except (OSError, subprocess.SubprocessError) as error:
            raise JobError(f"{what} failed: cannot run {recipe.command[0]}: {error}") from None
        try:
            process.wait(timeout=_remaining(deadline, what))
        except subprocess.TimeoutExpired:
            kill_group(process)
            raise JobTimedOut(f"{what} ran out of the job's time") from None
    if process.returncode != 0:
        tail = log_path.read_bytes()[-LOG_TAIL:].decode(errors="replace").strip()
        raise JobError(f"{what} failed (exit {process.returncode}): {tail}")


def _git(args: list[str], cwd: Path, env: dict[str, str], deadline: float,
         what: str) -> subprocess.CompletedProcess[bytes]:
    """git run to completion, killed with the helpers it started (a remote transport, ssh)
    when the deadline passes."""
    process = subprocess.Popen(["git", *args], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=_remaining(deadline, what))
    except subprocess.TimeoutExpired:
        kill_group(process)
        process.communicate()
        raise JobTimedOut(f"{what} ran out of the job's time") from None
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def _remaining(deadline: float, what: str) -> float:
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        raise JobTimedOut(f"{what} ran out of the job's time")
    return remaining


def _fetch_failed(repo: RepoCheckout, commit: str, reason: str) -> JobError:
    return JobError(f"fetching {repo.repo} at {commit[:12]} failed: {reason}")


def _key(root: Path, repo: RepoCheckout, commit: str, recipe: Recipe, user: str) -> str:
    # The code user owns the build (src/, home/): another user could not run or rebuild it.
    material = json.dumps([repo.url, repo.secret, commit, asdict(recipe), user], sort_keys=True)
    return hashlib.sha256(_salt(root) + material.encode()).hexdigest()[:32]


def _salt(root: Path) -> bytes:
    """The runner's random salt of build keys, made once (0600: only the runner reads it)."""
    salt = root / ".salt"
    if not salt.exists():
        with tempfile.NamedTemporaryFile(dir=root, prefix=".salt-", delete=False) as new:
            new.write(os.urandom(32))
        try:
            os.link(new.name, salt)  # the first runner to link it wins; the others read it
        except FileExistsError:
            pass
        finally:
            os.unlink(new.name)
    return salt.read_bytes()
