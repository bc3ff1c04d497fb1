"""Runner outcomes reach Postgres through a real Celery ingest worker."""

from sqlalchemy import func, select

from latlab.core.tasks import get_sender
from latlab.models import Run, Trial
from tests.conftest import wait_for
from tests.factories import result


def test_outcome_is_stored_once_even_when_delivered_twice(committed_db, ingest_worker) -> None:
    outcome = result(source={"kind": "job"}, host="runner-a")
    for _ in range(2):
        get_sender().send_task("ingest.store_outcome", queue="ingest", kwargs={
            "outcome": outcome, "project": "default", "idempotency_key": "job-41"})

    def stored() -> Run | None:
        committed_db.expire_all()
        return committed_db.scalar(select(Run).where(Run.idempotency_key == "job-41"))

    run = wait_for(stored)
    assert run.source_kind == "job" and run.host_name == "runner-a"
    get_sender().send_task("ingest.store_outcome", queue="ingest", kwargs={
        "outcome": result(source={"kind": "job"}, host="runner-b"), "project": "default",
        "idempotency_key": "job-42"})
    wait_for(lambda: committed_db.scalar(
        select(func.count()).select_from(Run).where(Run.idempotency_key == "job-42")))
    committed_db.expire_all()
    assert committed_db.scalar(
        select(func.count()).select_from(Run).where(Run.idempotency_key == "job-41")) == 1
    assert committed_db.scalar(select(func.count()).select_from(Trial)) == 2


def test_tasks_leave_only_after_commit(db) -> None:
    from latlab.core.tasks import _PENDING, enqueue

    enqueue(db, "ingest.noop", "ingest", x=1)
    assert db.info[_PENDING][0].task_name == "ingest.noop"
    db.rollback()
    assert _PENDING not in db.info
