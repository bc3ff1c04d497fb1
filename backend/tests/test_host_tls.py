"""A host on another link joins a lab whose broker is reachable beyond loopback, as `make up`
runs it with `LATLAB_BROKER_ADDRESS`: the broker there speaks TLS only (the lab's own CA, a
certificate for every client), the host joins with `latlab-runner join` from its network
namespace and runs jobs as its own broker user; a plain connection from it is refused, and a
revoked host is cut off within seconds while its job runs again elsewhere."""

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import redis

import latlab_stack as localstack
from latlab_contract.broker import tls_options
from latlab_stack.services import broker_tls
from tests import netns
from tests.conftest import wait_for
from tests.netns import needs_namespaces
from tests.supervised import SupervisedLab, supervised_lab
from tests.test_host_trust import JoinedRunner
from tests.test_jobs_e2e import _online

pytestmark = needs_namespaces
HOST, JOINED = "tls-lab", "tls-host"
LONG = {"count": 10_000_000, "duration_s": 8}


@dataclass
class Remote:
    lab: SupervisedLab
    namespace: str  # the host's
    env_file: Path  # its settings, as `latlab-runner join` writes them
    runners: list[JoinedRunner] = field(default_factory=list)


@pytest.fixture(scope="module")
def remote(build_cache, tmp_path_factory) -> Iterator[Remote]:
    """The lab, its api and broker on this machine's side of a namespace's link."""
    with netns.namespaces(1, subnet=232) as created:
        namespace, (_, address) = next(iter(created.items()))
        with supervised_lab(build_cache, HOST, address=address, LATLAB_BROKER_ADDRESS=address,
                            LATLAB_HOST_TAGS="local,shared") as lab:
            remote = Remote(lab, namespace, tmp_path_factory.mktemp("tls-host") / "runner.env")
            try:
                yield remote
            finally:
                for runner in remote.runners:
                    runner.stop()


def _broker(lab: SupervisedLab) -> redis.Redis:
    """The broker, as the lab's own processes reach it."""
    files = broker_tls(lab.data / "redis", lab.env["LATLAB_BROKER_ADDRESS"])
    return redis.Redis.from_url(
        localstack.lab_redis_url(lab.data / "redis", int(lab.env["LATLAB_REDIS_PORT"]),
                                 secure=True),
        **tls_options(files["LATLAB_BROKER_CA"], files["LATLAB_BROKER_CERT"],
                      files["LATLAB_BROKER_KEY"]) or {})


def _connected(lab: SupervisedLab, user: str) -> int:
    return sum(c["user"] == user for c in _broker(lab).client_list())


def test_a_host_joins_over_tls_from_another_link_and_runs_a_job(remote, build_cache) -> None:
    lab, namespace, env_file = remote.lab, remote.namespace, remote.env_file
    invited = lab.api.post("/api/v1/hosts/invitations", json={
        "name": JOINED, "tags": ["remote", "shared"]})
    assert invited.status_code == 201, invited.text
    joined = subprocess.run(
        [*netns.inside(namespace), str(Path(sys.executable).parent / "latlab-runner"),
         "join", *invited.json()["command"].split()[1:], "--env-file", str(env_file),
         "--service", "--unit-dir", str(env_file.parent)],
        capture_output=True, text=True, timeout=60, check=False)
    assert joined.returncode == 0, joined.stderr
    written = dict(line.split("=", 1) for line in env_file.read_text().splitlines())
    broker_address = lab.env["LATLAB_BROKER_ADDRESS"]
    assert written["LATLAB_REDIS_URL"].startswith(f"rediss://host-{JOINED}:")
    assert f"@{broker_address}:" in written["LATLAB_REDIS_URL"]
    for setting in ("LATLAB_BROKER_CA", "LATLAB_BROKER_CERT", "LATLAB_BROKER_KEY"):
        assert oct(Path(written[setting]).stat().st_mode & 0o777) == "0o600"

    # Nothing but TLS answers on the broker's port from the host's link: a plain client's
    # PING meets a TLS server, which closes the connection without a word of Redis.
    probe = subprocess.run(
        [*netns.inside(namespace), sys.executable, "-c", PLAIN_PING, broker_address,
         lab.env["LATLAB_REDIS_PORT"]], capture_output=True, text=True, timeout=30, check=False)
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.strip() == "no answer", probe.stdout

    runner = JoinedRunner(env_file.parent / "latlab-runner.service", build_cache,
                          wrapper=netns.inside(namespace))
    remote.runners.append(runner)
    assert _online(lab.api, JOINED)["tags"] == ["remote", "shared"]
    assert _connected(lab, f"host-{JOINED}") > 0
    job = lab.api.post("/api/v1/jobs", json={"suite": "echo", "host_tags": ["remote"],
                                             "params": {"count": 2000}, "repetitions": 1})
    assert job.status_code == 202, job.text
    finished = lab.finish(job.json()["id"])
    assert finished["status"] == "succeeded" and finished["host_name"] == JOINED, finished


# A plain Redis client in a few lines: PING, and what comes back.
PLAIN_PING = """
import socket, sys
with socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=5) as s:
    s.sendall(b"PING\\r\\n")
    try:
        answer = s.recv(64)
    except OSError:
        answer = b""
print(answer.decode(errors="replace") or "no answer")
"""


# Run in the joined host's namespace with nothing but its settings: what its credentials can
# and cannot do. Prints {attempt: "allowed" | "refused"}.
FORGER = """
import json, sys
import redis
from celery import Celery
from latlab_contract import HOST_HEARTBEAT, INGEST_QUEUE, JOB_OUTCOME, Heartbeat, JobOutcome
from latlab_contract.signing import seal
from latlab_workers.settings import get_settings
from tests.factories import result

settings, job_id, other = get_settings(), int(sys.argv[1]), sys.argv[2]
me = settings.host_name
broker = redis.Redis.from_url(settings.redis_url, **settings.broker_tls)
seen = {}
for name, attempt in (("the lab's queue", lambda: broker.lpush("lab", "a retention task")),
                      ("the other host's queue", lambda: broker.rpop("host." + other)),
                      ("the runners' results", lambda: broker.rpop("ingest"))):
    try:
        attempt()
        seen[name] = "allowed"
    except redis.exceptions.NoPermissionError:
        seen[name] = "refused"
sender = Celery(broker=settings.redis_url)
sender.conf.update(broker_use_ssl=settings.broker_tls, broker_connection_retry=False)
outcome = JobOutcome(job_id=job_id, attempt=1, result=result(source={"kind": "job"}, host=me))
beat = Heartbeat(name=other, tags=["stolen"], fingerprint={}, suites=[])
for task, body in ((JOB_OUTCOME, outcome), (HOST_HEARTBEAT, beat)):
    sender.send_task(task, queue=INGEST_QUEUE, retry=False, kwargs={
        "message": seal(settings.host_key, task, me, body.model_dump(mode="json"))})
print(json.dumps(seen))
"""


def test_a_joined_hosts_credentials_forge_nothing_and_reach_nothing_else(remote) -> None:
    """(a) an outcome for the other host's job and (b) a heartbeat in its name, sent from the
    joined host's namespace with its own key and broker user: refused, audited, the job
    unaffected; (c) the lab's queue, the other host's queue and the runners' results:
    refused by Redis."""
    lab = remote.lab
    job = lab.api.post("/api/v1/jobs", json={"suite": "echo", "host_tags": ["local"],
                                             "params": LONG, "repetitions": 1}).json()
    wait_for(lambda: lab.api.get(f"/api/v1/jobs/{job['id']}").json()["status"] == "running",
             timeout=120)
    env = {k: v for k, v in os.environ.items() if not k.startswith("LATLAB_")}
    forged = subprocess.run(
        [*netns.inside(remote.namespace), sys.executable, "-c", FORGER, str(job["id"]), HOST],
        env={**env, "LATLAB_RUNNER_ENV": str(remote.env_file)}, cwd=Path(__file__).parents[1],
        capture_output=True, text=True, timeout=60, check=False)
    assert forged.returncode == 0, forged.stderr
    assert json.loads(forged.stdout) == {"the lab's queue": "refused",
                                         "the other host's queue": "refused",
                                         "the runners' results": "refused"}

    def refusals() -> list[str]:
        events = lab.api.get("/api/v1/audit", params={"action": "refused"}).json()["items"]
        return sorted(e["after"]["reason"] for e in events)

    wait_for(lambda: len(refusals()) == 2, timeout=30)
    assert refusals() == [f"a heartbeat of host {JOINED} announces '{HOST}'",
                          f"job {job['id']}'s attempt 1 was not dispatched to host {JOINED}"]
    finished = lab.finish(job["id"])
    assert finished["status"] == "succeeded" and finished["host_name"] == HOST, finished
    run = lab.api.get(f"/api/v1/runs/{finished['run_id']}").json()
    assert run["host_name"] == HOST
    assert _online(lab.api, HOST)["tags"] == ["local", "shared"]


def test_a_revoked_host_is_cut_off_within_seconds_and_its_job_runs_elsewhere(remote) -> None:
    lab = remote.lab
    assert remote.runners, "the host joined in the test before"
    # This machine's runner busy, a job both hosts could run goes to the joined one.
    busy = lab.api.post("/api/v1/jobs", json={"suite": "echo", "host_tags": ["local"],
                                              "params": LONG, "repetitions": 1}).json()
    wait_for(lambda: lab.api.get(f"/api/v1/jobs/{busy['id']}").json()["status"]
             == "running", timeout=120)
    shared = lab.api.post("/api/v1/jobs", json={
        "suite": "echo", "host_tags": ["shared"], "params": LONG, "repetitions": 1}).json()
    job = wait_for(lambda: (j := lab.api.get(f"/api/v1/jobs/{shared['id']}").json())[
        "status"] == "running" and j, timeout=120)
    assert job["host_name"] == JOINED, job
    host = _online(lab.api, JOINED)

    revoked = lab.api.post(f"/api/v1/hosts/{host['id']}/revoke")
    assert revoked.status_code == 200, revoked.text
    wait_for(lambda: _connected(lab, f"host-{JOINED}") == 0, timeout=10)
    finished = lab.finish(shared["id"])
    assert finished["status"] == "succeeded" and finished["host_name"] == HOST, finished
    assert finished["attempts"] == 2, finished
    assert lab.finish(busy["id"])["status"] == "succeeded"


def test_a_plain_ping_gets_an_answer_from_a_plain_redis(tmp_path) -> None:
    """The probe above can see a Redis: a plain one answers it."""
    service = localstack.start_redis(tmp_path, localstack.free_port(), durable=False)
    try:
        port = service.url.rsplit(":", 1)[1].split("/")[0]
        probe = subprocess.run([sys.executable, "-c", PLAIN_PING, "127.0.0.1", port],
                               capture_output=True, text=True, timeout=30, check=True)
        assert probe.stdout.strip() == "+PONG"
    finally:
        service.stop()
