"""A runner's outcome: stored and judged as its job's run, and the job told how it ended."""

from sqlalchemy.orm import Session

from latlab.core.errors import Unprocessable
from latlab.core.validation import BodyInvalid
from latlab.ingest import service as ingest
from latlab.jobs import service as job_service
from latlab.models import JobStatus, Project
from latlab_contract import JobOutcome
from latlab_contract.result import RunCreate


def apply_outcome(session: Session, outcome: JobOutcome) -> None:
    """Stores the outcome's result as its job's run through the same flow as `POST /runs`;
    an outcome of an attempt or a job that has ended is ignored (a redelivered task)."""
    job = job_service.claim(session, outcome.job_id, outcome.attempt)
    if job is None:
        return
    project = session.get(Project, job.project_id)
    assert project is not None
    try:
        body = RunCreate.model_validate(outcome.result)
        submission = ingest.ingest(session, project, body, request_hash=f"job-{job.id}",
                                   idempotency_key=f"job-{job.id}", job=job)
    except (ValueError, Unprocessable, BodyInvalid) as error:
        job_service.refused(session, job, f"the runner's result was refused: {error}")
    else:
        if job.status is JobStatus.queued:  # a try job measuring another stage
            job_service.dispatch_queued(session)
        else:
            job_service.succeeded(session, job, submission.run.id)
