"""Lab hosts on this one machine: network namespaces, each joined to this one by a veth pair,
so that a runner in one reaches the lab over a link of its own, as another machine would."""

import contextlib
import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator

import pytest
import redis

needs_namespaces = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("ip") is None,
                                      reason="network namespaces need root and iproute2")


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True)


@contextlib.contextmanager
def namespaces(count: int, subnet: int = 231) -> Iterator[dict[str, tuple[str, str]]]:
    """`count` namespaces named latlab-a-..., latlab-b-...; yields {namespace: (its address,
    this machine's address on its link)}, on 10.`subnet`.<n>.0/24. Namespaces a killed test
    run left on that subnet go first: a test file has a subnet of its own and runs once at a
    time, so whoever holds it now is gone."""
    _remove_left_over(subnet)
    suffix = uuid.uuid4().hex[:4]
    created: dict[str, tuple[str, str]] = {}
    try:
        for index, letter in enumerate("abcdefgh"[:count], start=1):
            namespace, outer, inner = f"latlab-{letter}-{suffix}", f"ll{letter}o{suffix}", \
                f"ll{letter}i{suffix}"
            root_address, host_address = f"10.{subnet}.{index}.1", f"10.{subnet}.{index}.2"
            _ip("netns", "add", namespace)
            created[namespace] = (host_address, root_address)
            _ip("link", "add", outer, "type", "veth", "peer", "name", inner)
            _ip("link", "set", inner, "netns", namespace)
            _ip("addr", "add", f"{root_address}/24", "dev", outer)
            _ip("link", "set", outer, "up")
            _ip("-n", namespace, "addr", "add", f"{host_address}/24", "dev", inner)
            _ip("-n", namespace, "link", "set", inner, "up")
            _ip("-n", namespace, "link", "set", "lo", "up")
        yield created
    finally:
        for namespace in created:
            subprocess.run(["ip", "netns", "del", namespace], check=False)


def _remove_left_over(subnet: int) -> None:
    links = subprocess.run(["ip", "-o", "-4", "addr", "show"], check=True, capture_output=True,
                           text=True).stdout.splitlines()
    for line in links:
        name, address = line.split()[1].split("@")[0], line.split()[3]
        if address.startswith(f"10.{subnet}.") and name.startswith("ll") and name[3] == "o":
            subprocess.run(["ip", "netns", "del", f"latlab-{name[2]}-{name[4:]}"], check=False,
                           capture_output=True)
            subprocess.run(["ip", "link", "del", name], check=False, capture_output=True)


@contextlib.contextmanager
def lab_hosts(count: int, redis_url: str, subnet: int = 231) -> \
        Iterator[dict[str, tuple[str, str]]]:
    """`namespaces(count, subnet)` whose runners reach the lab's broker (`redis_url`, on this
    machine's loopback) over their links: it listens on the root side of each pair too while
    they exist. Yields as `namespaces` does."""
    with namespaces(count, subnet) as created:
        broker = redis.Redis.from_url(redis_url)
        previous = broker.config_get("bind")["bind"]
        # Reachable only on loopback and the namespaces' private links; no password in tests.
        broker.config_set("bind", " ".join(["127.0.0.1", *(r for _, r in created.values())]))
        broker.config_set("protected-mode", "no")
        try:
            yield created
        finally:
            broker.config_set("protected-mode", "yes")
            broker.config_set("bind", previous)


def runner_options(namespace: str, created: dict[str, tuple[str, str]],
                   redis_url: str) -> dict[str, object]:
    """`start_runner`'s options for a runner in `namespace`: run inside it, reach the broker
    over its link, announce its own address."""
    address, broker = created[namespace]
    port = redis_url.rsplit(":", 1)[1].split("/")[0]
    return {"wrapper": inside(namespace), "broker_url": f"redis://{broker}:{port}/0",
            "address": address}


def inside(namespace: str) -> list[str]:
    """The prefix of a command run in `namespace`."""
    return ["ip", "netns", "exec", namespace]
