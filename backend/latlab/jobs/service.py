"""Jobs: validation against the suite catalogue, dispatch to tagged hosts, one state machine.

Every status change goes through `transition`. Runner events carry the attempt they belong
to; events of an older attempt, or for a finished job, are ignored, so a redelivered task
is harmless.
"""

import math
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator
from sqlalchemy import func, select
from sqlalchemy.orm import Session, object_session

from latlab.core import tasks
from latlab.core.clock import get_clock
from latlab.core.errors import Conflict, NotFound, Unprocessable
from latlab.core.validation import BodyInvalid
from latlab.hosts import service as host_service
from latlab.jobs import stages
from latlab.jobs.schemas import JobCreate, JobEstimate
from latlab.models import Host, Job, JobStatus, Project, Repository
from latlab.models.job import ACTIVE_JOB, ENDED_JOB
from latlab.repos import service as repos
from latlab_contract import (
    EXECUTE_JOB,
    JobEvent,
    JobSpec,
    RepoCheckout,
    attempt_key,
    host_queue,
)
from latlab_contract.estimate import (
    MAX_TIMEOUT_S,
    MIN_TIMEOUT_S,
    series_contexts,
    timeout_s,
)
from latlab_contract.params import merge_params

TRANSITIONS: dict[JobStatus, set[JobStatus]] = {
    JobStatus.queued: {JobStatus.dispatched, JobStatus.cancelled, JobStatus.failed},
    # Back to queued: the runner was lost and the job is retried.
    JobStatus.dispatched: {JobStatus.running, JobStatus.queued, *ENDED_JOB},
    JobStatus.running: {JobStatus.queued, *ENDED_JOB} - {JobStatus.running},
    **{status: set() for status in ENDED_JOB},
}
# Repetitions of a try job's first stage when it names none: enough for the gate to fail a
# regression (`gate.CONFIRM_TRIALS`) at its first look.
TRY_REPETITIONS = 10


class InvalidTransition(Conflict):
    pass


def transition(job: Job, status: JobStatus, error: str | None = None) -> None:
    """The one place a job's status changes, and so the one place that tells runners which
    attempt the lab expects (`attempt_key`, read before they start one)."""
    if status not in TRANSITIONS[job.status]:
        raise InvalidTransition(f"job {job.id} is {job.status}; it cannot become {status}")
    session = object_session(job)
    assert session is not None
    now = get_clock().now()
    ended = job.status in ACTIVE_JOB and status not in ACTIVE_JOB
    job.status = status
    if status is JobStatus.dispatched:
        job.dispatched_at = now
        tasks.expect(session, attempt_key(job.id), task_id(job))
    elif status is JobStatus.running:
        job.started_at = job.started_at or now
    elif status is JobStatus.queued:
        job.host_id = None
        job.programs = []
    if ended:  # a runner still on the attempt stops (`latlab_workers.app`); none starts it
        tasks.expect(session, attempt_key(job.id), f"ended:{status.value}")
    if status in ENDED_JOB:
        job.finished_at = now
        job.programs = []
    if error is not None:
        job.error = error
    job.last_event_at = now


@dataclass(frozen=True)
class Plan:
    """A job request checked against the suite catalogue: what it would run, for how long."""

    params: dict[str, Any]
    repetitions: int
    estimate: JobEstimate


def plan(session: Session, project_id: int, request: JobCreate) -> Plan:
    """Validates a request against what online hosts offer (its suite, scenario and params)
    and estimates its time: a request whose estimate needs more than the longest timeout is
    refused, with the estimate."""
    offered = host_service.catalogue(session, project_id)
    if request.suite not in offered:
        raise Conflict(f"no online host of the project offers suite '{request.suite}'")
    suite, _ = offered[request.suite]
    if request.scenario not in suite.scenarios:
        raise Unprocessable(
            f"suite '{suite.id}' has no scenario '{request.scenario}' "
            f"(it has: {', '.join(sorted(suite.scenarios))})", "$.scenario")
    if request.repo is not None and not suite.builds_repo:
        raise Unprocessable(f"suite '{suite.id}' measures the lab's own programs; it builds "
                            f"no repository", "$.repo")
    params = merge_params(suite.params_schema, suite.scenarios[request.scenario].params,
                          request.params)
    validate_params(suite.params_schema, params)
    repetitions = (TRY_REPETITIONS if request.compare is not None
                   and "repetitions" not in request.model_fields_set else request.repetitions)
    trials = repetitions + request.profile
    contexts = series_contexts(suite.axes, params)
    # A try job measures two commits: each series runs twice a repetition.
    estimate = suite.estimate_s(contexts, trials * (2 if request.compare else 1))
    limit = request.timeout_s
    if limit is None:
        limit = MIN_TIMEOUT_S if estimate is None else timeout_s(estimate)
        if limit > MAX_TIMEOUT_S:
            assert estimate is not None
            raise Unprocessable(
                f"about {_duration(estimate)} ({len(contexts)} series x {trials} trials by the "
                f"suite's estimate), more than a job may take ({MAX_TIMEOUT_S // 3600} h with "
                f"its margin): give fewer repetitions or series, or shorter trials",
                "$.repetitions")
    return Plan(params, repetitions, JobEstimate(series=len(contexts), trials=trials,
                                                 estimate_s=estimate, timeout_s=limit))


def _duration(seconds: float) -> str:
    return f"{seconds / 3600:.0f} h" if seconds >= 7200 else f"{seconds / 60:.0f} min"


def create_jobs(session: Session, project: Project, request: JobCreate,
                created_by_id: int | None = None, schedule_id: int | None = None) -> list[Job]:
    """Validates the request against what online hosts offer and dispatches it."""
    planned = plan(session, project.id, request)
    params = planned.params
    hosts = matching_hosts(session, project.id, request.suite, request.host_tags)
    if not hosts:
        tags = ", ".join(request.host_tags) or "(any)"
        raise Conflict(f"no online host of the project with tags {tags} offers suite "
                       f"'{request.suite}'")
    repository, source = None, None
    if request.repo is not None:
        compare = None if request.compare is None else (request.compare.base,
                                                        request.compare.head)
        repository, source = repos.source(session, project.id, request.repo, request.ref,
                                          compare)
    targets: list[Host | None] = list(hosts) if request.all_matching else [None]
    jobs = []
    for target in targets:
        job = Job(
            project_id=project.id, suite=request.suite, scenario=request.scenario,
            params=params, host_tags=request.host_tags, repetitions=planned.repetitions,
            timeout_s=planned.estimate.timeout_s, profile=request.profile,
            repository_id=None if repository is None else repository.id, source=source,
            stages=None if request.compare is None else stages.plan(
                planned.repetitions, request.compare.max_minutes),
            status=JobStatus.queued,
            progress=0.0, attempts=0,
            pinned_host_id=None if target is None else target.id, created_by_id=created_by_id,
            schedule_id=schedule_id, created_at=get_clock().now(), programs=[],
        )
        session.add(job)
        jobs.append(job)
    session.flush()
    for job in jobs[1:]:
        job.parent_id = jobs[0].id
    dispatch_queued(session)
    return jobs


def validate_params(schema: dict[str, Any], params: dict[str, Any]) -> None:
    errors = sorted(Draft202012Validator(schema).iter_errors(params), key=lambda e: e.path)
    if errors:
        raise BodyInvalid([
            {"path": "$.params" + "".join(
                f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path),
             "message": error.message, "type": str(error.validator)}
            for error in errors
        ])


def matching_hosts(session: Session, project_id: int, suite: str,
                   tags: list[str]) -> list[Host]:
    return [
        host for host in host_service.online_hosts(session, project_id)
        if set(tags) <= set(host.tags) and any(s.id == suite for s in host_service.suites_of(host))
    ]


def dispatch_queued(session: Session) -> list[Job]:
    """Sends queued jobs to idle matching hosts, oldest first, least busy host first."""
    queued = list(session.scalars(
        select(Job).where(Job.status == JobStatus.queued).order_by(Job.id)
        .with_for_update(skip_locked=True)
    ))
    if not queued:
        return []
    busy = dict(session.execute(
        select(Job.host_id, func.count()).where(Job.status.in_(ACTIVE_JOB))
        .group_by(Job.host_id)
    ).all())
    dispatched = []
    for job in queued:
        pinned = job.pinned_host_id and session.get(Host, job.pinned_host_id)
        if pinned and not host_service.serves(pinned, job.project_id):
            transition(job, JobStatus.failed, error=f"host {pinned.name} no longer serves the "
                       f"project; the job was measuring there")
            continue
        candidates = [
            h for h in matching_hosts(session, job.project_id, job.suite, job.host_tags)
            if busy.get(h.id, 0) == 0 and job.pinned_host_id in (None, h.id)
            and not host_service.busy_elsewhere(session, h)
        ]
        if not candidates:
            continue
        if job.source is not None and job.repository_id is None:
            transition(job, JobStatus.failed, error=f"repository '{job.source['repo']}' was "
                       f"removed before the job started")
            continue
        host = min(candidates, key=lambda h: (busy.get(h.id, 0), h.name))
        _dispatch(session, job, host)
        busy[host.id] = busy.get(host.id, 0) + 1
        dispatched.append(job)
    return dispatched


def _dispatch(session: Session, job: Job, host: Host) -> None:
    project = session.get(Project, job.project_id)
    assert project is not None
    job.host_id = host.id
    job.attempts += 1
    job.phase = None
    job.progress = 0.0
    transition(job, JobStatus.dispatched)
    spec = JobSpec(job_id=job.id, attempt=job.attempts, project=project.slug, suite=job.suite,
                   scenario=job.scenario, params=job.params, repetitions=job.repetitions,
                   timeout_s=job.timeout_s, baseline_version=job.baseline_version,
                   profile=job.profile and job.run_id is None, **_source_spec(session, job))
    # The runner also bounds each program by the job's time; these limits are the backstop.
    limits = {"soft_time_limit": job.timeout_s + 15, "time_limit": job.timeout_s + 45}
    tasks.enqueue(session, EXECUTE_JOB, host_queue(host.name), task_id=task_id(job),
                  options=limits, spec=spec.model_dump())


def _source_spec(session: Session, job: Job) -> dict[str, Any]:
    """The repository a job builds, as its runner fetches it (with its credentials, which
    travel in the task only), and the commits it measures."""
    if job.source is None or job.repository_id is None:
        return {}
    repo = session.get(Repository, job.repository_id)
    assert repo is not None
    base = job.source.get("base")
    return {"repo": RepoCheckout(repo=repo.name, url=repo.url, secret=repo.secret,
                                 build_network=repo.build_network),
            "commit": job.source["commit"], "base_commit": base and base["commit"]}


def task_id(job: Job) -> str:
    # An attempt's task id must never come back (a runner starts only the attempt whose id the
    # lab expects): the creation time keeps it unique even where job ids are reused.
    return f"job-{job.id}-attempt-{job.attempts}-{job.created_at.timestamp():.6f}"


def get_job(session: Session, job_id: int, project_id: int, for_update: bool = False) -> Job:
    query = select(Job).where(Job.id == job_id, Job.project_id == project_id)
    if for_update:
        query = query.with_for_update()
    job = session.scalar(query)
    if job is None:
        raise NotFound(f"no job {job_id}")
    return job


def list_jobs(session: Session, project_id: int, status: JobStatus | None, limit: int,
              offset: int) -> tuple[list[Job], int]:
    query = select(Job).where(Job.project_id == project_id)
    if status is not None:
        query = query.where(Job.status == status)
    total = session.scalar(select(func.count()).select_from(query.subquery())) or 0
    jobs = session.scalars(query.order_by(Job.id.desc()).limit(limit).offset(offset))
    return list(jobs), total


def names(session: Session, job: Job) -> tuple[str | None, str]:
    """The job's host name (once dispatched) and project slug."""
    host = None if job.host_id is None else session.get(Host, job.host_id)
    project = session.get(Project, job.project_id)
    assert project is not None
    return None if host is None else host.name, project.slug


def cancel(session: Session, job: Job) -> None:
    """Cancels a job. Its runner, which asks whether the lab still expects its attempt at
    every progress report (`attempt_key`), kills its programs and stops within a report's
    interval; a task still queued is never started."""
    if job.status in ENDED_JOB:
        raise Conflict(f"job {job.id} has already ended ({job.status})")
    transition(job, JobStatus.cancelled, error="cancelled by request")
    dispatch_queued(session)


def claim(session: Session, job_id: int, attempt: int) -> Job | None:
    """The job a runner reports on, locked, while that attempt is its current one and it is on
    its host (a redelivered or late report, or one of an attempt the lab gave up on, finds
    None); a dispatched job is now running."""
    job = session.scalar(select(Job).where(Job.id == job_id).with_for_update())
    if job is None or job.attempts != attempt or job.status not in ACTIVE_JOB:
        return None
    if job.status is JobStatus.dispatched:
        transition(job, JobStatus.running)
    return job


def apply_event(session: Session, event: JobEvent) -> None:
    job = claim(session, event.job_id, event.attempt)
    if job is None:
        return
    job.last_event_at = get_clock().now()
    if event.phase is not None:
        job.phase = event.phase
    if event.progress is not None:
        job.progress = event.progress
    if event.programs is not None:
        job.programs = [p.model_dump() for p in event.programs]
    if event.status in ("failed", "timed_out", "cancelled"):
        transition(job, JobStatus(event.status), error=event.error)
        dispatch_queued(session)


def measure_more(job: Job, more: int) -> None:
    """Queues a try job again on its host for its next stage (`jobs.stages`), of `more`
    trials a side; its first stage's profiles are not taken again."""
    assert job.stages is not None and job.host_id is not None
    job.pinned_host_id = job.host_id
    # Its time limit grows with its trials (the first stage's also had the builds).
    job.timeout_s = min(MAX_TIMEOUT_S, math.ceil(job.timeout_s * more / job.repetitions))
    job.repetitions = more
    job.stages = {**job.stages, "first_attempt": job.attempts + 1}
    transition(job, JobStatus.queued)
    job.started_at = None  # the stage's own start, which its timeout counts from


def succeeded(session: Session, job: Job, run_id: int) -> None:
    """The job's run is stored (`ingest.outcomes`)."""
    job.run_id = run_id
    job.progress = 100.0
    job.phase = "report"
    transition(job, JobStatus.succeeded)
    dispatch_queued(session)


def refused(session: Session, job: Job, error: str) -> None:
    """The job's result could not be stored."""
    transition(job, JobStatus.failed, error=error)
    dispatch_queued(session)
