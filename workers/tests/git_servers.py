"""Real git servers for tests (workers/tests and backend/tests): `git daemon` serving
`git://`, smart HTTP (`git http-backend` run as CGI) behind Basic authentication, and a
repository with a history to serve."""

import base64
import hmac
import os
import socket
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import IO

HTTP_BACKEND = "/usr/lib/git-core/git-http-backend"
START_TIMEOUT_S = 10.0
CGI_TIMEOUT_S = 60.0


# git as a test runs it: no user or system configuration, a fixed author.
GIT_ENV = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_CONFIG_GLOBAL": os.devnull, "GIT_AUTHOR_NAME": "Lab Test",
           "GIT_AUTHOR_EMAIL": "lab@example.com", "GIT_COMMITTER_NAME": "Lab Test",
           "GIT_COMMITTER_EMAIL": "lab@example.com", "LC_ALL": "C"}


def git_repository(path: Path, history: list[dict[str, str]]) -> list[str]:
    """A repository at `path` (branch main) with one commit per element of `history` (the
    files it writes, by path and text); returns the commits' shas, oldest first."""
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=path, env=GIT_ENV, check=True,
                              capture_output=True, timeout=CGI_TIMEOUT_S).stdout.decode().strip()

    path.mkdir(parents=True, exist_ok=True)
    git("init", "-q", "-b", "main")
    shas = []
    for number, files in enumerate(history, 1):
        for name, text in files.items():
            (path / name).parent.mkdir(parents=True, exist_ok=True)
            (path / name).write_text(text)
        git("add", "--all")
        git("commit", "-q", "--allow-empty", "-m", f"commit {number}")
        shas.append(git("rev-parse", "HEAD"))
    return shas


@contextmanager
def git_daemon(base: Path) -> Iterator[str]:
    """`git daemon` exporting every repository under `base` on a free loopback port; yields
    the URL prefix ("git://127.0.0.1:PORT/") a repository's path under `base` follows."""
    port = _free_port()
    with tempfile.TemporaryFile() as log:
        daemon = subprocess.Popen(
            ["git", "daemon", "--export-all", "--reuseaddr", "--informative-errors",
             f"--base-path={base}", "--listen=127.0.0.1", f"--port={port}", str(base)],
            stdout=subprocess.DEVNULL, stderr=log, start_new_session=True)
        try:
            _wait_accepting(port, daemon, log)
            yield f"git://127.0.0.1:{port}/"
        finally:
            daemon.terminate()
            daemon.wait(timeout=10)


@contextmanager
def http_git(base: Path, user: str, password: str, *, protocol_v2: bool = True,
             on_request: Callable[[], None] = lambda: None) -> Iterator[str]:
    """Smart HTTP for every repository under `base`, answering only requests that carry
    Basic credentials `user`:`password` (401 otherwise); yields "http://127.0.0.1:PORT/".
    Without `protocol_v2` it speaks only protocol v0, as older servers do; `on_request` runs
    as each request arrives, while the client waits for the answer."""
    expected = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()

    class Handler(_GitHandler):
        project_root = base
        authorization = expected
        remote_user = user
        v2 = protocol_v2
        arrived = staticmethod(on_request)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


class _GitHandler(BaseHTTPRequestHandler):
    """Runs `git http-backend` for each authenticated request, as a web server runs CGI."""

    project_root: Path
    authorization: str
    remote_user: str
    v2: bool
    arrived: Callable[[], None]

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: a test's output is not the place for an access log."""

    def _serve(self) -> None:
        self.arrived()
        given = self.headers.get("Authorization", "")
        if not hmac.compare_digest(given.encode(), self.authorization.encode()):
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="git"')
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        path, _, query = self.path.partition("?")
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "GIT_PROJECT_ROOT": str(self.project_root), "GIT_HTTP_EXPORT_ALL": "1",
            "GATEWAY_INTERFACE": "CGI/1.1", "REQUEST_METHOD": self.command,
            "PATH_INFO": path, "QUERY_STRING": query, "REMOTE_USER": self.remote_user,
            "REMOTE_ADDR": self.client_address[0],
            "CONTENT_TYPE": self.headers.get("Content-Type", ""),
            "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null",
        }
        # The client's protocol version (v2) and a compressed request body reach the
        # backend as CGI's HTTP_* variables.
        for header in ["Content-Encoding", *(["Git-Protocol"] if self.v2 else [])]:
            if header in self.headers:
                env["HTTP_" + header.upper().replace("-", "_")] = self.headers[header]
        body = self._body()
        env["CONTENT_LENGTH"] = str(len(body))
        completed = subprocess.run([HTTP_BACKEND], input=body, env=env, capture_output=True,
                                   timeout=CGI_TIMEOUT_S, check=False)
        head, _, content = completed.stdout.partition(b"\r\n\r\n")
        if not _:
            self.send_error(500, completed.stderr.decode(errors="replace")[-500:])
            return
        headers = [line.split(":", 1) for line in head.decode("latin-1").split("\r\n")]
        status = next((value.strip() for name, value in headers if name.lower() == "status"),
                      "200 OK")
        code, _, reason = status.partition(" ")
        self.send_response(int(code), reason or None)
        for name, value in headers:
            if name.lower() not in ("status", "content-length"):
                self.send_header(name, value.strip())
        self.send_header("Content-Length", str(len(content)))
        self.end_headers()
        self.wfile.write(content)

    def _body(self) -> bytes:
        """The request's body, as sent whole or in chunks (git chunks a large request)."""
        if self.headers.get("Transfer-Encoding", "").lower() != "chunked":
            return self.rfile.read(int(self.headers.get("Content-Length") or 0))
        chunks = []
        while size := int(self.rfile.readline().split(b";")[0], 16):
            chunks.append(self.rfile.read(size))
            self.rfile.readline()
        self.rfile.readline()  # the line that ends the chunks
        return b"".join(chunks)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _wait_accepting(port: int, daemon: subprocess.Popen[bytes], log: IO[bytes]) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if daemon.poll() is not None:
            log.seek(0)
            raise RuntimeError(f"git daemon exited ({daemon.returncode}): "
                               f"{log.read().decode(errors='replace')}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    daemon.kill()
    raise RuntimeError(f"git daemon did not listen on port {port}")
