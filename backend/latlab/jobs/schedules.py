"""Schedules: a job spec launched by beat whenever its cron expression comes due (UTC)."""

from datetime import datetime

from croniter import croniter
from sqlalchemy import select
from sqlalchemy.orm import Session

from latlab.core.clock import get_clock
from latlab.core.errors import AppError, NotFound, Unprocessable
from latlab.jobs import service as job_service
from latlab.jobs.schemas import JobCreate, ScheduleCreate
from latlab.models import Job, Project, Schedule


def next_run(cron: str, after: datetime) -> datetime:
    if not croniter.is_valid(cron) or len(cron.split()) != 5:
        raise Unprocessable(f"'{cron}' is not a five-field cron expression", "$.cron")
    moment: datetime = croniter(cron, after).get_next(datetime)
    return moment


def create(session: Session, project: Project, request: ScheduleCreate,
           created_by_id: int | None) -> Schedule:
    now = get_clock().now()
    schedule = Schedule(
        project_id=project.id, name=request.name, cron=request.cron,
        spec=request.job.model_dump(), enabled=request.enabled, created_by_id=created_by_id,
        created_at=now, next_run_at=next_run(request.cron, now),
    )
    session.add(schedule)
    session.flush()
    return schedule


def list_schedules(session: Session, project_id: int) -> list[Schedule]:
    return list(session.scalars(select(Schedule).where(Schedule.project_id == project_id)
                                .order_by(Schedule.id)))


def get(session: Session, project_id: int, schedule_id: int) -> Schedule:
    schedule = session.scalar(select(Schedule).where(Schedule.id == schedule_id,
                                                     Schedule.project_id == project_id))
    if schedule is None:
        raise NotFound(f"no schedule {schedule_id}")
    return schedule


def run_due(session: Session) -> list[Job]:
    """Launches every enabled schedule that is due; one launch per tick even if several
    were missed (a lab that was down does not replay the night's jobs)."""
    now = get_clock().now()
    due = session.scalars(
        select(Schedule)
        .where(Schedule.enabled, Schedule.next_run_at <= now)
        .with_for_update(skip_locked=True)
    )
    launched: list[Job] = []
    for schedule in due:
        schedule.last_run_at = now
        schedule.next_run_at = next_run(schedule.cron, now)
        project = session.get(Project, schedule.project_id)
        assert project is not None
        try:
            with session.begin_nested():
                launched += job_service.create_jobs(
                    session, project, JobCreate.model_validate(schedule.spec),
                    schedule_id=schedule.id)
        except AppError:
            # No host offers the suite right now: the missing-data watchdog reports it.
            continue
    return launched
