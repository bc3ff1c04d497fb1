"""Several lab hosts on one machine: each runner in its own network namespace, reaching the
broker over a veth pair, is picked by its tags and stamps its runs with its own identity."""

import shutil
import subprocess
from collections.abc import Iterator

import pytest
import redis

from tests import netns
from tests.conftest import REDIS_URL
from tests.netns import needs_namespaces
from tests.test_jobs_e2e import SMALL, _finish, _online

pytestmark = needs_namespaces


@pytest.fixture
def namespaces() -> Iterator[dict[str, tuple[str, str]]]:
    """Two namespaces (`tests.netns`); the broker listens on the root side of each pair."""
    with netns.namespaces(2) as created:
        broker = redis.Redis.from_url(REDIS_URL)
        previous = broker.config_get("bind")["bind"]
        # Reachable only on loopback and the namespaces' private links; no password in tests.
        broker.config_set("bind", " ".join(["127.0.0.1", *(r for _, r in created.values())]))
        broker.config_set("protected-mode", "no")
        try:
            yield created
        finally:
            broker.config_set("protected-mode", "yes")
            broker.config_set("bind", previous)


def test_jobs_go_to_the_host_with_the_tags(member, start_runner, namespaces) -> None:
    port = REDIS_URL.rsplit(":", 1)[1].split("/")[0]
    hosts = {}
    for (namespace, (address, broker)), tags in zip(
            namespaces.items(), ("hft-tuned,x86", "cloud,x86"), strict=True):
        name = namespace.rsplit("-", 1)[0]
        start_runner(name, tags=tags, wrapper=netns.inside(namespace),
                     broker_url=f"redis://{broker}:{port}/0", address=address)
        hosts[name] = address
    for name, address in hosts.items():
        assert _online(member, name)["address"] == address

    tuned = member.post("/api/v1/jobs", json={"suite": "echo", "host_tags": ["hft-tuned"],
                                              "params": SMALL}).json()
    cloud = member.post("/api/v1/jobs", json={"suite": "echo", "host_tags": ["cloud"],
                                              "params": SMALL}).json()
    fanned = member.post("/api/v1/jobs", json={"suite": "echo", "host_tags": ["x86"],
                                               "all_matching": True, "params": SMALL}).json()
    assert len(fanned["job_ids"]) == 2
    expected = {tuned["id"]: "latlab-a", cloud["id"]: "latlab-b"}
    ran_on = {}
    for job_id in [tuned["id"], cloud["id"], *fanned["job_ids"]]:
        job, _ = _finish(member, job_id)
        assert job["status"] == "succeeded", job
        run = member.get(f"/api/v1/runs/{job['run_id']}").json()
        host = next(h for h in member.get("/api/v1/hosts").json() if h["name"] == run["host_name"])
        assert run["host_name"] == job["host_name"]
        assert run["host_tags"] == host["tags"]
        assert run["host_fingerprint"] == host["fingerprint"]
        ran_on[job_id] = job["host_name"]
    assert {k: ran_on[k] for k in expected} == expected
    assert {ran_on[j] for j in fanned["job_ids"]} == {"latlab-a", "latlab-b"}


def test_a_namespace_reaches_the_broker_over_its_veth(namespaces) -> None:
    namespace, (_, broker) = next(iter(namespaces.items()))
    port = REDIS_URL.rsplit(":", 1)[1].split("/")[0]
    probe = subprocess.run(
        [*netns.inside(namespace), shutil.which("redis-cli") or "redis-cli", "-h",
         broker, "-p", port, "ping"], capture_output=True, text=True, timeout=10, check=False)
    assert probe.stdout.strip() == "PONG"
