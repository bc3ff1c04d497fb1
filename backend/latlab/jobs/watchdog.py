"""The job watchdog (beat, every few seconds): jobs whose runner went silent, and jobs whose
task never left the outbox or was never picked up, are retried once, then failed with the
reason. A job sent to a host busy with other work waits for it."""

from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from latlab.core import tasks
from latlab.core.clock import get_clock
from latlab.core.settings import get_settings
from latlab.hosts import service as host_service
from latlab.jobs.service import dispatch_queued, task_id, transition
from latlab.models import Host, Job, JobStatus
from latlab.models.job import ACTIVE_JOB

# Attempts of a job (of a stage, for a job measured in stages) before it is failed.
MAX_ATTEMPTS = 2


def find_lost(session: Session) -> list[Job]:
    """Finds jobs whose runner went silent: retried once, then failed with the reason. A
    job whose task could not leave for the broker within the pickup time is dispatched again
    with a fresh message, its attempt not spent. A dispatched job whose online host says it
    is still executing another attempt waits for it (that attempt's own time limit bounds
    the wait); its pickup time counts from when the host said it was free."""
    settings = get_settings()
    now = get_clock().now()
    pickup = timedelta(seconds=settings.job_pickup_s)
    lost = []
    for job in session.scalars(
        select(Job).where(Job.status.in_(ACTIVE_JOB)).with_for_update(skip_locked=True)
    ):
        if job.status is JobStatus.running:
            silent = now - (job.last_event_at or now) > timedelta(seconds=settings.job_silence_s)
            reason = f"the runner went silent for more than {settings.job_silence_s:.0f} s"
            overdue = job.started_at is not None and now - job.started_at > timedelta(
                seconds=job.timeout_s + settings.job_silence_s)
            if overdue and not silent:
                transition(job, JobStatus.timed_out, error=f"ran past {job.timeout_s} s")
                continue
        else:
            # Counted from when its task left the outbox: a broker outage loses no job.
            sent = tasks.left_at(session, task_id(job), default=job.dispatched_at or now)
            if sent is None:
                if now - (job.dispatched_at or now) > pickup and tasks.withdraw(
                        session, task_id(job)):
                    lost.append(job)
                    job.attempts -= 1  # no runner could have had it
                    transition(job, JobStatus.queued, error=(
                        f"attempt {job.attempts + 1} not sent: its task did not leave for the "
                        f"broker within {settings.job_pickup_s:.0f} s; dispatched again"))
                continue
            host = session.get(Host, job.host_id)
            assert host is not None
            if host_service.is_online(host, now) and (
                    host.running == {"job_id": job.id, "attempt": job.attempts}
                    or host_service.busy_elsewhere(session, host)):
                continue  # taken (its first event is on the way), or waiting for a busy host
            # Counted from when its host was free to take it.
            silent = now - max(sent, host.idle_since or sent) > pickup
            reason = f"no runner picked the job up within {settings.job_pickup_s:.0f} s"
        if not silent:
            continue
        lost.append(job)
        retry_or_fail(job, reason)
    dispatch_queued(session)
    return lost


def retry_or_fail(job: Job, reason: str) -> None:
    """The job's current attempt is lost for `reason`: it is queued again, unless its stage
    had its attempts, then it fails with the reason."""
    if _stage_attempts(job) < MAX_ATTEMPTS:
        transition(job, JobStatus.queued, error=f"attempt {job.attempts} lost: {reason}")
    else:
        transition(job, JobStatus.failed,
                   error=f"attempt {job.attempts} lost: {reason}; not retried again")


def _stage_attempts(job: Job) -> int:
    """The attempts of the job's current stage (a job measured in stages)."""
    return job.attempts - int((job.stages or {}).get("first_attempt", 1)) + 1
