"""Runner outcomes reach Postgres through a real Celery ingest worker."""

from sqlalchemy import func, select

from latlab.core.clock import get_clock
from latlab.core.tasks import get_sender
from latlab.models import Host, Job, JobStatus, Project, Run, Trial
from latlab_contract import INGEST_QUEUE, JOB_OUTCOME, JobOutcome
from latlab_contract.signing import seal
from tests.conftest import wait_for
from tests.factories import result
from tests.processes import enroll_host


def test_outcome_is_stored_once_even_when_delivered_twice(committed_db, ingest_worker) -> None:
    """A runner's outcome goes through the same ingest flow as a CI submission; delivered
    twice (a redelivered task), it stores one run and finishes its job once."""
    project = committed_db.scalar(select(Project).where(Project.slug == "default"))
    key = enroll_host("runner-a", "local")
    host = committed_db.scalar(select(Host).where(Host.name == "runner-a"))
    job = Job(project_id=project.id, host_id=host.id, suite="http-order", scenario="medium",
              params={},
              host_tags=[], repetitions=1, status=JobStatus.dispatched, progress=0.0,
              attempts=1, created_at=get_clock().now(), programs=[], timeout_s=900)
    committed_db.add(job)
    committed_db.commit()
    outcome = JobOutcome(job_id=job.id, attempt=1,
                         result=result(source={"kind": "job"}, host="runner-a"))
    message = seal(key, JOB_OUTCOME, "runner-a", outcome.model_dump(mode="json"))
    for _ in range(2):
        get_sender().send_task(JOB_OUTCOME, queue=INGEST_QUEUE, kwargs={"message": message})

    def finished() -> Job | None:
        committed_db.expire_all()
        found = committed_db.get(Job, job.id)
        return found if found is not None and found.status is JobStatus.succeeded else None

    done = wait_for(finished)
    run = committed_db.get(Run, done.run_id)
    assert run is not None and run.source_kind == "job" and run.host_name == "runner-a"
    assert run.verdict == "no-baseline"  # judged by the same flow as a CI submission
    wait_for(lambda: committed_db.scalar(select(func.count()).select_from(Run)) == 1)
    assert committed_db.scalar(select(func.count()).select_from(Trial)) == 1
