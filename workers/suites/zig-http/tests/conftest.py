"""Fixtures for the zig-http suite's program tests: the suite built by the runner's own build
(cached across sessions), and its servers as processes."""

import json
import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from http_order_support import build_cache_dir

from latlab_workers.runner import build
from latlab_workers.suites import SUITES_DIR, Suite, load_suite

SUITE: Suite = load_suite(SUITES_DIR / "zig-http")
BUILD_TIME_S = 1800  # a cold Zig build (the standard library too) takes minutes on 2 cores


@pytest.fixture(scope="session")
def built() -> Path:
    return build(SUITE, build_cache_dir(), time.monotonic() + BUILD_TIME_S)


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

    def start(kind: str, *args: str) -> Server:
        binary = {"zig": built / "zig-clean" / "bin" / "zig-server",
                  "zig-uninit": built / "zig-uninit" / "bin" / "zig-server",
                  "go": built / "go-server"}[kind]
        server = Server([str(binary), "--listen", "127.0.0.1:0", *args])
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


def exchange(address: tuple[str, int], request: bytes, responses: int = 1,
             timeout: float = 5) -> tuple[bytes, bool]:
    """Sends `request`, reads `responses` whole answers (Content-Length framed), and says
    whether the server then closed the connection (within a moment)."""
    with socket.create_connection(address, timeout=timeout) as connection:
        connection.sendall(request)
        reader = connection.makefile("rb")
        raw = b""
        for _ in range(responses):
            head = b""
            while not head.endswith(b"\r\n\r\n"):
                line = reader.readline()
                if not line:
                    return raw + head, True
                head += line
            length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                           if line.lower().startswith(b"content-length:")), 0)
            raw += head + reader.read(length)
        connection.settimeout(0.3)
        try:
            closed = reader.read(1) == b""
        except TimeoutError:
            closed = False
        return raw, closed
