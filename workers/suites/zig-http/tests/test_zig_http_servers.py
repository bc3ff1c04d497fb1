"""The servers: the same bytes for the same requests, keep-alive as ab -k expects it, and the
Zig server's robustness in both its designs, epoll (zig) and the seed's ZCO (zco: io_uring,
8 KB stacks, time slices, batches): 1,000 connections, malformed, huge and slow requests, and
a clean stop with connections open."""

import json
import re
import resource
import selectors
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from zig_http_support import SUITE, exchange

from latlab_contract.parsers import ParseContext, get_parser

HELLO = b"Hello, World!\n"
OK = (b"HTTP/1.1 200 OK\r\nContent-Length: 14\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n"
      + HELLO)
REQUESTS = [
    # (request, answers expected, the server closes after them)
    (b"GET / HTTP/1.0\r\nHost: a\r\n\r\n", 1, True),
    (b"GET / HTTP/1.0\r\nHost: a\r\nConnection: Keep-Alive\r\n\r\n", 1, False),
    (b"GET / HTTP/1.1\r\nHost: a\r\n\r\n", 1, False),
    (b"GET /?q=1 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", 1, True),
    (b"GET /nope HTTP/1.1\r\nHost: a\r\n\r\n", 1, False),
    (b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhello", 1, False),
    (b"GET /stats HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n", 1, True),
    # Pipelined: two requests in one write, answered in order.
    (b"GET / HTTP/1.1\r\nHost: a\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
     2, True),
]


def test_every_server_answers_every_request_with_the_same_bytes(start_server) -> None:
    zig, zco, go = start_server("zig"), start_server("zco"), start_server("go")
    for request, answers, closes in REQUESTS:
        from_zig = exchange(zig.address, request, answers)
        # /stats' counters differ between the servers; its bytes otherwise do not.
        for other in (go, zco):
            assert _counters_masked(exchange(other.address, request, answers)) == \
                _counters_masked(from_zig), (request, other.announced)
        assert from_zig[1] is closes, request
    assert exchange(zig.address, REQUESTS[2][0]) == (OK, False)


def _counters_masked(answer: tuple[bytes, bool]) -> tuple[bytes, bool]:
    return re.sub(rb":\d+", b":N", answer[0]), answer[1]


@pytest.mark.parametrize("kind", ["zig", "zco", "go"])
def test_ab_keep_alive_is_answered(start_server, kind: str) -> None:
    """ab -k speaks HTTP/1.0 with Connection: Keep-Alive and waits for the server to say
    keep-alive back (the Zig std server's pitfall): every request must reuse its connection."""
    server = start_server(kind)
    host, port = server.address
    ab = subprocess.run(["ab", "-q", "-k", "-s", "5", "-c", "10", "-n", "2000",
                         f"http://{host}:{port}/"], capture_output=True, text=True, timeout=60,
                        check=False)
    assert ab.returncode == 0, ab.stderr
    trial = get_parser("ab")(ab.stdout, ParseContext()).series[0].trials[0]
    assert trial.metrics["requests"] == 2000 and trial.metrics["errors"] == 0
    assert trial.metrics["keepalive_requests"] == 2000


@pytest.mark.parametrize("kind", ["zig", "zco"])
def test_zig_survives_1000_connections_and_bad_requests(start_server, kind: str) -> None:
    server = start_server(kind, "--header-timeout-ms", "1000")
    idle = _open_and_use(server.address, 1000)
    try:
        # No CRLF: bare line feeds are refused at once.
        raw, closed = exchange(server.address, b"GET / HTTP/1.1\nHost: a\n\n")
        assert raw.startswith(b"HTTP/1.1 400 ") and closed
        # A 1 MB header: 431 after the first 8 KB, the rest read and dropped, then closed.
        raw, closed = _send_in_background(
            server.address, b"GET / HTTP/1.1\r\nHost: a\r\nX-Big: " + b"a" * (1 << 20) +
            b"\r\n\r\n")
        assert raw.startswith(b"HTTP/1.1 431 ") and closed
        # A slow sender, one byte every 100 ms for up to 5 s: cut off by the 1 s header
        # timeout with a 408.
        raw, closed = _send_in_background(
            server.address, b"GET / HTTP/1.1\r\nHost: a\r\nX-Slow: " + b"s" * 50, pause=0.1)
        assert raw.startswith(b"HTTP/1.1 408 ") and closed
        # A request line with no line end at all, then silence: a 408 too.
        raw, closed = exchange(server.address, b"GET / HTTP/1.1", timeout=10)
        assert raw.startswith(b"HTTP/1.1 408 ") and closed
        # And it goes on answering, with the 1,000 still open.
        raw, _ = exchange(server.address, b"GET /stats HTTP/1.1\r\nHost: a\r\n\r\n")
        open_now = int(re.search(rb'"open_connections":(\d+)', raw).group(1))
        assert raw.startswith(b"HTTP/1.1 200 ") and open_now >= 1000
        assert _answers(idle) == len(idle)  # the idle ones still work too
    finally:
        for connection in idle:
            connection.close()
    assert server.process.poll() is None
    assert server.stop() == 0


@pytest.mark.parametrize("kind", ["zig", "zco"])
def test_sigterm_closes_open_connections_and_exits_cleanly(start_server, kind: str) -> None:
    """Kept-alive connections, and some in the middle of a request, when SIGTERM comes: each
    is closed, the server exits 0 and prints its counters."""
    server = start_server(kind)
    idle = _open_and_use(server.address, 200)
    for connection in idle[:50]:
        connection.sendall(b"GET / HTTP/1.1\r\nHost: a\r\n")  # a head without its end
    assert server.stop() == 0
    for connection in idle:
        assert connection.recv(1) == b""  # closed by the server (bounded by the 10 s timeout)
        connection.close()
    counters = _counters(server)
    assert counters["requests"] == counters["connections"] == 200
    assert counters["switches"] >= 200


def test_zco_time_slices_make_tasks_yield_and_every_request_is_answered(
        built: Path, start_server) -> None:
    """1 ms slices while hdr-load keeps 50 connections busy: some slices end while a
    coroutine runs, and it yields at its next I/O call without losing a request."""
    server = start_server("zco", zco_preempt_ms=1)
    host, port = server.address
    load = subprocess.run([str(built / "hdr-load"), "--url", f"http://{host}:{port}/",
                           "--connections", "50", "--requests", "50000", "--warmup", "0",
                           "--duration", "60"], capture_output=True, text=True, timeout=120,
                          check=False)
    assert load.returncode == 0, load.stderr
    assert json.loads(load.stdout)["metrics"]["ok"] == 50000
    assert server.stop() == 0
    counters = _counters(server)
    assert counters["requests"] >= 50000 and counters["preemptions"] > 0
    assert "io uring, 8 KB stacks, batch 32, time slice 1 ms" in counters["line"]


def test_zco_at_its_connection_cap_leaves_the_next_in_the_backlog(start_server) -> None:
    """The seed's cap (here 2, its 10,000 scaled down): a third connection is accepted by the
    kernel but not served until one of the two closes; then it is answered."""
    server = start_server("zco", zco_max_conns=2)
    first, second = _open_and_use(server.address, 2)
    third = socket.create_connection(server.address, timeout=10)
    third.sendall(b"GET / HTTP/1.1\r\nHost: a\r\n\r\n")
    third.settimeout(0.5)
    with pytest.raises(TimeoutError):
        third.recv(1)
    first.close()
    third.settimeout(10)
    received = b""  # the answer arrives once one of the two has closed
    while len(received) < len(OK):
        chunk = third.recv(len(OK) - len(received))
        assert chunk, received
        received += chunk
    assert received == OK
    second.close()
    third.close()
    assert server.stop() == 0
    assert "priority queue, at most 2 connections" in _counters(server)["line"]


@pytest.mark.parametrize("flags, refusal", [
    (["--queue", "lifo"], "QueueIsFifoOrPriority"),
    (["--io", "kqueue"], "IoIsEpollOrUring"),
    (["--stack-kb", "4"], "StackKbOutOfRange"),
    (["--batch", "-1"], "Overflow"),
    # Two values for one flag: the second would silently win.
    (["--io", "uring", "--stack-kb", "8", "--io", "epoll"], "FlagGivenTwice"),
    (["--preempt-ms"], "MissingValue"),
])
def test_bad_flags_are_refused(built: Path, flags: list[str], refusal: str) -> None:
    server = subprocess.run([str(built / "zig-clean" / "bin" / "zig-server"), *flags],
                            capture_output=True, text=True, timeout=30, check=False)
    assert server.returncode == 2 and server.stdout == ""
    assert refusal in server.stderr and "usage:" in server.stderr


def _counters(server) -> dict:  # type: ignore[no-untyped-def]
    """The counters the Zig server prints to stderr when it stops."""
    assert server.process.stderr is not None
    line = server.process.stderr.read().decode().strip().splitlines()[-1]
    found = re.search(r"(\d+) requests on (\d+) connections; (\d+) task switches, "
                      r"(\d+) preemptions", line)
    assert found, line
    names = ("requests", "connections", "switches", "preemptions")
    return {"line": line, **dict(zip(names, map(int, found.groups()), strict=True))}


def _open_and_use(address: tuple[str, int], count: int) -> list[socket.socket]:
    """`count` connections open at once, each answered once."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))  # the usual 1024 is too few
    connections = [socket.create_connection(address, timeout=10) for _ in range(count)]
    assert _answers(connections) == count
    return connections


def _answers(connections: list[socket.socket]) -> int:
    """Sends GET / on every connection at once and counts whole 200 answers."""
    request = b"GET / HTTP/1.1\r\nHost: a\r\n\r\n"
    selector = selectors.DefaultSelector()
    received: dict[socket.socket, bytes] = {}
    for connection in connections:
        connection.sendall(request)
        connection.setblocking(False)
        selector.register(connection, selectors.EVENT_READ)
        received[connection] = b""
    deadline = time.monotonic() + 30
    pending = len(connections)
    while pending and time.monotonic() < deadline:
        for key, _ in selector.select(timeout=1):
            connection = key.fileobj
            chunk = connection.recv(4096)
            received[connection] += chunk
            if not chunk or len(received[connection]) >= len(OK):
                selector.unregister(connection)
                pending -= 1
    selector.close()
    for connection in connections:
        connection.setblocking(True)
    return sum(data == OK for data in received.values())


def _send_in_background(address: tuple[str, int], data: bytes,
                        pause: float = 0.0) -> tuple[bytes, bool]:
    """Sends `data` from a thread (in one write, or a byte at a time with `pause` between)
    while reading the answer until the server closes; the read is bounded by 10 s."""
    connection = socket.create_connection(address, timeout=10)

    def send() -> None:
        try:
            if pause == 0:
                connection.sendall(data)
                return
            for byte in data:
                connection.sendall(bytes([byte]))
                time.sleep(pause)
        except OSError:
            pass  # the server closed: the point of the test

    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    raw = b""
    try:
        while chunk := connection.recv(65536):
            raw += chunk
        closed = True
    except (ConnectionResetError, TimeoutError):
        closed = False
    finally:
        sender.join(timeout=10)
        connection.close()
    return raw, closed


def test_the_zig_parser_tests_pass(built: Path) -> None:
    build_file = SUITE.directory / "server-zig" / "build.zig"
    zig = subprocess.run([sys.executable, "-m", "ziglang", "build", "test", "--build-file",
                          str(build_file), "--cache-dir", str(built / "zig-cache")],
                         capture_output=True, text=True, timeout=900, check=False)
    assert zig.returncode == 0, zig.stderr[-3000:]
