from typing import Annotated

from fastapi import APIRouter, Depends, status

from latlab.auth.dependencies import Admin, JobWriter, Member, Reader, rate_limited
from latlab.core.db import DbSession
from latlab.core.errors import Conflict, NotFound
from latlab.core.openapi import documented, raises
from latlab.core.params import Id, Limit, Offset
from latlab.core.rate_limits import Use
from latlab.core.routing import ApiRoute
from latlab.hosts import enrollment, reads
from latlab.hosts import service as host_service
from latlab.hosts.schemas import HostRead
from latlab.jobs import schedules, watchdog
from latlab.jobs import service as job_service
from latlab.jobs.schemas import (
    JobCreate,
    JobCreated,
    JobEstimate,
    JobPage,
    JobRead,
    ProgramRead,
    ScheduleCreate,
    ScheduleRead,
)
from latlab.models import Job, JobStatus, Schedule
from latlab.projects import service as projects

router = APIRouter(tags=["jobs"], route_class=ApiRoute)
# A host's routes that act on its jobs: they live here, above the hosts' own (jobs are placed
# on hosts, and read them; hosts know nothing of jobs).
hosts_router = APIRouter(tags=["hosts"], route_class=ApiRoute)


@raises(NotFound)
def get_schedule(schedule_id: Id, principal: Reader, session: DbSession) -> Schedule:
    return schedules.get(session, principal.project_id, schedule_id)


ScheduleFromPath = Annotated[Schedule, Depends(get_schedule)]


@router.post("/jobs", status_code=status.HTTP_202_ACCEPTED, responses=documented(Conflict),
             dependencies=rate_limited(Use.job_launches))
def create_job(body: JobCreate, principal: JobWriter, session: DbSession) -> JobCreated:
    """Run a suite scenario, for the caller's project, on an online host whose tags include
    `host_tags`."""
    jobs = job_service.create_jobs(
        session, projects.writable(principal.project), body,
        created_by_id=None if principal.user is None else principal.user.id)
    return JobCreated(id=jobs[0].id, status=jobs[0].status, job_ids=[j.id for j in jobs])


@router.post("/jobs/estimate", responses=documented(Conflict))
def estimate_job(body: JobCreate, principal: Reader, session: DbSession) -> JobEstimate:
    """What a job of this request would run and how long it should take, checked as
    `POST /jobs` checks it (a request too long for any timeout is refused the same way),
    without creating it."""
    return job_service.plan(session, principal.project_id, body).estimate


@router.get("/jobs")
def list_jobs(principal: Reader, session: DbSession, status: JobStatus | None = None,
              limit: Limit = 50, offset: Offset = 0) -> JobPage:
    """The project's jobs, newest first."""
    jobs, total = job_service.list_jobs(session, principal.project_id, status, limit, offset)
    return JobPage(items=[job_read(session, j) for j in jobs], total=total, limit=limit,
                   offset=offset)


@router.get("/jobs/{job_id}")
def get_job(job_id: Id, principal: Reader, session: DbSession) -> JobRead:
    """A job's status, progress (percent and phase), programs and run."""
    return job_read(session, job_service.get_job(session, job_id, principal.project_id))


@router.post("/jobs/{job_id}/cancel", responses=documented(Conflict))
def cancel_job(job_id: Id, principal: JobWriter, session: DbSession) -> JobRead:
    """Cancel a job; a running job's programs are killed."""
    job = job_service.get_job(session, job_id, principal.project_id, for_update=True)
    job_service.cancel(session, job)
    return job_read(session, job)


@router.post("/schedules", status_code=status.HTTP_201_CREATED, responses=documented(Conflict))
def create_schedule(body: ScheduleCreate, principal: Member,
                    session: DbSession) -> ScheduleRead:
    """Launch a job spec for the project on a cron expression (UTC)."""
    schedule = schedules.create(session, projects.writable(principal.project), body,
                                principal.signed_in.id)
    return schedule_read(schedule)


@router.get("/schedules")
def list_schedules(principal: Reader, session: DbSession) -> list[ScheduleRead]:
    """The project's schedules."""
    return [schedule_read(s) for s in schedules.list_schedules(session, principal.project_id)]


@router.delete("/schedules/{schedule_id}", status_code=status.HTTP_204_NO_CONTENT)
def delete_schedule(schedule: ScheduleFromPath, principal: Member, session: DbSession) -> None:
    """Delete a schedule (its past jobs stay)."""
    session.delete(schedule)


def job_read(session: DbSession, job: Job) -> JobRead:
    host_name, project = job_service.names(session, job)
    source = job.source or {}
    return JobRead(
        id=job.id, project=project, suite=job.suite, scenario=job.scenario,
        params=job.params, host_tags=job.host_tags, repetitions=job.repetitions,
        timeout_s=job.timeout_s, profile=job.profile, status=job.status, phase=job.phase,
        repo=source.get("repo"), ref=source.get("ref"), commit=source.get("commit"),
        base=source.get("base"),
        stages=None if job.stages is None else {
            k: v for k, v in job.stages.items() if k != "first_attempt"},
        progress=job.progress,
        host_name=host_name, run_id=job.run_id,
        attempts=job.attempts, error=job.error,
        programs=[ProgramRead(**p) for p in job.programs], parent_id=job.parent_id,
        schedule_id=job.schedule_id, created_at=job.created_at,
        dispatched_at=job.dispatched_at, started_at=job.started_at,
        finished_at=job.finished_at,
    )


def schedule_read(schedule: Schedule) -> ScheduleRead:
    return ScheduleRead(
        id=schedule.id, name=schedule.name, cron=schedule.cron,
        job=JobCreate.model_validate(schedule.spec), enabled=schedule.enabled,
        created_at=schedule.created_at, last_run_at=schedule.last_run_at,
        next_run_at=schedule.next_run_at,
    )


@hosts_router.post("/hosts/{host_id}/revoke", responses=documented(NotFound))
def revoke_host(host_id: Id, admin: Admin, session: DbSession) -> HostRead:
    """Revoke a host (admin only): no message in its name is believed from now on, it is
    offline at once, and the job it ran is retried elsewhere (or failed, its attempts
    spent). It joins again only with a new invitation."""
    host = host_service.get_host(session, host_id, None)
    job = enrollment.revoke(session, host)
    if job is not None:
        watchdog.retry_or_fail(job, f"host {host.name} was revoked")
        job_service.dispatch_queued(session)
    return reads.host_read(session, host, admin, reads.project_slugs(session))
