"""Lab hosts on this one machine: network namespaces, each joined to this one by a veth pair,
so that a runner in one reaches the lab over a link of its own, as another machine would."""

import contextlib
import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator

import pytest

needs_namespaces = pytest.mark.skipif(os.geteuid() != 0 or shutil.which("ip") is None,
                                      reason="network namespaces need root and iproute2")


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True)


@contextlib.contextmanager
def namespaces(count: int, subnet: int = 231) -> Iterator[dict[str, tuple[str, str]]]:
    """`count` namespaces named latlab-a-..., latlab-b-...; yields {namespace: (its address,
    this machine's address on its link)}, on 10.`subnet`.<n>.0/24."""
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


def inside(namespace: str) -> list[str]:
    """The prefix of a command run in `namespace`."""
    return ["ip", "netns", "exec", namespace]
