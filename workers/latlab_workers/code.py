"""A job's code under test: the repository it names, built at each commit it measures
(`checkouts`), and where and as whom each of the job's programs runs. The repository's
programs (`from = "repo"`) run from their checkout as the code user, confined to the job's
network namespace (`sandbox`); the lab's own programs of such a job join that namespace, so
they reach the code and the code reaches nothing else. A job without a repository runs its
programs as the runner always has."""

import shutil
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from latlab_contract import JobSpec, RepoCheckout
from latlab_workers.checkouts import Recipe, built
from latlab_workers.errors import JobError
from latlab_workers.processes import program_env
from latlab_workers.sandbox import Sandbox, SandboxError
from latlab_workers.settings import get_settings
from latlab_workers.suite_file import Program
from latlab_workers.suites import Suite
from latlab_workers.templates import Context, TemplateError, render, render_one

T = TypeVar("T")
SIDE = "side"  # the label a try job gives its two commits
REPO = "repo"  # the label every series of a repository's job carries: its histories are its own


@dataclass(frozen=True)
class Launch:
    """How one program starts: its folder, its whole environment, and what the child does
    before it execs (None: nothing more than the runner's usual)."""

    cwd: Path
    env: dict[str, str]
    preexec: Callable[[], None] | None


class CodeUnderTest:
    """The job's repository, if it names one, and the sandbox its code runs in."""

    def __init__(self, spec: JobSpec) -> None:
        self.repo: RepoCheckout | None = spec.repo
        self.commit = spec.commit
        self.base_commit = spec.base_commit
        self.sandbox: Sandbox | None = None
        self.workdir = get_settings().code_cache / "jobs" / f"job-{spec.job_id}-{spec.attempt}"
        if self.repo is None:
            return
        if self.commit is None:
            raise JobError(f"the job names repository {self.repo.repo} but no commit")
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.workdir.parent.parent.chmod(0o711)
        self.workdir.parent.chmod(0o711)
        try:
            self.sandbox = Sandbox(self.workdir)
        except SandboxError:
            self.close()
            raise
        self.sandbox.give(self.workdir)

    def sides(self) -> list[tuple[dict[str, str], str]]:
        """The commits the job measures, with the labels of their series: a try job's base
        and head, or the one commit."""
        assert self.repo is not None and self.commit is not None
        labels = {REPO: self.repo.repo}
        if self.base_commit is None:
            return [(labels, self.commit)]
        return [({**labels, SIDE: "base"}, self.base_commit),
                ({**labels, SIDE: "head"}, self.commit)]

    def build(self, suite: Suite, commit: str, context: Context, deadline: float) -> Path:
        """The checkout of `commit`, built by the suite's recipe (once per host)."""
        assert self.repo is not None and self.sandbox is not None and suite.spec.repo
        spec = suite.spec.repo
        try:
            recipe = Recipe(render(spec.command, context),
                            {k: render_one(v, context) for k, v in spec.env.items()},
                            render(spec.artifacts, context))
        except TemplateError as error:
            raise JobError(f"[repo]: {error}") from error
        return built(self.repo, commit, recipe, get_settings().code_cache / "builds",
                     self.sandbox, deadline)

    def launch(self, program: Program, suite: Suite, context: Context) -> Launch:
        """Where and as whom `program` starts in this job."""
        if program.from_ == "repo":
            if self.sandbox is None:
                raise JobError(f"{program.name} is the repository's program: the job must "
                               f"name a repository (`repo`)")
            home = self.workdir / "home"
            return Launch(Path(str(context["repo_dir"])),
                          self.sandbox.env(home), self.sandbox.confine())
        return Launch(suite.directory, program_env(),
                      None if self.sandbox is None else self.sandbox.join())

    def inside(self, call: Callable[[], T]) -> T:
        """`call` made from the job's network namespace (the runner asking a server for its
        report reaches the server there)."""
        if self.sandbox is None:
            return call()
        enter = self.sandbox.join()

        def entered() -> T:
            enter()  # this thread only; it ends with the call
            return call()

        with ThreadPoolExecutor(1) as pool:
            return pool.submit(entered).result()

    def close(self) -> None:
        """Kills every process the code left behind, and removes the job's folder."""
        if self.sandbox is not None:
            self.sandbox.close()
        shutil.rmtree(self.workdir, ignore_errors=True)
