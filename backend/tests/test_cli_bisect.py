"""`latlab bisect` against a live api, without a runner: each step's try job is measured by
the test as test_bisections measures it (its stages' outcomes applied as the ingest worker
applies them, from trials slower from a planted commit on) and the beat's `advance` moves the
search on, committed so the api (and the CLI polling it) sees each step as it happens."""

import re
import subprocess
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass

import httpx
import numpy as np
import pytest
from git_servers import GIT_ENV, git_repository
from sqlalchemy import select
from sqlalchemy.orm import Session

from latlab.bisections import service
from latlab.core import clock as clock_module
from latlab.hosts import service as host_service
from latlab.models import Bisection, Job, Project, Scope
from latlab.repos import service as repos
from latlab.repos.schemas import RepositoryCreate
from latlab_contract import Heartbeat
from tests.factories import Actors
from tests.test_bisections import HTTP_ORDER, _levels, _measure
from tests.test_cli_terminal import latlab
from tests.test_cli_try import Terminal

# The question test_bisections asks: client=go's p99 of http-order/small, 4 trials a side.
ASK = ["--repo", "orders", "--good", "v1.0", "--bad", "main", "--scenario", "small",
       "--series", "client=go", "--repetitions", "4"]
CULPRIT = 6  # commits from the seventh on are 30 % slower
STEP_TIMEOUT_S = 60  # bounds each wait: for the CLI to show a step, for a step to be driven
POLL_S = 0.2


@dataclass
class Lab:
    env: dict[str, str]
    http: httpx.Client
    shas: list[str]  # the repository's nine commits, oldest first; v1.0 is the first
    session: Session


@pytest.fixture
def lab(committed_db, live_server, tmp_path) -> Lab:
    """A token (read, runs:write, jobs:write), a host offering http-order and the repository
    `orders` of nine commits, committed for the live api."""
    # The live api judges a host online by the wall clock: its heartbeats are dated by it.
    clock_module.set_clock(clock_module.SystemClock())
    token = Actors(committed_db).token(Scope.read, Scope.runs_write, Scope.jobs_write)
    shas = git_repository(tmp_path / "orders", [{"a": str(i)} for i in range(9)])
    subprocess.run(["git", "tag", "v1.0", shas[0]], cwd=tmp_path / "orders", env=GIT_ENV,
                   check=True, timeout=30)
    project = committed_db.scalar(select(Project).where(Project.slug == "default"))
    repos.create(committed_db, project, RepositoryCreate(
        name="orders", url=f"file://{tmp_path}/orders"))
    _beat(committed_db)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "COLUMNS": "220",
           "LATLAB_CONFIG": str(tmp_path / "latlab.toml"), "LATLAB_URL": live_server,
           "LATLAB_TOKEN": token["Authorization"].split()[1]}
    return Lab(env, httpx.Client(base_url=f"{live_server}/api/v1", headers=token,
                                 timeout=60), shas, committed_db)


def _beat(session: Session) -> None:
    """A heartbeat of host lab-1 (a host is online 30 s after its last)."""
    host_service.record_heartbeat(session, Heartbeat(name="lab-1", tags=["local"],
                                                     fingerprint={}, suites=[HTTP_ORDER]))
    session.commit()


def _drive(session: Session, levels: dict[str, float],
           pace: Callable[[int], None] = lambda number: None) -> int:
    """Measures each step of the bisection the CLI asked for, as a runner and the beat would,
    until it ends; `pace(n)` runs before step n is measured. Returns its id."""
    deadline = time.monotonic() + STEP_TIMEOUT_S
    while (bisection := session.scalar(select(Bisection))) is None:
        session.commit()
        assert time.monotonic() < deadline, "the CLI asked for no bisection"
        time.sleep(POLL_S)
    rng = np.random.default_rng(3)
    for number in range(1, 21):
        if bisection.status != service.RUNNING:
            return bisection.id
        pace(number)
        _beat(session)  # the next stage, and the next step, go to an online host
        _measure(session, session.get_one(Job, bisection.steps[-1]["job_id"]), levels, rng)
        session.commit()
        assert service.advance(session) == [bisection]
        session.commit()
    raise AssertionError(f"no end after 20 steps: {bisection.steps}")


def _step_ended(number: int, step: dict, text: str) -> bool:
    """The line the CLI prints when step `number` has ended."""
    return re.search(
        rf"^step {number}(?: \([a-z ]+\))?: {step['base'][:10]} against {step['head'][:10]}: "
        rf"{step['outcome']} [+-]\d+\.\d % p99 \[[^]]+\] \(job {step['job_id']}\)$",
        text, re.MULTILINE) is not None


def test_what_the_lab_refuses_what_it_searches_and_a_cancel(lab) -> None:
    unknown = latlab("bisect", *ASK[:2], "--good", "nope", *ASK[4:], env=lab.env)
    assert unknown.returncode == 2, unknown.stderr
    assert unknown.stderr == ("latlab: the lab answered 422: $.good: repository 'orders' has "
                              "no branch, tag or commit 'nope'\n")
    assert lab.http.get("/bisections").json() == []
    assert lab.http.get("/jobs").json()["total"] == 0
    missing = latlab("bisect", "--repo", "orders", "--good", "v1.0", env=lab.env)
    assert (missing.returncode, missing.stderr) == (
        2, "latlab: give --repo, --good and --bad (or --cancel ID)\n")

    # Without --wait: its number, what it searches, how to watch it; its first step runs.
    _beat(lab.session)  # each command below finds the host online
    launched = latlab("bisect", *ASK, env=lab.env)
    assert launched.returncode == 0, launched.stderr
    number = int(launched.stdout)
    bisection = lab.http.get(f"/bisections/{number}").json()
    good, bad = lab.shas[0], lab.shas[-1]
    assert (bisection["good"], bisection["bad"], bisection["status"]) == (good, bad, "running")
    assert launched.stderr == (
        f"bisection {number}: orders v1.0 ({good[:10]}) .. main ({bad[:10]}), 9 commits, "
        f"http-order/small p99 of client=go · {lab.env['LATLAB_URL']}/bisections/{number}\n"
        f"watch it: the same command with --wait; end it: latlab bisect --cancel {number}\n")
    [step] = bisection["steps"]
    assert (step["kind"], step["base"], step["head"]) == ("ends", good, bad)
    job = lab.http.get(f"/jobs/{step['job_id']}").json()
    assert job["status"] == "dispatched" and job["params"]["server"] == "repo", job
    # The same question again is the same bisection.
    _beat(lab.session)
    again = latlab("bisect", *ASK, env=lab.env)
    assert (again.returncode, again.stdout) == (0, f"{number}\n"), again.stderr
    assert again.stderr.startswith(f"asked before: bisection {number} (running)\n")

    cancelled = latlab("bisect", "--cancel", str(number), env=lab.env)
    assert (cancelled.returncode, cancelled.stdout) == (
        0, f"bisection {number}: cancelled by request\n"), cancelled.stderr
    assert lab.http.get(f"/bisections/{number}").json()["status"] == "cancelled"
    assert lab.http.get(f"/jobs/{step['job_id']}").json()["status"] == "cancelled"
    twice = latlab("bisect", "--cancel", str(number), env=lab.env)
    assert (twice.returncode, twice.stderr) == (
        2, f"latlab: the lab answered 409: bisection {number} has already ended "
           f"(cancelled)\n")


def test_wait_shows_each_step_in_a_terminal_then_names_the_culprit(lab, tmp_path) -> None:
    shell = Terminal(tmp_path, ["bisect", *ASK, "--wait"], lab.env)
    progress: list[str] = []  # the progress line, as it was when each step began

    def pace(number: int) -> None:
        """Step `number` is measured once the CLI has shown it running, and its progress line
        counts the steps before it done."""
        started = re.compile(rf"^step {number}\b.*: measuring \(job \d+\)$", re.MULTILINE)
        line = re.compile(rf"bisection \d+ running: {number - 1} steps done · \d+ of 9 "
                          rf"commits unknown")
        deadline = time.monotonic() + STEP_TIMEOUT_S
        while not (started.search(screen := shell.screen()) and (shown := line.search(screen))):
            assert time.monotonic() < deadline, screen
            time.sleep(POLL_S)
        progress.append(shown[0])

    try:
        with ThreadPoolExecutor(1) as pool:
            driven: Future[int] = pool.submit(_drive, lab.session, _levels(lab.shas, CULPRIT),
                                              pace)
            deadline = time.monotonic() + 20 * STEP_TIMEOUT_S
            while (status := shell.exit_status()) is None:
                assert time.monotonic() < deadline, shell.screen()
                if driven.done():
                    driven.result()  # a failure of the driver, said now
                time.sleep(POLL_S)
            number = driven.result(timeout=STEP_TIMEOUT_S)
        screen = shell.screen()
    finally:
        shell.close()

    bisection = lab.http.get(f"/bisections/{number}").json()
    culprit = lab.shas[CULPRIT]
    assert bisection["status"] == "found", bisection["message"]
    assert bisection["result"]["culprit"]["sha"] == culprit
    for index, step in enumerate(bisection["steps"], 1):
        assert _step_ended(index, step, screen), (index, step, screen)
    assert "regressed" in {step["outcome"] for step in bisection["steps"]}
    # A progress line under the steps: how many are done, how many commits are not known.
    assert progress[0].endswith("0 steps done · 7 of 9 commits unknown"), progress
    assert progress[-1] != progress[0], progress
    assert bisection["message"].startswith(f"culprit: {culprit[:10]} commit 7 (Lab Test), +")
    assert f"\n{bisection['message']}\n" in screen, screen
    assert f"\ncommit: {culprit} commit 7 (Lab Test)\n" in screen, screen
    url = lab.env["LATLAB_URL"]
    run = bisection["result"]["culprit"]["run_id"]
    assert f"\ncompare: {url}/compare?baseline={run}&candidate={run}&" in screen, screen
    assert f"\nbisection: {url}/bisections/{number}\n" in screen, screen
    assert status == 0, screen


def test_ends_that_show_no_regression_exit_4(lab) -> None:
    with ThreadPoolExecutor(1) as pool:
        driven = pool.submit(_drive, lab.session, _levels(lab.shas, None))
        done = latlab("bisect", *ASK, "--wait", env=lab.env)
        number = driven.result(timeout=STEP_TIMEOUT_S)
    bisection = lab.http.get(f"/bisections/{number}").json()
    assert bisection["status"] == "not-reproduced", bisection["message"]
    assert done.returncode == 4, (done.stdout, done.stderr)
    assert done.stdout == (f"{bisection['message']}\nbisection: {lab.env['LATLAB_URL']}"
                           f"/bisections/{number}\n")
    assert done.stdout.startswith(f"not reproduced: {lab.shas[-1][:10]} measured beside "
                                  f"{lab.shas[0][:10]} did not regress")
    [step] = bisection["steps"]
    assert step["outcome"] == "unchanged" and _step_ended(1, step, done.stderr), done.stderr
