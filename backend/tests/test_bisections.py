"""Bisections without a runner: a real git history (first-parent, in the api's mirror), each
step a real try job whose stages' outcomes are applied as the ingest worker applies them, from
trials made to be slower from a planted commit on; the beat's `advance` moves the search on.
A real runner's bisection: tests/test_bisections_e2e.py."""

import re
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest
from git_servers import git_repository
from sqlalchemy import select

from latlab.alerts.delivery import blocks, fallback_text
from latlab.alerts.lifecycle import alert_context, raise_or_clear
from latlab.bisections import regressions, service
from latlab.bisections.router import bisection_read
from latlab.bisections.schemas import BisectionCreate
from latlab.core.clock import get_clock
from latlab.core.errors import Unprocessable
from latlab.hosts import service as host_service
from latlab.ingest.outcomes import apply_outcome
from latlab.jobs import service as job_service
from latlab.models import (
    Alert,
    Bisection,
    Channel,
    Job,
    JobStatus,
    Notification,
    Project,
    Severity,
)
from latlab.repos import service as repos
from latlab.repos.schemas import RepositoryCreate
from latlab.runs import submission
from latlab_contract import Heartbeat, JobEvent, JobOutcome
from latlab_contract.result import RunCreate
from latlab_workers.suites import SUITES_DIR, load_suite

HTTP_ORDER = load_suite(SUITES_DIR / "http-order").info()
LEVELS = np.linspace(40_000, 60_000, 2000)  # a trial's latencies, before its level


@pytest.fixture
def project(db) -> Project:
    host_service.record_heartbeat(db, Heartbeat(name="lab-1", tags=["local"],
                                                fingerprint={}, suites=[HTTP_ORDER]))
    project = db.scalar(select(Project).where(Project.slug == "default"))
    return project


@pytest.fixture
def shas(tmp_path, db, project) -> list[str]:
    """Nine commits, oldest first, registered as repository `orders`."""
    made = git_repository(tmp_path / "orders", [{"a": str(i)} for i in range(9)])
    repos.create(db, project, RepositoryCreate(name="orders", url=f"file://{tmp_path}/orders"))
    return made


def _bisect(db, project: Project, good: str, bad: str, **extra: Any) -> Bisection:
    bisection, new = service.create(db, project, BisectionCreate(
        repo="orders", good=good, bad=bad, suite="http-order", scenario="small",
        params={"server": "repo"}, series={"client": "go"}, repetitions=4, **extra), None)
    assert new
    return bisection


def _trials(rng: np.random.Generator, level: float, count: int) -> list[dict[str, Any]]:
    return [{"latency": {"samples_ns": [int(v) for v in LEVELS * level
                                       * (1 + rng.normal(0, 0.002))]},
             "metrics": {"throughput": 20_000 / level}} for _ in range(count)]


def _measure(db, job: Job, level: dict[str, float], rng: np.random.Generator) -> None:
    """The job's stages, measured as if commit `sha` ran at `level[sha]`, until it ends."""
    base, head = job.source["base"]["commit"], job.source["commit"]
    while job.status is JobStatus.dispatched:
        started = datetime(2026, 11, 28, 3, 0, tzinfo=UTC)
        apply_outcome(db, JobOutcome(job_id=job.id, attempt=job.attempts, result={
            "schema": "latlab.result/v1", "suite": "http-order", "scenario": "small",
            "params": {"server": "repo"}, "started_at": started.isoformat(),
            "finished_at": (started + timedelta(seconds=30)).isoformat(),
            "source": {"kind": "job", "commit": head, "repo": "orders"},
            "host": {"name": "lab-1", "tags": ["local"], "fingerprint": {}},
            "series": [{"labels": {"client": "go", "repo": "orders", "side": side},
                        "trials": _trials(rng, level[sha], job.repetitions)}
                       for side, sha in (("base", base), ("head", head))]}))


def _search(db, bisection: Bisection, level: dict[str, float],
            unbuildable: frozenset[str] = frozenset()) -> Bisection:
    """Runs the bisection's steps to its end, as the runner and the beat would."""
    rng = np.random.default_rng(3)
    for _ in range(20):
        if bisection.status != service.RUNNING:
            return bisection
        job = db.get(Job, bisection.steps[-1]["job_id"])
        if job.source["commit"] in unbuildable:
            sha = job.source["commit"]
            job_service.apply_event(db, JobEvent(
                job_id=job.id, attempt=job.attempts, status="failed",
                error=f"building orders at {sha[:12]} failed (exit 1): go: undefined: book"))
        else:
            _measure(db, job, level, rng)
        assert service.advance(db) == [bisection]
    raise AssertionError(f"no end after 20 steps: {bisection.steps}")


def _levels(shas: list[str], slow_from: int | None, slower: float = 1.3) -> dict[str, float]:
    return {sha: slower if slow_from is not None and i >= slow_from else 1.0
            for i, sha in enumerate(shas)}


def test_the_culprit_is_named_with_its_change_measured_beside_its_parent(
        db, project, shas) -> None:
    bisection = _search(db, _bisect(db, project, shas[0], shas[-1]), _levels(shas, 6))
    assert bisection.status == "found", bisection.message
    culprit = bisection.result["culprit"]
    assert culprit["sha"] == shas[6]
    assert 0.25 < culprit["change"] < 0.35 and 0.8 < culprit["share"] < 1.25
    assert bisection.message.startswith(f"culprit: {shas[6][:10]} ")
    assert "+30." in bisection.message or "+29." in bisection.message
    # The ends, then halving 9 commits, then the culprit beside its parent (unless a search
    # step measured exactly those two): each step a try job of two commits of the range.
    kinds = [step["kind"] for step in bisection.steps]
    assert kinds[0] == "ends" and set(kinds[1:-1]) <= {"search"} and len(kinds) <= 6, kinds
    assert all(step["outcome"] in ("regressed", "unchanged") for step in bisection.steps)
    last = bisection.steps[-1]
    assert (last["base"], last["head"]) == (shas[5], shas[6])
    read = bisection_read(bisection)
    assert [c.state for c in read.commits] == ["good"] * 6 + ["culprit"] + ["bad"] * 2
    jobs = db.scalars(select(Job).where(Job.bisection_id == bisection.id)).all()
    assert len(jobs) == len(bisection.steps)
    assert [j.profile for j in jobs][-1] and not any(j.profile for j in jobs[:-1])


def test_a_regression_the_ends_do_not_show_is_not_reproduced(db, project, shas) -> None:
    bisection = _search(db, _bisect(db, project, shas[0], shas[-1]), _levels(shas, None))
    assert bisection.status == "not-reproduced" and bisection.result is None
    assert bisection.message.startswith(f"not reproduced: {shas[-1][:10]} measured beside "
                                        f"{shas[0][:10]} did not regress")
    assert len(bisection.steps) == 1


def test_a_commit_that_does_not_build_is_skipped_and_said(db, project, shas) -> None:
    """The middle (4) does not build: its nearest neighbour is measured instead."""
    bisection = _search(db, _bisect(db, project, shas[0], shas[-1]), _levels(shas, 3),
                        unbuildable=frozenset({shas[4]}))
    assert bisection.status == "found" and bisection.result["culprit"]["sha"] == shas[3]
    [skipped] = [s for s in bisection.steps if s["outcome"] == "unbuildable"]
    assert skipped["head"] == shas[4] and "go: undefined: book" in skipped["said"]
    assert service.state(bisection, 4) == "unbuildable"


def test_only_commits_that_do_not_build_between_ends_on_a_range(db, project, shas) -> None:
    """Either 4, which does not build, or 5 after it made it slower."""
    bisection = _search(db, _bisect(db, project, shas[3], shas[5]), _levels(shas, 5),
                        unbuildable=frozenset({shas[4]}))
    assert bisection.status == "narrowed"
    assert bisection.result == {"range": [shas[4], shas[5]]}
    assert bisection.message == (f"one of these 2: {shas[4][:10]}, {shas[5][:10]}; the 1 "
                                 f"commits between do not build")


def test_the_same_question_is_one_bisection_and_one_can_be_cancelled(db, project,
                                                                      shas) -> None:
    bisection = _bisect(db, project, shas[0], shas[-1])
    again, new = service.create(db, project, BisectionCreate(
        repo="orders", good=shas[0][:12], bad="main", suite="http-order", scenario="small",
        params={"server": "repo"}, series={"client": "go"}, repetitions=4), None)
    assert again is bisection and not new
    job = db.get(Job, bisection.steps[-1]["job_id"])
    service.cancel(db, bisection)
    assert bisection.status == "cancelled" and job.status is JobStatus.cancelled
    assert service.advance(db) == []


def test_ends_that_are_not_one_first_parent_history_are_refused(db, project, shas) -> None:
    with pytest.raises(Unprocessable, match="nothing lies between them"):
        _bisect(db, project, shas[-1], shas[0])
    with pytest.raises(Unprocessable, match="no branch, tag or commit 'f00'"):
        _bisect(db, project, "f00", shas[0])
    assert db.scalar(select(Bisection)) is None


def _regression(db, project: Project, shas: list[str]) -> tuple[Any, Any, Alert]:
    """Runs at shas[0] and shas[-1] of repository jobs, and the regression alert a
    confirmation opened on the later one's client=go p99."""
    rng = np.random.default_rng(4)
    runs = []
    for sha, level in ((shas[0], 1.0), (shas[-1], 1.3)):
        runs.append(submission.submit(db, project, RunCreate.model_validate({
            "schema": "latlab.result/v1", "suite": "http-order", "scenario": "small",
            "params": {"server": "repo"}, "started_at": "2026-11-28T03:00:00Z",
            "source": {"kind": "job", "commit": sha, "repo": "orders"},
            "host": {"name": "lab-1", "tags": ["local"], "fingerprint": {}},
            "series": [{"labels": {"client": "go", "repo": "orders"},
                        "trials": _trials(rng, level, 5)}]}),
            request_hash=sha).run)
    baseline, run = runs
    context = alert_context(run, {"client": "go", "repo": "orders"}, "p99", "ns",
                            f"key-{run.id}")
    raise_or_clear(db, "regression", True, {**context, "baseline_run_id": baseline.id},
                   kind="regression", severity=Severity.critical,
                   message="http-order/small [client=go]: p99 rose 30 %")
    alert = db.scalar(select(Alert).where(Alert.run_id == run.id))
    return baseline, run, alert


@pytest.mark.parametrize("mode", ["off", "ask", "automatic"])
def test_a_confirmed_regression_is_bisected_as_its_project_says(db, project, shas,
                                                                 mode) -> None:
    db.add(Channel(project_id=project.id, name="team", kind="slack",
                   url="http://127.0.0.1:9/hook", created_at=get_clock().now()))
    project.bisect_regressions = mode
    baseline, run, alert = _regression(db, project, shas)
    regressions.for_regression(db, project, run, baseline)
    bisection = db.scalar(select(Bisection))
    if mode == "off":
        assert bisection is None and alert.message.endswith("rose 30 %")
        return
    if mode == "ask":
        assert bisection is None
        # The command asks the regression's question: its params, series and hosts.
        assert alert.message.endswith(
            f"; find the commit: latlab bisect --repo orders --good {shas[0][:12]} --bad "
            f"{shas[-1][:12]} --suite http-order --scenario small -p server=repo --series "
            f"client=go --series repo=orders --host-tag local --metric p99")
        return
    assert alert.bisection_id == bisection.id
    assert alert.message.endswith(f"; bisection {bisection.id} searches its 8 commits")
    assert (bisection.series, bisection.metric) == ({"client": "go", "repo": "orders"}, "p99")
    _search(db, bisection, _levels(shas, 6))
    [told] = db.scalars(select(Notification).where(Notification.event == "bisected")).all()
    assert told.payload["message"] == (
        f"http-order/small [client=go, repo=orders]: {bisection.message}")
    assert told.payload["bisection_url"].endswith(f"/bisections/{bisection.id}")
    assert fallback_text(told.payload).startswith(f"[BISECTED] http-order/small [client=go, "
                                                  f"repo=orders]: culprit: {shas[6][:10]} ")
    assert any("bisection>" in element["text"] for block in blocks(told.payload)
               if block["type"] == "context" for element in block["elements"])


def test_a_history_rewritten_under_a_bisection_ends_it_saying_so(db, project, shas) -> None:
    bisection = _bisect(db, project, shas[0], shas[-1])
    job = db.get(Job, bisection.steps[-1]["job_id"])
    job_service.apply_event(db, JobEvent(
        job_id=job.id, attempt=job.attempts, status="failed",
        error=f"fetching orders at {shas[-1][:12]} failed: fatal: remote error: upload-pack: "
              f"not our ref {shas[-1]}"))
    assert service.advance(db) == [bisection]
    assert bisection.status == "failed" and bisection.result is None
    assert bisection.message.startswith(f"step 1 ({shas[0][:10]} against {shas[-1][:10]}) did "
                                        f"not measure: job {job.id} failed: fetching orders")
    assert bisection.message.endswith("(was the repository's history rewritten? a "
                                      "bisection's commits must stay fetchable)")


def test_two_commits_that_each_made_it_slower_are_both_named_with_their_shares(
        db, project, shas) -> None:
    """Commit 3 made it 15 % slower, commit 6 another 13 %: the first culprit found is half
    the whole change, so both sides of it are searched too."""
    level = {sha: 1.0 if i < 3 else 1.15 if i < 6 else 1.30 for i, sha in enumerate(shas)}
    bisection = _search(db, _bisect(db, project, shas[0], shas[-1]), level)
    assert bisection.status == "found", bisection.message
    culprits = bisection.result["culprits"]
    assert [c["sha"] for c in culprits] == [shas[3], shas[6]]
    assert [round(c["share"], 1) for c in culprits] == [0.5, 0.4]
    assert bisection.result["culprit"]["sha"] == shas[3]  # the larger share
    assert bisection.message.startswith(f"culprits: {shas[3][:10]} ")
    assert f"; {shas[6][:10]} " in bisection.message
    assert re.fullmatch(r"culprits: .*, 50 % of the whole \+29\.\d %; .*, 4\d % of the whole "
                        r"\+29\.\d %, measured side by side", bisection.message), bisection.message
    # Before commit 3, nothing: the search had measured that part's ends already (0 against
    # 2), so they were not measured again; after it, its ends first, then the search.
    assert [(s["base"], s["head"], s["outcome"]) for s in bisection.steps
            if s["base"] == shas[0] and s["head"] == shas[2]] == [(shas[0], shas[2],
                                                                   "unchanged")]
    assert next(s["kind"] for s in bisection.steps if s["base"] == shas[3]) == "ends"
    assert [service.state(bisection, i) for i in (3, 6)] == ["culprit", "culprit"]
