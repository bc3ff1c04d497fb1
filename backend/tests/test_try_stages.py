"""A try job measured in stages, without a runner: the runner's outcomes of each stage are
applied as the ingest worker applies them (`ingest.outcomes`), so the job is queued again on
its host while undecided, its one run gathers every stage's trials, and it stops at a
decision, its last look or its cap of lab time; a lost attempt of a later stage is retried
as a first stage's is. A real runner's stages: tests/test_repos_e2e.py."""

from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest
from sqlalchemy import select

from latlab.core.clock import get_clock
from latlab.hosts import service as host_service
from latlab.ingest.outcomes import apply_outcome
from latlab.jobs import service as job_service
from latlab.jobs import stages, watchdog
from latlab.models import Job, JobStatus, Project, Repository, Run
from latlab.runs import service as run_service
from latlab_contract import Heartbeat, JobOutcome
from latlab_workers.suites import SUITES_DIR, load_suite

HEAD, BASE = "a" * 40, "b" * 40


@pytest.fixture
def try_job(db) -> Job:
    """A try job of 3 trials a side in its first stage, dispatched to lab-s."""
    host_service.record_heartbeat(db, Heartbeat(
        name="lab-s", tags=["local"], fingerprint={},
        suites=[load_suite(SUITES_DIR / "http-order").info()]))
    project = db.scalar(select(Project).where(Project.slug == "default"))
    repo = Repository(project_id=project.id, name="orders", url="file:///srv/orders",
                      default_branch="main", build_network=False, created_at=get_clock().now())
    db.add(repo)
    db.flush()
    job = Job(project_id=project.id, suite="http-order", scenario="small", params={},
              host_tags=[], repetitions=3, status=JobStatus.queued, progress=0.0, attempts=0,
              programs=[], created_at=get_clock().now(), repository_id=repo.id,
              source={"repo": "orders", "ref": "main", "commit": HEAD,
                      "base": {"ref": "v1.0", "commit": BASE}},
              stages=stages.plan(3, None))
    db.add(job)
    db.flush()
    job_service.dispatch_queued(db)
    assert job.status is JobStatus.dispatched and job.attempts == 1
    return job


def _stage(rng: np.random.Generator, trials: int, slower: float, spread: float = 0.08,
           seconds: float = 30.0) -> dict[str, Any]:
    """A stage's result: `trials` trials a side, head's latencies `slower` times base's,
    each trial's level spread by `spread`."""
    started = datetime(2026, 11, 28, 3, 0, tzinfo=UTC)

    def trial(factor: float) -> dict[str, Any]:
        level = factor * (1 + rng.normal(0, spread))
        latencies = rng.lognormal(np.log(50_000 * level), 0.3, 2000)
        return {"latency": {"samples_ns": [int(v) for v in latencies]},
                "metrics": {"throughput": 20_000 / level}}

    return {
        "schema": "latlab.result/v1", "suite": "http-order", "scenario": "small", "params": {},
        "started_at": started.isoformat(),
        "finished_at": (started + timedelta(seconds=seconds)).isoformat(),
        "source": {"kind": "job", "commit": HEAD, "repo": "orders"},
        "host": {"name": "lab-s", "tags": ["local"], "fingerprint": {}},
        "series": [{"labels": {"client": "go", "repo": "orders", "side": side},
                    "trials": [trial(factor) for _ in range(trials)]}
                   for side, factor in (("base", 1.0), ("head", slower))],
    }


def _report(db, job: Job, result: dict[str, Any]) -> Run:
    apply_outcome(db, JobOutcome(job_id=job.id, attempt=job.attempts, result=result))
    assert job.run_id is not None
    return run_service.load_run(db, job.run_id)


def _stages_said(run: Run) -> str:
    [said] = [r["message"] for r in run.verdict_reasons if r["kind"] == "stages"]
    return said


def test_an_undecided_job_measures_more_in_one_run_until_its_last_look(try_job, db) -> None:
    rng = np.random.default_rng(5)
    run = _report(db, try_job, _stage(rng, 3, 1.0))
    # Three trials a side of the same code, spread by 8 %, decide nothing: measure as many
    # again, on the same host, dispatched at once.
    assert try_job.status is JobStatus.dispatched and try_job.attempts == 2
    assert try_job.pinned_host_id == try_job.host_id and try_job.repetitions == 3
    assert run.verdict == "inconclusive"
    assert _stages_said(run).startswith("undecided at look 1 of 4, 3 trials a side, 0.5 min")
    assert "measuring 3 more trials a side (look 2 of 4)" in _stages_said(run)

    first_timeout = try_job.timeout_s
    same = _report(db, try_job, _stage(rng, 3, 1.0))
    assert same.id == run.id
    assert try_job.status is JobStatus.dispatched and try_job.repetitions == 6
    assert try_job.timeout_s == 2 * first_timeout  # twice the trials, twice the time
    _report(db, try_job, _stage(rng, 6, 1.0))
    assert try_job.status is JobStatus.dispatched and try_job.repetitions == 12
    run = _report(db, try_job, _stage(rng, 12, 1.0))
    assert try_job.status is JobStatus.succeeded and try_job.run_id == run.id
    assert [len(s.trials) for s in run.series] == [24, 24]
    assert sorted(t.index for t in run.series[0].trials) == list(range(24))
    assert run.trial_count == 48
    assert try_job.stages is not None
    assert [s["trials"] for s in try_job.stages["measured"]] == [3, 3, 6, 12]
    said = _stages_said(run)
    assert said.startswith("undecided at look 4 of 4, 24 trials a side, 2.0 min"), said
    assert said.endswith("stopped at its last look (24 trials a side)"), said
    judged = [r for r in run.verdict_reasons if r.get("outcome")]
    assert {r["metric"] for r in judged} == {"p99", "throughput"}
    assert all("24 vs 24 trials" in r["message"] for r in judged), judged


def test_a_clear_change_is_decided_at_its_first_look(try_job, db) -> None:
    """Head twice as slow: three trials a side settle it (Welch's t on their logs)."""
    run = _report(db, try_job, _stage(np.random.default_rng(6), 3, 2.0))
    assert try_job.status is JobStatus.succeeded
    assert [len(s.trials) for s in run.series] == [3, 3]
    assert run.verdict == "fail"
    assert _stages_said(run).startswith("decided at look 1 of 4, 3 trials a side")
    assert {r["outcome"] for r in run.verdict_reasons if r["kind"] == "regression"} == {
        "regressed"}


def test_no_stage_starts_past_the_cap_of_lab_time(try_job, db) -> None:
    try_job.stages = stages.plan(3, max_minutes=1)
    rng = np.random.default_rng(7)
    run = _report(db, try_job, _stage(rng, 3, 1.0, seconds=40))
    assert try_job.status is JobStatus.succeeded
    assert _stages_said(run).endswith(
        "stopped at its cap of lab time (1 min: 0.7 min spent, the next stage would take "
        "about 0.7 min more)")


def test_a_lost_attempt_of_a_later_stage_is_retried(try_job, db, clock) -> None:
    rng = np.random.default_rng(8)
    _report(db, try_job, _stage(rng, 3, 1.0))
    assert try_job.attempts == 2
    job_service.claim(db, try_job.id, 2)  # the runner started the second stage, then died
    clock.advance(seconds=6)  # LATLAB_JOB_SILENCE_S is 5 in tests
    host_service.record_heartbeat(db, Heartbeat(
        name="lab-s", tags=["local"], fingerprint={},
        suites=[load_suite(SUITES_DIR / "http-order").info()]))
    assert watchdog.find_lost(db) == [try_job]
    assert try_job.status is JobStatus.dispatched and try_job.attempts == 3
    assert "attempt 2 lost" in (try_job.error or "")
    run = _report(db, try_job, _stage(rng, 3, 1.0))
    assert [len(s.trials) for s in run.series] == [6, 6]
