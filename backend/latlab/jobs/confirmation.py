"""Confirm-on-suspect: a lab job's run that the gate suspects of a regression is measured
again before anyone is alerted. A confirmation job on the same host runs the candidate's
spec with as many repetitions as finding a 7.5 % slowdown takes, given how widely the
suspected run's trials may spread (`gate.confirmation_trials`: 10 to 150), interleaved with
the baseline's suite version where the host still has its build (A B A B ...), and the alert
fires only if the candidate is slower than the baseline measured beside it (a one-sided
test). When the two are the same version, the same code is measured beside itself: a
slowdown that came from the host's state since the baseline (another tenant, a busy hour)
does not confirm; a lasting shift of the host shows as a change point of its history instead
(a warning)."""

import math

from sqlalchemy.orm import Session

from latlab.core.clock import get_clock
from latlab.models import Job, JobStatus, Project, Run
from latlab_contract.estimate import MAX_TIMEOUT_S


def wanted(session: Session, run: Run) -> bool:
    """Scheduled jobs always confirm; other jobs when their project says so. A CI run cannot
    be measured again: it is told how many trials would settle it instead."""
    if run.job_id is None or run.confirms_run_id is not None:
        return False
    job = session.get(Job, run.job_id)
    project = session.get(Project, run.project_id)
    return job is not None and (job.schedule_id is not None
                                or (project is not None and project.confirm_regressions))


def launch(session: Session, run: Run, baseline: Run, trials: int) -> Job:
    """Queues the confirmation job of a suspected run, `trials` repetitions, pinned to its
    host; the job outcome that brought the run dispatches it with the rest of the queue
    (`jobs.service`). Its time limit grows with its trials (both versions run each one)."""
    original = session.get(Job, run.job_id)
    assert original is not None
    repetitions = max(trials, original.repetitions)
    # A repository's commit is measured beside the baseline's commit (a try job's sides);
    # the lab's own programs beside the baseline's suite version, where the host kept it.
    source, version = None, None
    if original.source is not None:
        source = {**original.source, "ref": run.commit}
        if baseline.repo == run.repo and baseline.commit is not None:
            source["base"] = {"ref": baseline.commit, "commit": baseline.commit}
    elif baseline.source_kind == "job":
        version = baseline.commit
    job = Job(
        project_id=run.project_id, suite=run.suite, scenario=run.scenario, params=run.params,
        host_tags=[], repetitions=repetitions,
        timeout_s=min(MAX_TIMEOUT_S, original.timeout_s * max(
            3, math.ceil(2 * repetitions / original.repetitions))),
        status=JobStatus.queued, progress=0.0, attempts=0,
        pinned_host_id=original.host_id, created_at=get_clock().now(), programs=[],
        confirms_run_id=run.id, baseline_version=version,
        repository_id=original.repository_id, source=source,
        # Both versions' CPU profiles, so a confirmed regression says where the time went.
        profile=True,
    )
    session.add(job)
    session.flush()
    run.confirmation = "pending"
    return job
