"""Several lab hosts on one machine: each runner in its own network namespace, reaching the
broker over a veth pair, is picked by its tags and stamps its runs with its own identity."""

import shutil
import subprocess
from collections.abc import Iterator

import pytest

from tests import netns
from tests.conftest import REDIS_URL
from tests.netns import needs_namespaces
from tests.test_jobs_e2e import SMALL, _finish, _online

pytestmark = needs_namespaces


@pytest.fixture
def namespaces() -> Iterator[dict[str, tuple[str, str]]]:
    """Two namespaces (`tests.netns`) whose runners reach the broker."""
    with netns.lab_hosts(2, REDIS_URL) as created:
        yield created


def test_jobs_go_to_the_host_with_the_tags(member, start_runner, namespaces) -> None:
    hosts = {}
    for namespace, tags in zip(namespaces, ("hft-tuned,x86", "cloud,x86"), strict=True):
        name = namespace.rsplit("-", 1)[0]
        start_runner(name, tags=tags, **netns.runner_options(namespace, namespaces, REDIS_URL))
        hosts[name] = namespaces[namespace][0]
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
