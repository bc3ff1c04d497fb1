"""Repositories and the jobs that build them, without runners: a job's ref resolved to its
commit when it is launched, the credentials reaching the runner's task and nothing else, a
removed repository failing the jobs still queued for it, and a suspected regression of a
repository's commit confirmed against the baseline's commit, measured beside it."""

import json

import pytest
from git_servers import git_repository, http_git
from sqlalchemy import select

from latlab.audit.recorder import REDACTED
from latlab.core.errors import Unprocessable
from latlab.hosts import service as host_service
from latlab.jobs import confirmation
from latlab.jobs import service as job_service
from latlab.jobs.router import job_read
from latlab.jobs.schemas import Compare, JobCreate
from latlab.models import AuditEvent, JobStatus, OutboxMessage, Project, Run
from latlab.repos import service as repos
from latlab.repos.schemas import RepositoryCreate
from latlab_contract import EXECUTE_JOB, Heartbeat
from latlab_workers.suites import SUITES_DIR, load_suite

HTTP_ORDER = load_suite(SUITES_DIR / "http-order").info()
SECRET = "ci-bot:tok-3f9a"


@pytest.fixture
def project(db) -> Project:
    host_service.record_heartbeat(db, Heartbeat(name="lab-1", tags=["local"],
                                                fingerprint={}, suites=[HTTP_ORDER]))
    return db.scalar(select(Project).where(Project.slug == "default"))


@pytest.fixture
def shas(tmp_path) -> list[str]:
    return git_repository(tmp_path / "orders", [{"a": "1"}, {"a": "2"}, {"a": "3"}])


def _register(db, project: Project, url: str, secret: str | None = None):
    return repos.create(db, project, RepositoryCreate(name="orders", url=url, secret=secret))


def _launch(db, project: Project, **request):
    return job_service.create_jobs(db, project, JobCreate(
        suite="http-order", scenario="small", params={"server": "repo"}, repo="orders",
        **request))


def test_a_jobs_ref_is_its_commit_at_launch_and_the_secret_goes_to_the_runner_only(
        db, project, shas, tmp_path) -> None:
    with http_git(tmp_path, "ci-bot", "tok-3f9a") as served:
        _register(db, project, f"{served}orders", SECRET)
        job, = _launch(db, project, ref="main")
        at, = _launch(db, project, ref=shas[0][:10])  # an abbreviated sha
        tried, = _launch(db, project, compare=Compare(base=shas[0], head="main"))
        with pytest.raises(Unprocessable, match="no branch, tag or commit 'nope'"):
            _launch(db, project, ref="nope")
    assert job.source == {"repo": "orders", "ref": "main", "commit": shas[-1]}
    assert job.status is JobStatus.dispatched
    task = db.scalar(select(OutboxMessage).where(OutboxMessage.task == EXECUTE_JOB))
    spec = task.kwargs["spec"]
    assert spec["repo"]["secret"] == SECRET and spec["commit"] == shas[-1]
    assert spec["base_commit"] is None
    read = job_read(db, job).model_dump_json()
    assert SECRET not in read and json.loads(read)["commit"] == shas[-1]
    events = db.scalars(select(AuditEvent).where(AuditEvent.entity_type == "repository"))
    assert [e.after["secret"] for e in events if e.after and "secret" in e.after] == [
        REDACTED]
    assert at.source["commit"] == shas[0]
    assert tried.source["base"] == {"ref": shas[0], "commit": shas[0]}
    assert tried.repetitions == job_service.TRY_REPETITIONS


def test_a_removed_repository_fails_the_jobs_queued_for_it(db, project, shas,
                                                           tmp_path) -> None:
    repo = _register(db, project, f"file://{tmp_path / 'orders'}")
    running, = _launch(db, project)
    queued, = _launch(db, project)  # the one host is busy
    assert queued.status is JobStatus.queued
    repos.delete(db, repo)
    db.flush()
    db.refresh(queued)
    job_service.transition(running, JobStatus.succeeded)
    job_service.dispatch_queued(db)
    assert queued.status is JobStatus.failed
    assert queued.error == "repository 'orders' was removed before the job started"


def test_a_suspected_commit_is_confirmed_beside_its_baselines_commit(
        db, project, shas, tmp_path) -> None:
    _register(db, project, f"file://{tmp_path / 'orders'}")
    original, = _launch(db, project, ref=shas[-1])
    runs = [Run(project_id=project.id, suite="http-order", scenario="default", params={},
                started_at=original.created_at, finished_at=original.created_at,
                created_at=original.created_at, source_kind="job", commit=sha, repo="orders",
                job_id=original.id if sha == shas[-1] else None, request_hash="x")
            for sha in (shas[0], shas[-1])]
    db.add_all(runs)
    db.flush()
    baseline, suspected = runs
    check = confirmation.launch(db, suspected, baseline, trials=12)
    assert check.repository_id == original.repository_id and check.baseline_version is None
    assert check.source == {"repo": "orders", "ref": shas[-1], "commit": shas[-1],
                            "base": {"ref": shas[0], "commit": shas[0]}}
