"""Jobs end to end: api -> Redis -> a real runner worker -> ingest worker -> Postgres."""

import contextlib
import os
import signal
import subprocess
import sys
from datetime import datetime

import httpx
import pytest
from sqlalchemy import select

from latlab.core import clock as clock_module
from latlab.jobs import service as job_service
from latlab.models import Host, Job, JobStatus
from tests.conftest import wait_for

SMALL = {"count": 2000, "warmup": 100}


@pytest.fixture
def beat(tmp_path):
    """Real Celery beat: runs the job watchdog every few seconds."""
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "latlab.worker", "beat", "--schedule",
         str(tmp_path / "beat-schedule"), "--loglevel", "WARNING"],
        env=dict(os.environ), start_new_session=True)
    yield
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    process.wait(20)


def _online(client: httpx.Client, name: str) -> dict:
    return wait_for(lambda: next((h for h in client.get("/api/v1/hosts").json()
                                  if h["name"] == name and h["online"]), None))


def _finish(client: httpx.Client, job_id: int, timeout: float = 300) -> tuple[dict, list]:
    seen: list[tuple[str, str | None]] = []

    def finished() -> dict | None:
        job = client.get(f"/api/v1/jobs/{job_id}").json()
        if not seen or seen[-1] != (job["status"], job["phase"]):
            seen.append((job["status"], job["phase"]))
        return job if job["status"] in ("succeeded", "failed", "cancelled", "timed_out") else None

    try:
        return wait_for(finished, timeout=timeout, interval=0.1), seen
    except AssertionError as error:
        raise AssertionError(f"job {job_id} did not finish: {seen}; hosts: "
                             f"{client.get('/api/v1/hosts').json()}") from error


def test_echo_job_runs_on_a_host_and_stores_a_run(member, ingest_worker, start_runner) -> None:
    start_runner("lab-echo", tags="local,x86")
    host = _online(member, "lab-echo")
    assert host["tags"] == ["local", "x86"] and host["fingerprint"]["kernel"]
    assert any(check["setting"] for check in host["tuning"])
    suites = member.get("/api/v1/suites").json()
    echo = next(s for s in suites if s["id"] == "echo")
    assert "default" in echo["scenarios"] and echo["hosts"] == ["lab-echo"]
    assert echo["params_schema"]["properties"]["count"]["type"] == "integer"

    created = member.post("/api/v1/jobs", json={
        "suite": "echo", "scenario": "default", "host_tags": [], "params": SMALL})
    assert created.status_code == 202, created.text
    job, seen = _finish(member, created.json()["id"])
    assert job["status"] == "succeeded", job
    assert job["progress"] == 100 and job["host_name"] == "lab-echo" and job["attempts"] == 1
    # It went through its states: each stamps its time (polling may miss a short "running").
    stamps = [datetime.fromisoformat(job[k]) for k in ("dispatched_at", "started_at",
                                                        "finished_at")]
    assert stamps == sorted(stamps), (job, seen)
    run = member.get(f"/api/v1/runs/{job['run_id']}").json()
    assert run["source"]["kind"] == "job" and run["job_id"] == job["id"]
    assert run["host_name"] == "lab-echo" and run["host_fingerprint"]["kernel"]
    series = run["series"][0]
    assert series["labels"] == {"transport": "tcp"}
    # Five trials (the default repetitions) of 2,000 round trips.
    assert series["summary"]["count"] == 5 * 2000 and series["summary"]["p50"] > 0
    assert series["metrics"]["throughput"] > 0


def test_a_trial_by_time_says_how_long_it_measured_and_how_it_warmed_up(
        member, ingest_worker, start_runner) -> None:
    """Echo's `steady` scenario: trials by time after a settled warm-up; each trial says its
    duration, its warm-up and whether it settled, and its samples are whatever the time took."""
    start_runner("lab-steady")
    _online(member, "lab-steady")
    created = member.post("/api/v1/jobs", json={
        "suite": "echo", "scenario": "steady", "host_tags": [], "repetitions": 2,
        "params": {"duration_s": 1}})
    assert created.status_code == 202, created.text
    job, _ = _finish(member, created.json()["id"])
    assert job["status"] == "succeeded", job.get("error")
    run = member.get(f"/api/v1/runs/{job['run_id']}").json()
    assert run["params"]["count"] == 0 and run["params"]["settle_s"] == 10
    (series,) = run["series"]
    assert len(series["trials"]) == 2
    for trial in series["trials"]:
        assert trial["metrics"]["elapsed_s"] >= 0.95, trial["metrics"]
        assert trial["summary"]["count"] > 0
        settle = trial["tuning"]["settle"]
        assert settle in {"settled", "not settled in 10 s"}, trial["tuning"]
        assert trial["metrics"]["warmup_s"] >= (0.6 if settle == "settled" else 10.0)
    assert series["summary"]["count"] == sum(t["summary"]["count"] for t in series["trials"])


def test_http_order_job_runs_the_five_clients_against_one_server(
        member, ingest_worker, start_runner, build_cache) -> None:
    """The issue's acceptance: scenario "small" gives one run with a series per client. The
    suite is built first in-process (a cold build takes minutes) so the job finds it cached."""
    from http_order_support import CLIENTS, build_suite

    build_suite(build_cache)
    start_runner("lab-orders")
    _online(member, "lab-orders")
    created = member.post("/api/v1/jobs", json={
        "suite": "http-order", "scenario": "small", "host_tags": [], "repetitions": 2,
        "params": {"pin_cpus": "0", "mlock": True}})
    assert created.status_code == 202, created.text
    job, _ = _finish(member, created.json()["id"])
    assert job["status"] == "succeeded", job
    run = member.get(f"/api/v1/runs/{job['run_id']}").json()
    # The default loads: the seed's five (the reference load, ref, only when asked).
    assert sorted(s["labels"]["client"] for s in run["series"]) == sorted(
        c for c in CLIENTS if c != "ref")
    for series in run["series"]:
        assert series["summary"]["count"] == 2 * 100, series  # two trials of 100 orders
        assert 0 < series["summary"]["p50"] <= series["summary"]["p99"]
        assert series["metrics"]["throughput"] > 0 and series["metrics"]["errors"] == 0
        assert len(series["trials"]) == 2
        for trial in series["trials"]:
            assert trial["tuning"]["pin_cpus"].startswith(("applied", "refused")), trial
            assert trial["tuning"]["mlock"].startswith(("applied", "refused")), trial


@pytest.mark.parametrize(("params", "path"), [
    ({"count": "10; rm -rf /"}, "$.params.count"),
    ({"count": -1}, "$.params.count"),
    ({"count": 2.5}, "$.params.count"),
    ({"size": 10**9}, "$.params.size"),
    ({"shell": "$(reboot)"}, "$.params"),
])
def test_bad_params_are_refused_and_start_nothing(member, start_runner, params, path) -> None:
    start_runner("lab-params")
    _online(member, "lab-params")
    response = member.post("/api/v1/jobs", json={"suite": "echo", "params": params})
    assert response.status_code == 422, response.text
    assert any(p["path"] == path for p in response.json()["detail"]), response.json()
    assert member.get("/api/v1/jobs").json()["total"] == 0, member.get("/api/v1/jobs").json()


def test_unknown_suite_scenario_or_tags(member, start_runner) -> None:
    start_runner("lab-tags", tags="local")
    _online(member, "lab-tags")
    assert member.post("/api/v1/jobs", json={"suite": "nope"}).status_code == 409
    assert member.post("/api/v1/jobs", json={"suite": "echo", "scenario": "huge"}
                       ).status_code == 422
    tagged = member.post("/api/v1/jobs", json={"suite": "echo", "host_tags": ["hft-tuned"]})
    assert tagged.status_code == 409 and "hft-tuned" in tagged.json()["detail"]
    assert member.get("/api/v1/jobs").json()["total"] == 0


def test_cancel_kills_the_programs(member, ingest_worker, start_runner) -> None:
    start_runner("lab-cancel")
    _online(member, "lab-cancel")
    job_id = member.post("/api/v1/jobs", json={
        "suite": "echo", "params": {"count": 10_000_000, "duration_s": 120}}).json()["id"]
    running = wait_for(lambda: (lambda j: j if j["status"] == "running" and j["programs"]
                                and j["phase"] == "measure" else None)(
        member.get(f"/api/v1/jobs/{job_id}").json()), timeout=300)
    pids = [p["pid"] for p in running["programs"]]
    assert len(pids) == 2  # the echo server and the client
    cancelled = member.post(f"/api/v1/jobs/{job_id}/cancel")
    assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
    wait_for(lambda: not any(_alive(pid) for pid in pids), timeout=30)
    assert member.post(f"/api/v1/jobs/{job_id}/cancel").status_code == 409
    after = member.post("/api/v1/jobs", json={"suite": "echo", "params": SMALL}).json()
    assert _finish(member, after["id"])[0]["status"] == "succeeded"


def test_a_killed_runner_loses_no_job(member, ingest_worker, start_runner, beat) -> None:
    runner = start_runner("lab-kill")
    _online(member, "lab-kill")
    job_id = member.post("/api/v1/jobs", json={
        "suite": "echo", "params": {"count": 10_000_000, "duration_s": 6}}).json()["id"]
    wait_for(lambda: member.get(f"/api/v1/jobs/{job_id}").json()["phase"] == "measure",
             timeout=300)
    runner.kill()
    # The beat watchdog notices the silence and dispatches the job again (attempt 2).
    retried = wait_for(lambda: (lambda j: j if j["attempts"] == 2 else None)(
        member.get(f"/api/v1/jobs/{job_id}").json()), timeout=60)
    assert "attempt 1 lost" in retried["error"]
    start_runner("lab-kill")
    job, _ = _finish(member, job_id, timeout=120)
    assert job["attempts"] == 2 and job["status"] != "running"
    nxt = member.post("/api/v1/jobs", json={"suite": "echo", "params": SMALL}).json()
    assert _finish(member, nxt["id"])[0]["status"] == "succeeded"


@pytest.fixture
def real_clock() -> None:
    """This process writes to the lab's book beside its workers: on their clock."""
    clock_module.set_clock(clock_module.SystemClock())  # the autouse `clock` puts it back


def _give_up(committed_db, job_id: int, dispatch: bool = False) -> None:
    """The lab ends a job without telling its runner (as its watchdog does when a frozen
    Redis held the runner's events back): no revocation, only its own book and what it
    tells runners of the attempt it expects."""
    job = committed_db.get(Job, job_id, populate_existing=True)
    job_service.transition(job, JobStatus.failed, error="the lab gave up on it")
    if dispatch:
        job_service.dispatch_queued(committed_db)
    committed_db.commit()


def _running(committed_db, name: str) -> dict | None:
    """What the host's runner said at its last heartbeat it was executing."""
    committed_db.rollback()  # a fresh look
    return committed_db.scalar(select(Host.running).where(Host.name == name))


def test_a_runner_starts_no_attempt_the_lab_gave_up_on(member, committed_db, ingest_worker,
                                                       start_runner, real_clock) -> None:
    runner = start_runner("lab-stale-start")
    _online(member, "lab-stale-start")
    os.killpg(runner.process.pid, signal.SIGSTOP)  # the runner, frozen: the task waits
    try:
        stale = member.post("/api/v1/jobs", json={
            "suite": "echo", "params": {"count": 10_000_000, "duration_s": 10}}).json()["id"]
        assert member.get(f"/api/v1/jobs/{stale}").json()["status"] == "dispatched"
        _give_up(committed_db, stale)
    finally:
        os.killpg(runner.process.pid, signal.SIGCONT)
    nxt = member.post("/api/v1/jobs", json={"suite": "echo", "params": SMALL}).json()["id"]
    seen = []  # what the runner said it executed, heartbeat after heartbeat

    def finished() -> bool:
        seen.append(_running(committed_db, "lab-stale-start"))
        return member.get(f"/api/v1/jobs/{nxt}").json()["status"] == "succeeded"

    wait_for(finished, timeout=120, interval=0.2)
    assert {"job_id": stale, "attempt": 1} not in seen, seen
    assert member.get(f"/api/v1/jobs/{stale}").json()["error"] == "the lab gave up on it"


def test_a_runner_stops_work_the_lab_gave_up_on_and_the_job_sent_meanwhile_runs_once(
        member, committed_db, ingest_worker, start_runner, beat, real_clock) -> None:
    """The lab gives up on a job its runner is still measuring (as its watchdog does when a
    frozen Redis held the runner's events back). The runner reads that at its next report and
    stops the attempt, its programs killed, rather than spend the host's time on it; the job
    dispatched meanwhile waits behind it in the host's queue and then runs, at its first
    attempt. (A runner that cannot read the lab's state goes on; a host that says it is busy
    is then given nothing more: `test_jobs.py`.)"""
    start_runner("lab-stale")
    _online(member, "lab-stale")
    abandoned = member.post("/api/v1/jobs", json={
        "suite": "echo", "params": {"count": 10_000_000, "duration_s": 120},
        "repetitions": 1}).json()["id"]
    measuring = wait_for(lambda: (lambda j: j if j["phase"] == "measure" and j["programs"]
                                  else None)(member.get(f"/api/v1/jobs/{abandoned}").json()),
                         timeout=300)
    sent = member.post("/api/v1/jobs", json={"suite": "echo", "params": SMALL}).json()["id"]
    assert member.get(f"/api/v1/jobs/{sent}").json()["status"] == "queued"
    _give_up(committed_db, abandoned, dispatch=True)
    assert member.get(f"/api/v1/jobs/{sent}").json()["status"] == "dispatched"
    wait_for(lambda: not any(_alive(p["pid"]) for p in measuring["programs"]), timeout=30)
    first, _ = _finish(member, sent, timeout=180)
    assert first["status"] == "succeeded" and first["attempts"] == 1, first
    assert member.get(f"/api/v1/jobs/{abandoned}").json()["status"] == "failed"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is gone for our purposes: it runs nothing.
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split()[2] != "Z"
    except FileNotFoundError:
        return False
