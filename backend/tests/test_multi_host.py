"""Several lab hosts on one machine: each runner in its own network namespace, reaching the
broker over a veth pair, is picked by its tags and stamps its runs with its own identity."""

import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator

import pytest
import redis

from tests.conftest import REDIS_URL
from tests.test_jobs_e2e import SMALL, _finish, _online

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("ip") is None,
                                reason="network namespaces need root and iproute2")


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True)


@pytest.fixture
def namespaces() -> Iterator[dict[str, tuple[str, str]]]:
    """Two namespaces, each joined to this one by a veth pair; the broker listens on the
    root side of each pair. Yields {namespace: (its address, the broker's address)}."""
    suffix = uuid.uuid4().hex[:4]
    created: dict[str, tuple[str, str]] = {}
    try:
        for index, letter in enumerate("ab", start=1):
            namespace, outer, inner = f"latlab-{letter}-{suffix}", f"ll{letter}o{suffix}", \
                f"ll{letter}i{suffix}"
            root_address, host_address = f"10.231.{index}.1", f"10.231.{index}.2"
            _ip("netns", "add", namespace)
            created[namespace] = (host_address, root_address)
            _ip("link", "add", outer, "type", "veth", "peer", "name", inner)
            _ip("link", "set", inner, "netns", namespace)
            _ip("addr", "add", f"{root_address}/24", "dev", outer)
            _ip("link", "set", outer, "up")
            _ip("-n", namespace, "addr", "add", f"{host_address}/24", "dev", inner)
            _ip("-n", namespace, "link", "set", inner, "up")
            _ip("-n", namespace, "link", "set", "lo", "up")
        broker = redis.Redis.from_url(REDIS_URL)
        previous = broker.config_get("bind")["bind"]
        # Reachable only on loopback and the namespaces' private links; no password in tests.
        broker.config_set("bind", " ".join(["127.0.0.1", *(r for _, r in created.values())]))
        broker.config_set("protected-mode", "no")
        yield created
        broker.config_set("protected-mode", "yes")
        broker.config_set("bind", previous)
    finally:
        for namespace in created:
            subprocess.run(["ip", "netns", "del", namespace], check=False)


def test_jobs_go_to_the_host_with_the_tags(member, start_runner, namespaces) -> None:
    port = REDIS_URL.rsplit(":", 1)[1].split("/")[0]
    hosts = {}
    for (namespace, (address, broker)), tags in zip(
            namespaces.items(), ("hft-tuned,x86", "cloud,x86"), strict=True):
        name = namespace.rsplit("-", 1)[0]
        start_runner(name, tags=tags, wrapper=["ip", "netns", "exec", namespace],
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
        ["ip", "netns", "exec", namespace, shutil.which("redis-cli") or "redis-cli", "-h",
         broker, "-p", port, "ping"], capture_output=True, text=True, timeout=10, check=False)
    assert probe.stdout.strip() == "PONG"
