"""Hosts that join with a one-time code and whose messages are believed only when their own
key signed them: invitations and `POST /hosts/join`, refused forgeries through a real ingest
worker (audited, counted), revocation, and `latlab-runner join` bringing a host online."""

import os
import stat
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import httpx
from sqlalchemy import func, select

from latlab.core.clock import get_clock
from latlab.core.tasks import get_sender
from latlab.hosts import enrollment
from latlab.hosts import service as host_service
from latlab.models import AuditEvent, Host, HostInvitation, Job, JobStatus, Project, Role, Run
from latlab.monitoring.exposition import exposition
from latlab_contract import HOST_HEARTBEAT, INGEST_QUEUE, JOB_OUTCOME, Heartbeat, JobOutcome
from latlab_contract.signing import _signature, new_key, seal
from tests.conftest import wait_for
from tests.factories import JSON, PASSWORD, Actors, result, sign_in
from tests.processes import ProcessGroup, enroll_host
from tests.test_jobs_e2e import SMALL, _finish, _online

REPO = Path(__file__).resolve().parents[2]


def test_an_invitation_enrolls_one_host_once(client, actors, db) -> None:
    actors.login(client, Role.admin)
    invited = client.post("/api/v1/hosts/invitations", json={
        "name": "lab-new", "tags": ["x86", "tuned"], "projects": ["default"]})
    assert invited.status_code == 201, invited.text
    code = invited.json()["code"]
    assert invited.json()["command"] == f"scripts/join-host.sh http://lab.test {code}"
    assert db.scalar(select(HostInvitation.code_hash)) != code  # only its hash is kept
    assert client.post("/api/v1/hosts/invitations", json={"name": "bad name!"}
                       ).status_code == 422

    joined = client.post("/api/v1/hosts/join", json={"code": code.lower()})
    assert joined.status_code == 200, joined.text
    grant = joined.json()
    assert (grant["name"], grant["tags"]) == ("lab-new", ["tuned", "x86"])
    assert len(bytes.fromhex(grant["key"])) == 32 and grant["broker_url"].startswith("redis")
    host = db.scalar(select(Host).where(Host.name == "lab-new"))
    default = db.scalar(select(Project).where(Project.slug == "default"))
    assert host.serves == [default.id] and host.secret == grant["key"]
    [listed] = client.get("/api/v1/hosts").json()
    assert listed["enrolled_at"] is not None and not listed["online"]
    # The key is never written to the audit log.
    [created] = client.get("/api/v1/audit", params={"entity_type": "host"}).json()["items"]
    assert created["after"]["secret"] == "[redacted]"

    used = client.post("/api/v1/hosts/join", json={"code": code})
    assert used.status_code == 409 and "was used at" in used.json()["detail"]
    assert client.post("/api/v1/hosts/join", json={"code": "NOPE-NOPE"}).status_code == 404
    late = client.post("/api/v1/hosts/invitations", json={"name": "lab-late"}).json()
    db.scalar(select(HostInvitation).where(HostInvitation.name == "lab-late")).expires_at = (
        get_clock().now() - timedelta(minutes=1))
    db.flush()
    expired = client.post("/api/v1/hosts/join", json={"code": late["code"]})
    assert expired.status_code == 410 and "expired at" in expired.json()["detail"]
    assert db.scalar(select(func.count()).select_from(Host)) == 1  # nothing enrolled

    client.cookies.clear()
    actors.login(client, Role.member)
    assert client.post("/api/v1/hosts/invitations", json={"name": "lab-x"}).status_code == 403
    assert client.post(f"/api/v1/hosts/{host.id}/revoke").status_code == 403


def test_a_revoked_hosts_job_is_retried_elsewhere_and_its_key_forgotten(
        client, actors, db) -> None:
    actors.login(client, Role.admin)
    enroll_host_in(db, "lab-1")
    enroll_host_in(db, "lab-2")
    project = db.scalar(select(Project).where(Project.slug == "default"))
    job = _job(db, project, db.scalar(select(Host.id).where(Host.name == "lab-1")))
    revoked = client.post(f"/api/v1/hosts/{job.host_id}/revoke")
    assert revoked.status_code == 200 and revoked.json()["enrolled_at"] is None
    assert not revoked.json()["online"]
    db.refresh(job)
    assert job.error == "attempt 1 lost: host lab-1 was revoked"
    assert db.get(Host, revoked.json()["id"]).secret is None


def enroll_host_in(db, name: str) -> None:
    """A host enrolled in the test's transaction, online as a heartbeat leaves it."""
    enrollment.reenroll(db, name, [])
    host_service.record_heartbeat(db, Heartbeat(name=name, tags=[], fingerprint={},
                                                suites=[]))


def _job(db, project: Project, host_id: int | None) -> Job:
    job = Job(project_id=project.id, host_id=host_id, suite="http-order", scenario="medium",
              params={}, host_tags=[], repetitions=1, status=JobStatus.dispatched,
              progress=0.0, attempts=1, created_at=get_clock().now(), programs=[],
              timeout_s=900)
    db.add(job)
    db.flush()
    return job


def test_forged_messages_are_refused_audited_and_counted(committed_db, ingest_worker) -> None:
    """Through the real ingest worker: another enrolled host's outcome for lab-a's job, an
    outcome under lab-a's name signed with a key not its own, heartbeats under lab-a's name
    from lab-b and a replayed old one are refused; lab-a's own outcome, sent after them, is the
    job's run."""
    project = committed_db.scalar(select(Project).where(Project.slug == "default"))
    key_a, key_b = enroll_host("lab-a", ""), enroll_host("lab-b", "")
    lab_a = committed_db.scalar(select(Host).where(Host.name == "lab-a"))
    job = _job(committed_db, project, lab_a.id)
    committed_db.commit()
    forged = JobOutcome(job_id=job.id, attempt=1, result=result(
        source={"kind": "job"}, host="lab-b")).model_dump(mode="json")
    beat = Heartbeat(name="lab-a", tags=["tuned"], fingerprint={}, suites=[]).model_dump(
        mode="json")
    old = get_clock().now().timestamp() - 600
    messages = [
        (JOB_OUTCOME, seal(key_b, JOB_OUTCOME, "lab-b", forged)),
        (JOB_OUTCOME, seal(new_key(), JOB_OUTCOME, "lab-a", forged)),
        (HOST_HEARTBEAT, seal(key_b, HOST_HEARTBEAT, "lab-b", beat)),
        (HOST_HEARTBEAT, {"host": "lab-a", "sent_at": old, "body": beat,
                          "signature": _signature(key_a, HOST_HEARTBEAT, "lab-a", old, beat)}),
        # A real outcome of lab-a's, last: it is the one stored.
        (JOB_OUTCOME, seal(key_a, JOB_OUTCOME, "lab-a", JobOutcome(
            job_id=job.id, attempt=1, result=result(source={"kind": "job"}, host="lab-a")
        ).model_dump(mode="json"))),
    ]
    for task, message in messages:
        get_sender().send_task(task, queue=INGEST_QUEUE, kwargs={"message": message})

    def stored() -> Job | None:
        committed_db.expire_all()
        found = committed_db.get(Job, job.id)
        return found if found.status is JobStatus.succeeded else None

    done = wait_for(stored)
    assert committed_db.get(Run, done.run_id).host_name == "lab-a"
    assert committed_db.get(Host, lab_a.id).heartbeat_at is None  # no heartbeat believed
    refusals = committed_db.scalars(select(AuditEvent).where(AuditEvent.action == "refused")
                                    .order_by(AuditEvent.id)).all()
    assert [(r.actor, r.after["task"], r.after["job_id"], r.project_id) for r in refusals] == [
        ("host 'lab-b' (unverified)", JOB_OUTCOME, job.id, project.id),
        ("host 'lab-a' (unverified)", JOB_OUTCOME, job.id, project.id),
        ("host 'lab-b' (unverified)", HOST_HEARTBEAT, None, None),
        ("host 'lab-a' (unverified)", HOST_HEARTBEAT, None, None)]
    assert [r.after["reason"] for r in refusals] == [
        f"job {job.id}'s attempt 1 was not dispatched to host lab-b",
        "the signature does not match the host's key",
        "a heartbeat of host lab-b announces 'lab-a'",
        "a heartbeat sent more than 5 minutes from now"]
    metrics = exposition(committed_db, project).decode()
    assert 'latlab_messages_refused_total{task="ingest.job_outcome"} 2.0' in metrics
    assert 'latlab_messages_refused_total{task="ingest.host_heartbeat"} 2.0' in metrics


class JoinedRunner(ProcessGroup):
    """The runner as the systemd unit `latlab-runner join --service` wrote starts it (its
    Environment and ExecStart), with none of the tests' settings."""

    def __init__(self, unit: Path, build_cache: Path, wrapper: list[str] | None = None
                 ) -> None:
        lines = unit.read_text().splitlines()
        env = {k: v for k, v in os.environ.items() if not k.startswith("LATLAB_")}
        env.update(line.removeprefix("Environment=").split("=", 1) for line in lines
                   if line.startswith("Environment="))
        env.update(LATLAB_BUILD_CACHE=str(build_cache), LATLAB_HEARTBEAT_S="1",
                   LATLAB_EVENT_INTERVAL_S="0.5")
        command = next(line.removeprefix("ExecStart=").split() for line in lines
                       if line.startswith("ExecStart="))
        self.process = subprocess.Popen([*(wrapper or []), *command], env=env,
                                        start_new_session=True)


def test_latlab_runner_join_brings_a_host_online_and_a_job_runs_on_it(
        committed_db, live_server, ingest_worker, build_cache, tmp_path) -> None:
    """The README's way: `latlab hosts invite` prints the command, run on the new machine."""
    admin = Actors(committed_db).user(Role.admin)
    committed_db.commit()
    bin_dir = Path(sys.executable).parent
    invited = subprocess.run(
        [str(bin_dir / "latlab"), "hosts", "invite", "lab-joined", "--tags", "x86", "--email",
         admin.email, "--password", PASSWORD, "--url", live_server],
        capture_output=True, text=True, timeout=60,
        env={**os.environ, "LATLAB_CONFIG": str(tmp_path / "latlab.toml")})
    assert invited.returncode == 0, invited.stderr
    command = invited.stdout.splitlines()[-1].split()
    assert command[:2] == ["scripts/join-host.sh", live_server], invited.stdout
    api = httpx.Client(base_url=live_server, timeout=30, headers=JSON)
    sign_in(api, admin.email)
    env_file = tmp_path / "etc" / "runner.env"
    # The README's one command on a new machine: toolchains, the runner, join, its service.
    join = [str(REPO / command[0]), *command[1:], "--env-file", str(env_file),
            "--unit-dir", str(tmp_path / "units")]
    joined = subprocess.run(join, capture_output=True, text=True, timeout=120,
                            env={**os.environ, "LATLAB_VENV": str(bin_dir.parent)})
    assert joined.returncode == 0, joined.stderr
    assert "joined the lab as host lab-joined (tags: x86); the broker answers" in joined.stdout
    assert stat.S_IMODE(env_file.stat().st_mode) == 0o600
    again = subprocess.run(join, capture_output=True, text=True, timeout=120,
                           env={**os.environ, "LATLAB_VENV": str(bin_dir.parent)})
    assert again.returncode != 0 and "the lab refused the code (409)" in again.stderr
    assert "was used at" in again.stderr

    assert f"wrote {tmp_path / 'units' / 'latlab-runner.service'}" in joined.stdout
    runner = JoinedRunner(tmp_path / "units" / "latlab-runner.service", build_cache)
    try:
        host = _online(api, "lab-joined")
        assert host["tags"] == ["x86"] and host["enrolled_at"] is not None
        created = api.post("/api/v1/jobs", json={"suite": "echo", "params": SMALL,
                                                 "repetitions": 1})
        assert created.status_code == 202, created.text
        job, _ = _finish(api, created.json()["id"])
        assert job["status"] == "succeeded" and job["host_name"] == "lab-joined", job
    finally:
        runner.stop()


def test_the_labs_own_tasks_run_only_from_the_labs_queue(committed_db, ingest_worker) -> None:
    """The queue runners write to carries their three tasks only: a retention task pushed
    there is refused by the ingest worker; the same task from the lab's queue runs."""
    from latlab_contract import LAB_QUEUE

    committed_db.add(AuditEvent(at=get_clock().now() - timedelta(days=3650), actor="old",
                                entity_type="user", entity_id=1, action="create"))
    committed_db.commit()

    def old_events() -> int:
        committed_db.expire_all()
        return committed_db.scalar(select(func.count()).select_from(AuditEvent)
                                   .where(AuditEvent.actor == "old"))

    get_sender().send_task("maintenance.prune_audit", queue=INGEST_QUEUE)
    # A heartbeat sent after it, once applied (refused: no such host), shows the task was
    # taken before it.
    get_sender().send_task(HOST_HEARTBEAT, queue=INGEST_QUEUE, kwargs={"message": {}})
    wait_for(lambda: committed_db.scalar(select(func.count()).select_from(AuditEvent)
                                         .where(AuditEvent.action == "refused")))
    assert old_events() == 1
    get_sender().send_task("maintenance.prune_audit", queue=LAB_QUEUE)
    wait_for(lambda: old_events() == 0)


def test_an_enrolled_hosts_tags_are_its_enrollments(db) -> None:
    """A runner announcing other tags does not widen the jobs it is sent; a host not enrolled
    (a CI submission's) keeps what it announces."""
    enrollment.reenroll(db, "lab-tagged", ["x86"])
    beat = Heartbeat(name="lab-tagged", tags=["x86", "hft-tuned"], fingerprint={}, suites=[])
    assert host_service.record_heartbeat(db, beat).tags == ["x86"]
    loose = Heartbeat(name="lab-loose", tags=["arm"], fingerprint={}, suites=[])
    assert host_service.record_heartbeat(db, loose).tags == ["arm"]
    assert host_service.record_heartbeat(db, loose.model_copy(update={"tags": ["arm", "big"]})
                                         ).tags == ["arm", "big"]
