"""Jobs, hosts and schedules, without runners: dispatch rules, the state machine, the
watchdog, heartbeats and offline detection, and schedules."""

import math

import pytest
from sqlalchemy import select

from latlab.core import tasks
from latlab.core.errors import Conflict
from latlab.core.settings import get_settings
from latlab.hosts import service as host_service
from latlab.jobs import schedules, watchdog
from latlab.jobs import service as job_service
from latlab.jobs.schemas import JobCreate, ScheduleCreate
from latlab.models import Job, JobStatus, OutboxMessage, Project
from latlab_contract import Attempt, Heartbeat, JobEvent, attempt_key
from latlab_workers.suites import SUITES_DIR, load_suite

ECHO = load_suite(SUITES_DIR / "echo").info()


def _host(db, name: str, tags: list[str], running: tuple[int, int] | None = None):
    """A heartbeat of host `name`, executing attempt (job id, attempt) or nothing."""
    return host_service.record_heartbeat(db, Heartbeat(
        name=name, tags=tags, fingerprint={"kernel": "6.1", "governor": "performance"},
        suites=[ECHO], running=running and Attempt(job_id=running[0], attempt=running[1])))


def _project(db) -> Project:
    return db.scalar(select(Project).where(Project.slug == "default"))


def _echo_job(db) -> Job:
    """An echo job of the default project."""
    job, = job_service.create_jobs(db, _project(db), JobCreate(suite="echo"))
    return job


def test_hosts_go_offline_after_three_missed_heartbeats(db, clock) -> None:
    host = _host(db, "lab-1", ["local"])
    assert host_service.is_online(host)
    clock.advance(seconds=29)
    assert host_service.is_online(host)
    clock.advance(seconds=2)
    assert not host_service.is_online(host)
    assert host_service.catalogue(db, _project(db).id) == {}


def test_least_busy_matching_host_gets_the_job_then_jobs_queue(db) -> None:
    _host(db, "lab-b", ["x86", "tuned"])
    _host(db, "lab-a", ["x86"])
    first, = job_service.create_jobs(db, _project(db), JobCreate(suite="echo",
                                                                host_tags=["x86"]))
    second, = job_service.create_jobs(db, _project(db), JobCreate(suite="echo",
                                                                 host_tags=["x86"]))
    third, = job_service.create_jobs(db, _project(db), JobCreate(suite="echo",
                                                                host_tags=["x86"]))
    assert first.status is JobStatus.dispatched and second.status is JobStatus.dispatched
    assert {first.host_id, second.host_id} == {h.id for h in host_service.list_hosts(db, None)}
    assert third.status is JobStatus.queued and third.host_id is None
    job_service.apply_event(db, JobEvent(job_id=first.id, attempt=1, status="failed",
                                         error="boom"))
    assert first.status is JobStatus.failed and first.error == "boom"
    assert third.status is JobStatus.dispatched and third.host_id == first.host_id


def test_scenario_defaults_are_frozen_into_the_job(db) -> None:
    _host(db, "lab-1", ["local"])
    job, = job_service.create_jobs(db, _project(db), JobCreate(suite="echo",
                                                              params={"count": 5}))
    assert job.params == {"count": 5, "warmup": 2000, "size": 64, "connections": 1,
                          "timeout_ms": 1000, "duration_s": 300, "settle_s": 0,
                          "server_cpus": "", "load_cpus": ""}


def test_the_state_machine_refuses_impossible_moves(db) -> None:
    _host(db, "lab-1", ["local"])
    job = _echo_job(db)
    job_service.transition(job, JobStatus.running)
    job_service.transition(job, JobStatus.succeeded)
    for status in JobStatus:
        with pytest.raises(Conflict):
            job_service.transition(job, status)


def test_stale_attempts_and_finished_jobs_ignore_events(db) -> None:
    _host(db, "lab-1", ["local"])
    job = _echo_job(db)
    job_service.apply_event(db, JobEvent(job_id=job.id, attempt=7, phase="measure",
                                         progress=50))
    assert job.status is JobStatus.dispatched and job.progress == 0
    job_service.apply_event(db, JobEvent(job_id=job.id, attempt=1, phase="measure",
                                         progress=50))
    assert job.status is JobStatus.running and job.progress == 50


def test_watchdog_retries_a_silent_job_once_then_fails_it(db, clock) -> None:
    _host(db, "lab-1", ["local"])
    job = _echo_job(db)
    job_service.apply_event(db, JobEvent(job_id=job.id, attempt=1, phase="measure"))
    clock.advance(seconds=4)
    assert watchdog.find_lost(db) == []
    clock.advance(seconds=2)  # LATLAB_JOB_SILENCE_S is 5 in tests
    _host(db, "lab-1", ["local"])  # the host is still announcing itself
    assert watchdog.find_lost(db) == [job]
    assert job.status is JobStatus.dispatched and job.attempts == 2
    assert "attempt 1 lost" in job.error
    job_service.apply_event(db, JobEvent(job_id=job.id, attempt=2, phase="build"))
    clock.advance(seconds=6)
    _host(db, "lab-1", ["local"])
    watchdog.find_lost(db)
    assert job.status is JobStatus.failed and "not retried again" in job.error
    assert job.finished_at == clock.now()


def _expected(db, job_id: int) -> list[str]:
    """What the lab told runners, in order, of the attempt it expects of the job."""
    return [m.kwargs["value"] for m in db.scalars(
        select(OutboxMessage).where(OutboxMessage.task == tasks.EXPECT)
        .order_by(OutboxMessage.id)) if m.kwargs["key"] == attempt_key(job_id)]


def test_runners_are_told_which_attempt_the_lab_expects(db, clock) -> None:
    _host(db, "lab-1", ["local"])
    job = _echo_job(db)
    first = job_service.task_id(job)
    job_service.apply_event(db, JobEvent(job_id=job.id, attempt=1, phase="measure"))
    clock.advance(seconds=6)
    _host(db, "lab-1", ["local"])  # the runner said it runs nothing: attempt 1 is lost
    assert watchdog.find_lost(db) == [job] and job.attempts == 2
    second = job_service.task_id(job)
    job_service.cancel(db, job)
    # An attempt that ends says so (a runner still on it stops: `latlab_workers.app`).
    assert _expected(db, job.id) == [first, "ended:queued", second, "ended:cancelled"]
    # The lost attempt's late events change nothing: not even a queued job's progress.
    job_service.apply_event(db, JobEvent(job_id=job.id, attempt=2, phase="report",
                                         progress=90))
    assert job.status is JobStatus.cancelled and job.progress == 0


def test_a_host_still_executing_an_attempt_the_lab_ended_is_given_nothing(db, clock) -> None:
    _host(db, "lab-1", ["local"])
    ended = _echo_job(db)
    job_service.apply_event(db, JobEvent(job_id=ended.id, attempt=1, phase="measure"))
    _host(db, "lab-1", ["local"], running=(ended.id, 1))
    clock.advance(seconds=1)
    job_service.apply_event(db, JobEvent(job_id=ended.id, attempt=1, status="failed",
                                         error="the lab gave up"))
    # Its heartbeat from before the lab's decision is not believed over it (that runner may
    # have died since): the next job is dispatched.
    nxt = _echo_job(db)
    assert nxt.status is JobStatus.dispatched
    job_service.cancel(db, nxt)
    clock.advance(seconds=1)
    _host(db, "lab-1", ["local"], running=(ended.id, 1))  # after it: still executing it
    waiting = _echo_job(db)
    assert waiting.status is JobStatus.queued
    clock.advance(seconds=1)
    _host(db, "lab-1", ["local"])  # done with it
    job_service.dispatch_queued(db)  # as the ingest worker does after each heartbeat
    assert waiting.status is JobStatus.dispatched


def test_a_job_sent_to_a_busy_host_waits_for_it_and_is_not_failed(db, clock) -> None:
    """The pickup time counts from when the host said it was free."""
    _host(db, "lab-1", ["local"])
    ended = _echo_job(db)
    job_service.apply_event(db, JobEvent(job_id=ended.id, attempt=1, status="failed",
                                         error="the lab gave up"))
    sent = _echo_job(db)
    assert sent.status is JobStatus.dispatched  # before the host says it is busy
    for message in db.scalars(select(OutboxMessage)):
        message.sent_at = clock.now()  # its task left for the broker
    pickup = get_settings().job_pickup_s
    for _ in range(3):
        clock.advance(seconds=pickup)
        _host(db, "lab-1", ["local"], running=(ended.id, 1))
        assert watchdog.find_lost(db) == [] and sent.status is JobStatus.dispatched
    _host(db, "lab-1", ["local"])  # free, and taking it
    clock.advance(seconds=pickup - 1)
    _host(db, "lab-1", ["local"], running=(sent.id, 1))
    assert watchdog.find_lost(db) == [] and sent.status is JobStatus.dispatched
    clock.advance(seconds=2)
    _host(db, "lab-1", ["local"])  # free since pickup + 1 s, and never took it: lost
    clock.advance(seconds=pickup + 1)
    _host(db, "lab-1", ["local"])
    assert watchdog.find_lost(db) == [sent] and "attempt 1 lost" in sent.error


def test_schedules_launch_due_jobs(db, clock) -> None:
    _host(db, "lab-1", ["local"])
    schedule = schedules.create(db, _project(db), ScheduleCreate(
        name="nightly echo", cron="0 2 * * *", job=JobCreate(suite="echo")), None)
    assert schedule.next_run_at.hour == 2
    assert schedules.run_due(db) == []
    clock.advance(hours=15)
    _host(db, "lab-1", ["local"])
    launched = schedules.run_due(db)
    assert len(launched) == 1 and launched[0].schedule_id == schedule.id
    assert schedule.next_run_at > clock.now()
    assert schedules.run_due(db) == []


def test_schedules_api_validates_cron(client, actors) -> None:
    actors.login(client)
    bad = client.post("/api/v1/schedules", json={"name": "x", "cron": "every night please",
                                                 "job": {"suite": "echo"}})
    assert bad.status_code == 422 and "cron" in bad.text
    good = client.post("/api/v1/schedules", json={"name": "x", "cron": "*/30 * * * *",
                                                  "job": {"suite": "echo"}})
    assert good.status_code == 201 and good.json()["job"]["suite"] == "echo"
    assert [s["name"] for s in client.get("/api/v1/schedules").json()] == ["x"]
    assert client.get("/api/v1/jobs").json()["total"] == 0


def test_read_tokens_cannot_launch_jobs(client, actors) -> None:
    from latlab.models import Scope

    response = client.post("/api/v1/jobs", json={"suite": "echo"},
                           headers=actors.token(Scope.read))
    assert response.status_code == 403 and "jobs:write" in response.text


def test_a_job_gets_its_timeout_from_its_estimate_and_one_too_long_is_refused(
        db, client, actors) -> None:
    """The estimate counts the series the runner would run (its own `plan`), each trial by
    the suite's expression; a request too long for any timeout stores nothing."""
    zmq = load_suite(SUITES_DIR / "zmq")
    host_service.record_heartbeat(db, Heartbeat(
        name="lab-1", tags=["local"], fingerprint={"kernel": "6.1"}, suites=[zmq.info()]))
    actors.login(client)
    seed = {"suite": "zmq", "scenario": "seed", "repetitions": 5}
    estimate = client.post("/api/v1/jobs/estimate", json=seed)
    assert estimate.status_code == 200, estimate.text
    series = len(zmq.plan(zmq.resolved_params("seed", {})))
    # The seed's windows: 60 s for each of 2 symbols x 2 patterns x 2 profiles, 10 warm-up
    # requests at up to half a second, 2 s to set up.
    assert series == 8
    assert estimate.json() == {"series": 8, "trials": 5, "estimate_s": 5 * 8 * (60 + 5 + 2),
                               "timeout_s": math.ceil(1.5 * 5 * 8 * 67 + 600)}
    job_id = client.post("/api/v1/jobs", json=seed).json()["id"]
    assert client.get(f"/api/v1/jobs/{job_id}").json()["timeout_s"] == 4620
    asked = client.post("/api/v1/jobs", json={**seed, "timeout_s": 120}).json()["id"]
    assert client.get(f"/api/v1/jobs/{asked}").json()["timeout_s"] == 120
    quick = client.post("/api/v1/jobs/estimate", json={"suite": "zmq", "scenario": "quick",
                                                       "repetitions": 1, "profile": True})
    assert quick.json()["trials"] == 2 and quick.json()["timeout_s"] == 900  # the floor

    too_long = {**seed, "repetitions": 100, "params": {"window": 3600}}
    for path in ("/api/v1/jobs/estimate", "/api/v1/jobs"):
        refused = client.post(path, json=too_long)
        assert refused.status_code == 422, refused.text
        assert "about 802 h (8 series x 100 trials" in refused.text
        assert "$.repetitions" in refused.text
    assert client.get("/api/v1/jobs").json()["total"] == 2


def test_every_scenario_of_every_suite_fits_a_timeout_at_its_defaults() -> None:
    from latlab_contract.estimate import MAX_TIMEOUT_S, timeout_s
    from latlab_workers.suites import load_suites

    for suite in load_suites().values():
        for name in suite.scenarios:
            seconds = suite.trials_s(suite.resolved_params(name, {}), 5)
            assert seconds is not None, suite.id
            limit = timeout_s(seconds)
            assert limit <= MAX_TIMEOUT_S, (suite.id, name, limit)
