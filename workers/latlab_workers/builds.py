"""The build cache: a suite's programs built once per version into
`<cache>/<suite>/<version>` (a file lock serialises concurrent builds of one version), with the
suite's folder as built kept beside them so a later job can run that version again."""

import fcntl
import shutil
import subprocess
import sys
import time
from pathlib import Path

from latlab_workers.errors import JobError, JobTimedOut
from latlab_workers.processes import program_env
from latlab_workers.suites import Suite, SuiteError, load_suite
from latlab_workers.templates import Context, render, render_one

SNAPSHOT = "suite"  # the suite's folder as built, kept in its build directory (under its id)


def build(suite: Suite, cache_dir: Path, deadline: float) -> Path:
    """Builds the suite's programs once per version into the cache (a lock serialises
    concurrent builds of one version)."""
    build_dir = cache_dir / suite.id / suite.version
    marker = build_dir / ".built"
    if marker.exists() and (build_dir / SNAPSHOT / suite.id).is_dir():
        return build_dir
    build_dir.mkdir(parents=True, exist_ok=True)
    with open(build_dir / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        command = suite.spec.build.command
        if marker.exists() or command is None:  # built before snapshots were kept, or no build
            _snapshot(suite, build_dir)
            marker.touch()
            return build_dir
        context: Context = dict(program_context(suite, build_dir))
        env = {**program_env(),
               **{k: render_one(v, context) for k, v in suite.spec.build.env.items()}}
        try:
            completed = subprocess.run(
                render(command, context), cwd=suite.directory, env=env,
                capture_output=True, timeout=max(deadline - time.monotonic(), 1), check=False)
        except subprocess.TimeoutExpired as error:
            raise JobTimedOut(f"building {suite.id} ran out of the job's time") from error
        except OSError as error:
            raise JobError(f"cannot build {suite.id}: {error}") from error
        if completed.returncode != 0:
            tail = completed.stderr.decode(errors="replace")[-2000:]
            raise JobError(f"building {suite.id} failed ({completed.returncode}): {tail}")
        _snapshot(suite, build_dir)
        marker.touch()
    return build_dir


def cached_build(suite: Suite, version: str, cache_dir: Path) -> tuple[Suite, Path] | None:
    """A version of the suite as this host built it: its definition and build directory. The
    current version is the suite itself; another is the definition kept beside its build,
    when the host still has both."""
    build_dir = cache_dir / suite.id / version
    if version == suite.version:
        return suite, build_dir
    if not (build_dir / ".built").exists() or not (build_dir / SNAPSHOT / suite.id).is_dir():
        return None
    try:
        return load_suite(build_dir / SNAPSHOT / suite.id), build_dir
    except SuiteError:
        return None


def program_context(suite: Suite, build_dir: Path) -> dict[str, str]:
    """The placeholders every command may use besides params and axes: `build_dir`,
    `suite_dir`, and `python` (the runner's interpreter, for Python programs)."""
    return {"build_dir": str(build_dir), "suite_dir": str(suite.directory),
            "python": sys.executable}


def _snapshot(suite: Suite, build_dir: Path) -> None:
    """Keeps the suite's folder as built beside its build, so a later confirmation job can
    run this version again after the suite has changed."""
    target = build_dir / SNAPSHOT / suite.id
    shutil.rmtree(build_dir / SNAPSHOT, ignore_errors=True)
    shutil.copytree(suite.directory, target, symlinks=True, ignore=shutil.ignore_patterns(
        "target", "build", "node_modules", "__pycache__", ".git"))
    # A file linked into the folder (one several suites share, from `suites/common/`) is kept
    # as its content: the kept folder must load, and hash to its version, on its own.
    for link in [path for path in target.rglob("*") if path.is_symlink()]:
        linked = suite.directory / link.relative_to(target)
        if linked.is_file():
            link.unlink()
            shutil.copy2(linked, link)
