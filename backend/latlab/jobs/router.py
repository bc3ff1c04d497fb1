from typing import Annotated

from fastapi import APIRouter, Path, Query, status

from latlab.auth import service as auth_service
from latlab.auth.dependencies import JobWriter, Member, Reader
from latlab.core.db import DbSession
from latlab.jobs import schedules
from latlab.jobs import service as job_service
from latlab.jobs.schemas import (
    JobCreate,
    JobCreated,
    JobPage,
    JobRead,
    ProgramRead,
    ScheduleCreate,
    ScheduleRead,
)
from latlab.models import Host, Job, JobStatus, Project, Schedule

router = APIRouter(tags=["jobs"])
JobId = Annotated[int, Path(ge=1)]


@router.post("/jobs", status_code=status.HTTP_202_ACCEPTED)
def create_job(body: JobCreate, principal: JobWriter, session: DbSession,
               project: str | None = None) -> JobCreated:
    """Run a suite scenario on an online host whose tags include `host_tags`."""
    target = (principal.token.project if principal.token is not None
              else auth_service.get_project(session, project))
    jobs = job_service.create_jobs(
        session, target, body, created_by_id=None if principal.user is None else principal.user.id)
    return JobCreated(id=jobs[0].id, status=jobs[0].status, job_ids=[j.id for j in jobs])


@router.get("/jobs")
def list_jobs(
    principal: Reader, session: DbSession, status: JobStatus | None = None,
    limit: Annotated[int, Query(ge=1, le=500)] = 50, offset: Annotated[int, Query(ge=0)] = 0,
) -> JobPage:
    """Jobs, newest first."""
    jobs, total = job_service.list_jobs(session, principal.token_project_id, status, limit,
                                        offset)
    return JobPage(items=[job_read(session, j) for j in jobs], total=total, limit=limit,
                   offset=offset)


@router.get("/jobs/{job_id}")
def get_job(job_id: JobId, principal: Reader, session: DbSession) -> JobRead:
    """A job's status, progress (percent and phase), programs and run."""
    return job_read(session, job_service.get_job(session, job_id, principal.token_project_id))


@router.post("/jobs/{job_id}/cancel")
def cancel_job(job_id: JobId, principal: JobWriter, session: DbSession) -> JobRead:
    """Cancel a job; a running job's programs are killed."""
    job = job_service.get_job(session, job_id, principal.token_project_id, for_update=True)
    job_service.cancel(session, job)
    return job_read(session, job)


@router.post("/schedules", status_code=status.HTTP_201_CREATED)
def create_schedule(body: ScheduleCreate, user: Member, session: DbSession,
                    project: str | None = None) -> ScheduleRead:
    """Launch a job spec on a cron expression (UTC)."""
    target = auth_service.get_project(session, project)
    return schedule_read(schedules.create(session, target, body, user.id))


@router.get("/schedules")
def list_schedules(principal: Reader, session: DbSession) -> list[ScheduleRead]:
    """All schedules."""
    return [schedule_read(s) for s in schedules.list_schedules(session)]


@router.delete("/schedules/{schedule_id}", status_code=status.HTTP_204_NO_CONTENT)
def delete_schedule(schedule_id: Annotated[int, Path(ge=1)], user: Member,
                    session: DbSession) -> None:
    """Delete a schedule (its past jobs stay)."""
    session.delete(schedules.get(session, schedule_id))


def job_read(session: DbSession, job: Job) -> JobRead:
    host = None if job.host_id is None else session.get(Host, job.host_id)
    project = session.get(Project, job.project_id)
    assert project is not None
    return JobRead(
        id=job.id, project=project.slug, suite=job.suite, scenario=job.scenario,
        params=job.params, host_tags=job.host_tags, repetitions=job.repetitions,
        timeout_s=job.timeout_s, status=job.status, phase=job.phase, progress=job.progress,
        host_name=None if host is None else host.name, run_id=job.run_id,
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
