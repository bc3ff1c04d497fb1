"""Fixtures for the zig-http suite's program tests: the suite built by the runner's own build
(cached across sessions), and its servers as processes."""

import json
import os
import signal
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from suite_support import build_cache_dir, build_suite
from zig_http_support import SUITE, suite_command

BUILD_TIME_S = 1800  # a cold Zig build (the standard library too) takes minutes on 2 cores


@pytest.fixture(scope="session")
def built() -> Path:
    return build_suite(SUITE, build_cache_dir(), BUILD_TIME_S)


class Server:
    """A running server: its process and the address it announced."""

    def __init__(self, argv: list[str]) -> None:
        self.process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        start_new_session=True)
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line, self.process.stderr.read() if self.process.stderr else ""
        self.announced = json.loads(line)
        host, port = self.announced["listening"].rsplit(":", 1)
        self.address = (host, int(port))

    def stop(self) -> int:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
        try:
            return self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
            raise


@pytest.fixture
def start_server(built: Path) -> Iterator[Callable[..., Server]]:
    servers: list[Server] = []

    def start(kind: str, *args: str, **params: object) -> Server:
        """`kind`: zig, zig-uninit, go, or zco (the suite's own command, at the `seed-zco`
        scenario's params updated by `params`)."""
        if kind == "zco":
            argv = zco_command(built, params)
        else:
            binary = {"zig": built / "zig-clean" / "bin" / "zig-server",
                      "zig-uninit": built / "zig-uninit" / "bin" / "zig-server",
                      "go": built / "go-server"}[kind]
            argv = [str(binary), "--listen", "127.0.0.1:0"]
        server = Server([*argv, *args])
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


def zco_command(built: Path, params: dict[str, object]) -> list[str]:
    """The suite's `server-zco` command as a job of the `seed-zco` scenario runs it."""
    return suite_command(built, "server-zco", "seed-zco", params)
