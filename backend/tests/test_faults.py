"""Faults on a lab run as `make up` runs it: `python -m latlab_stack up`, supervisord over
Postgres, Redis, the api, the ingest and alerts workers, beat and a runner, all of them this
machine's own processes. A runner SIGKILLed mid-job, Redis restarted and frozen, Postgres
restarted, an alert receiver that never answers: the lab stays up and loses nothing. Its
supervisor killed, or `make up` itself: the lab ends whole and starts again."""

import contextlib
import http.client
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis

import latlab_stack as localstack
from tests.conftest import wait_for
from tests.factories import result
from tests.receiver import Receiver
from tests.supervised import SupervisedLab, stop, supervised_lab
from tests.test_jobs_e2e import _alive

HOST = "fault-lab"
APP_PROCESSES = ("api", "ingest", "alerts", "beat", "runner")
LONG_JOB = {"suite": "echo", "params": {"count": 10_000_000, "duration_s": 6}}
SMALL_JOB = {"suite": "echo", "params": {"count": 2000, "warmup": 100}, "repetitions": 1}


def _submit(lab: SupervisedLab, labels: dict[str, str],
            key: str | None = None) -> httpx.Response:
    """A run whose p99 breaches the test's rule (0.1 ms)."""
    document = result(series=[{"labels": labels, "trials": [
        {"latency": {"samples_ns": [350_000 + i for i in range(200)]}}]}])
    headers = {**lab.token, **({"Idempotency-Key": key} if key else {})}
    return lab.api.post("/api/v1/runs", json=document, headers=headers)


@pytest.fixture(scope="module")
def lab(build_cache) -> Iterator[SupervisedLab]:
    with supervised_lab(build_cache, HOST, LATLAB_DELIVERY_TIMEOUT_S="1") as supervised:
        api = supervised.api
        # The alert receivers are local.
        api.patch("/api/v1/projects/default", json={"allow_private_webhooks": True})
        token = api.post("/api/v1/tokens", json={
            "name": "ci", "scopes": ["runs:write", "jobs:write", "read"]}).json()["token"]
        supervised.token = {"Authorization": f"Bearer {token}"}
        api.post("/api/v1/sla-rules", json={
            "name": "p99 over 0.1 ms", "suite": "http-order", "metric": "p99", "op": ">",
            "threshold": 0.1, "unit": "ms"})
        yield supervised


def _session(sid: int) -> list[int]:
    """The live processes of session `sid` (`make up`'s supervisord leads one)."""
    members = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if fields[0] != "Z" and int(fields[3]) == sid:
                members.append(int(stat.parent.name))
    return members


def test_the_runner_holds_its_hosts_credentials_not_the_labs(lab) -> None:
    """`make up`'s runner is enrolled as any host: its settings file (owner-only) holds its
    key and its own broker user, its environment none of the lab's credentials, and the
    broker sees it connected as that user."""
    settings = lab.data / "runner.env"
    assert oct(settings.stat().st_mode & 0o777) == "0o600"
    written = dict(line.split("=", 1) for line in settings.read_text().splitlines())
    assert written["LATLAB_REDIS_URL"].startswith(f"redis://host-{HOST}:")
    environ = Path(f"/proc/{lab.pids()['runner']}/environ").read_bytes().split(b"\0")
    assert not [v for v in environ if v.startswith((b"LATLAB_DATABASE_URL=",
                                                    b"LATLAB_REDIS_URL="))]
    broker = redis.Redis.from_url(localstack.lab_redis_url(
        lab.data / "redis", int(lab.env["LATLAB_REDIS_PORT"])))
    assert any(c["user"] == f"host-{HOST}" for c in broker.client_list())
    with pytest.raises(redis.AuthenticationError):
        redis.Redis(port=int(lab.env["LATLAB_REDIS_PORT"])).ping()  # the default user is off


def test_a_runner_killed_mid_job_is_restarted_and_its_job_run_again(lab) -> None:
    before = lab.pids()
    job_id = lab.api.post("/api/v1/jobs", json=LONG_JOB).json()["id"]
    running = wait_for(lambda: (lambda j: j if j["phase"] == "measure" and j["programs"]
                                else None)(lab.api.get(f"/api/v1/jobs/{job_id}").json()),
                       timeout=120)
    programs = [p["pid"] for p in running["programs"]]
    os.kill(before["runner"], signal.SIGKILL)  # its main process only

    wait_for(lambda: not any(_alive(pid) for pid in programs), timeout=30)
    wait_for(lambda: lab.pids()["runner"] not in (0, before["runner"]) and lab.running(),
             timeout=60)
    job = lab.finish(job_id, timeout=180)
    assert job["status"] == "succeeded" and job["attempts"] == 2, job
    assert "attempt 1 lost" in job["error"]
    after = lab.pids()
    assert {n: after[n] for n in after if n != "runner"} == {
        n: before[n] for n in before if n != "runner"}  # nothing else restarted
    supervisor_log = lab.log("supervisord")
    assert "exited: runner (terminated by SIGKILL; not expected)" in supervisor_log
    assert supervisor_log.count("spawned: 'runner'") == 2


def test_redis_restarted_or_frozen_costs_no_request_and_no_process(lab) -> None:
    receiver = Receiver()
    try:
        channel = lab.api.post("/api/v1/channels", json={
            "name": "restart", "kind": "webhook", "url": receiver.url}).json()
        before = lab.pids()
        running = lab.api.post("/api/v1/jobs", json=LONG_JOB).json()["id"]
        wait_for(lambda: lab.api.get(f"/api/v1/jobs/{running}").json()["phase"] == "measure",
                 timeout=120)
        lab.rpc().stopProcess("redis")
        # Writes are stored and answered; their follow-ups wait in the outbox.
        stored = _submit(lab, {"client": "during-redis-outage"})
        assert stored.status_code == 201 and stored.json()["verdict"] == "fail", stored.text
        job = lab.api.post("/api/v1/jobs", json=SMALL_JOB)
        assert job.status_code == 202, job.text
        assert lab.api.get("/api/v1/runs").status_code == 200
        lab.rpc().startProcess("redis", False)

        wait_for(lambda: len(receiver.messages) == 1, timeout=90)
        assert receiver.messages[0]["event"] == "opened"
        # The job that was measuring through the outage keeps its first attempt.
        finished = lab.finish(running)
        assert finished["status"] == "succeeded" and finished["attempts"] == 1, finished
        assert lab.finish(job.json()["id"])["status"] == "succeeded"

        pid = lab.pids()["redis"]
        os.kill(pid, signal.SIGSTOP)  # frozen: connections hang, nothing answers
        try:
            frozen = _submit(lab, {"client": "during-redis-freeze"})
            assert frozen.status_code == 201, frozen.text
            job = lab.api.post("/api/v1/jobs", json=SMALL_JOB)
            assert job.status_code == 202, job.text
        finally:
            os.kill(pid, signal.SIGCONT)
        wait_for(lambda: len(receiver.messages) == 2, timeout=90)
        assert lab.finish(job.json()["id"])["status"] == "succeeded"

        after = lab.pids()
        assert {n: after[n] for n in APP_PROCESSES} == {n: before[n] for n in APP_PROCESSES}
        for name in ("ingest", "alerts", "runner"):
            log = lab.log(name)
            assert "Error on restarting" not in log and "Unrecoverable" not in log, log[-3000:]
        lab.api.delete(f"/api/v1/channels/{channel['id']}")
    finally:
        receiver.stop()


def test_postgres_restarted_gives_503s_then_one_run_per_key(lab) -> None:
    before = lab.pids()
    lab.rpc().stopProcess("postgres")
    try:
        for response in (_submit(lab, {"client": "key"}, key="across-restart"),
                         lab.api.get("/api/v1/runs"), lab.api.get("/api/v1/hosts"),
                         lab.api.post("/api/v1/jobs", json=SMALL_JOB)):
            assert response.status_code == 503, response.text
            assert int(response.headers["Retry-After"]) > 0
    finally:
        lab.rpc().startProcess("postgres")
    first = wait_for(lambda: (lambda r: r if r.status_code != 503 else None)(
        _submit(lab, {"client": "key"}, key="across-restart")), timeout=60)
    assert first.status_code == 201, first.text
    again = _submit(lab, {"client": "key"}, key="across-restart")
    assert again.status_code == 200 and again.json()["id"] == first.json()["id"]
    assert again.json()["replayed"] is True
    # The workers carry on: heartbeats are stored again and a job runs.
    job = lab.api.post("/api/v1/jobs", json=SMALL_JOB)
    assert lab.finish(job.json()["id"])["status"] == "succeeded"
    after = lab.pids()
    assert {n: after[n] for n in APP_PROCESSES} == {n: before[n] for n in APP_PROCESSES}


def test_a_frozen_postgres_answers_503_within_its_bound_then_recovers(lab) -> None:
    """Every Postgres process SIGSTOPped, its backends too: their sockets stay open and nothing
    answers. A request gets 503 within the bound (`docs/operations.md`, Faults: 8 s; the
    client waits 20 s so a loaded host does not fail it), not after the freeze; after SIGCONT
    the lab serves again."""
    before = lab.pids()
    assert lab.api.get("/api/v1/runs").status_code == 200  # pooled connections, to be pinged
    document = result(series=[{"labels": {"client": "frozen"}, "trials": [
        {"latency": {"samples_ns": [350_000 + i for i in range(200)]}}]}])
    headers = {**lab.token, "Idempotency-Key": "across-freeze"}
    frozen = localstack.program_processes(before["postgres"])  # its backends included
    for pid in frozen:
        os.kill(pid, signal.SIGSTOP)
    try:
        for method, path, body in (("POST", "/api/v1/runs", document),
                                   ("GET", "/api/v1/runs", None), ("GET", "/api/v1/hosts", None),
                                   ("POST", "/api/v1/jobs", SMALL_JOB)):
            response = lab.api.request(method, path, json=body, timeout=20,
                                       headers=headers if path == "/api/v1/runs" else None)
            assert response.status_code == 503, response.text
            assert int(response.headers["Retry-After"]) > 0
    finally:
        for pid in frozen:
            os.kill(pid, signal.SIGCONT)
    stored = wait_for(lambda: (lambda r: r if r.status_code != 503 else None)(
        lab.api.post("/api/v1/runs", json=document, headers=headers)), timeout=60)
    assert stored.status_code == 201, stored.text
    job = lab.api.post("/api/v1/jobs", json=SMALL_JOB)
    assert lab.finish(job.json()["id"])["status"] == "succeeded"
    after = lab.pids()
    assert {n: after[n] for n in APP_PROCESSES} == {n: before[n] for n in APP_PROCESSES}


def test_a_receiver_that_never_answers_costs_the_lab_nothing(lab) -> None:
    silent = socket.create_server(("127.0.0.1", 0))  # accepts, never answers
    port = silent.getsockname()[1]
    channel = lab.api.post("/api/v1/channels", json={
        "name": "silent", "kind": "slack", "url": f"http://127.0.0.1:{port}/hook"}).json()
    job_id = lab.api.post("/api/v1/jobs", json=LONG_JOB).json()["id"]
    started = time.monotonic()
    alerts = [_submit(lab, {"client": f"silent-{i}"}) for i in range(4)]
    assert all(a.status_code == 201 for a in alerts)

    offline: list[dict[str, Any]] = []

    def finished() -> dict[str, Any] | None:
        offline.extend(h for h in lab.api.get("/api/v1/hosts").json()
                       if h["name"] == HOST and not h["online"])
        job = lab.api.get(f"/api/v1/jobs/{job_id}").json()
        return job if job["status"] not in ("queued", "dispatched", "running") else None

    job = wait_for(finished, timeout=180, interval=0.5)
    assert job["status"] == "succeeded" and job["attempts"] == 1, job
    assert offline == []
    listed = wait_for(lambda: next(c for c in lab.api.get("/api/v1/channels").json()
                                   if c["id"] == channel["id"] and c["status"] == "failing"),
                      timeout=60)
    assert "timed out" in listed["last_error"].lower()

    silent.close()
    receiver = Receiver(port=port)
    try:
        ids = [a["id"] for a in lab.api.get("/api/v1/alerts").json()["items"]
               if "silent-" in a["message"]]
        assert len(ids) == 4

        def deliveries() -> list[dict[str, Any]]:
            return [d for i in ids for d in lab.api.get(f"/api/v1/alerts/{i}/deliveries").json()
                    if d["channel_id"] == channel["id"]]

        sent = wait_for(lambda: (lambda ds: ds if all(d["status"] == "sent" for d in ds)
                                 else None)(deliveries()), timeout=120)
        elapsed = time.monotonic() - started
        assert len(sent) == 4 and len(receiver.messages) == 4  # each once
        assert sorted(m["text"].split("]")[0] for m in receiver.messages) == ["[ALERT"] * 4
        # One backoff for the channel, not a chain per message: windows of 0.5, 1, 2, 2 ... s
        # with at most two attempts each (the alerts worker runs two at once).
        assert sum(d["attempts"] for d in sent) <= 2 * (4 + elapsed / 2), sent
        channel_after = next(c for c in lab.api.get("/api/v1/channels").json()
                             if c["id"] == channel["id"])
        assert channel_after["status"] == "ok"
    finally:
        receiver.stop()


def test_the_lab_ends_with_its_supervisor_and_make_up_starts_it_again(lab) -> None:
    """`make up` killed: supervisord stops the lab as on Ctrl-C. supervisord killed: the
    kernel signals each of its processes, and they end. Either way no process of the lab is
    left, Postgres shut down cleanly, and `make up` again starts the lab on the same data."""
    jobs = [job["id"] for job in lab.api.get("/api/v1/jobs").json()["items"]]
    postmaster = lab.data / "pg" / "data" / "postmaster.pid"

    supervisord = lab.rpc().getPID()
    lab.process.kill()
    lab.process.wait()
    wait_for(lambda: not _session(supervisord), timeout=90)
    assert not postmaster.exists()
    assert "stopped: postgres" in lab.log("supervisord")

    lab.restart()
    assert all(lab.api.get(f"/api/v1/jobs/{job}").status_code == 200 for job in jobs)
    supervisord = lab.rpc().getPID()
    # Postgres's and Celery's children are in supervisord's session too.
    assert len(_session(supervisord)) > len(APP_PROCESSES) + 2
    os.kill(supervisord, signal.SIGKILL)
    assert lab.process.wait(60) == 128 + signal.SIGKILL
    assert "supervisord ended (-9)" in lab.up_log()
    wait_for(lambda: not _session(supervisord), timeout=90)
    assert not postmaster.exists()

    lab.restart()
    job = lab.api.post("/api/v1/jobs", json=SMALL_JOB)
    assert lab.finish(job.json()["id"])["status"] == "succeeded"


def test_a_process_that_keeps_dying_is_started_again_with_backoff() -> None:
    """The supervisor's configuration as `make up` writes it, on a program that exits 1 s
    after each start: started again and again, in backoff between tries, and logged."""
    data = Path(tempfile.mkdtemp(prefix="latlab-supervisor-"))
    (data / "logs").mkdir()
    crasher = localstack.Program("crasher", ["/bin/sh", "-c", "sleep 1; exit 3"], service=True)
    (data / "supervisord.conf").write_text(localstack.supervisor_config(data, [crasher], "pw"))
    supervisord = subprocess.Popen(
        [str(Path(sys.executable).parent / "supervisord"), "-c", str(data / "supervisord.conf")],
        stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        states: set[str] = set()

        def restarted_thrice() -> bool:
            with contextlib.suppress(OSError, http.client.HTTPException):  # not listening yet
                rpc = localstack.supervisor_rpc(data / "supervisord.conf")
                states.add(rpc.getProcessInfo("crasher")["statename"])
            log = data / "logs" / "supervisord.log"
            return log.exists() and log.read_text().count("spawned: 'crasher'") >= 3

        wait_for(restarted_thrice, timeout=60, interval=0.05)
        assert "BACKOFF" in states, states
        assert "exited: crasher (exit status 3; not expected)" in (
            data / "logs" / "supervisord.log").read_text()
    finally:
        stop(supervisord)
        shutil.rmtree(data, ignore_errors=True)
