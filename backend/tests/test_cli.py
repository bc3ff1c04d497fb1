"""`latlab submit` against a live api, as CI would run it."""

import json
import socket
import struct
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest
from sqlalchemy import func, select

from latlab.models import Run, Scope
from tests.factories import Actors, edited, result

GOLDEN_PPROF = (Path(__file__).resolve().parents[2] / "workers" / "tests" / "golden" / "pprof"
                / "cpu.pprof")


def _submit(live_server: str, token: str, path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "latlab_cli", "submit", str(path), "--url", live_server, *extra],
        env={"LATLAB_TOKEN": token, "PATH": "/usr/bin:/bin"}, capture_output=True, text=True,
        timeout=120, check=False,
    )


def test_submit_prints_the_run_url_and_retries_store_once(committed_db, live_server,
                                                          tmp_path) -> None:
    token = Actors(committed_db).token(Scope.runs_write)["Authorization"].split()[1]
    committed_db.commit()
    path = tmp_path / "result.json"
    path.write_text(json.dumps(result()))
    first = _submit(live_server, token, path)
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith(f"{live_server}/runs/")
    again = _submit(live_server, token, path)
    assert again.stdout == first.stdout
    # The repeat is said to be one (the same document: the same idempotency key).
    run_id = first.stdout.strip().rsplit("/", 1)[1]
    assert "replayed" not in first.stderr
    assert f"replayed: the lab already had this submission, run {run_id};" in again.stderr


class ResettingProxy:
    """A TCP proxy to `upstream` that cuts its first connection with a reset (RST) once the
    upstream has begun to answer it: the request was served, the client never gets the
    answer. Later connections pass through."""

    def __init__(self, upstream: str) -> None:
        self.upstream = (urlsplit(upstream).hostname, urlsplit(upstream).port)
        self.server = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.server.getsockname()[1]}"
        self.connections = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:  # closed
                return
            self.connections += 1
            threading.Thread(target=self._relay, args=(client, self.connections == 1),
                             daemon=True).start()

    def _relay(self, client: socket.socket, cut: bool) -> None:
        upstream = socket.create_connection(self.upstream)  # type: ignore[arg-type]
        threading.Thread(target=_pump, args=(client, upstream), daemon=True).start()
        if cut:
            upstream.recv(1)  # the answer begins: the request was served
            client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            # Wakes the pump's read, which then closes both; the last close sends the RST.
            client.shutdown(socket.SHUT_RD)
        else:
            _pump(upstream, client)

    def close(self) -> None:
        self.server.close()


def _pump(source: socket.socket, target: socket.socket) -> None:
    try:
        while data := source.recv(65536):
            target.sendall(data)
    except OSError:
        pass
    for end in (source, target):
        end.close()


def test_a_submission_whose_answer_was_cut_by_a_reset_is_sent_again_and_stored_once(
        committed_db, live_server, tmp_path) -> None:
    """The lab stores the run, then the connection is reset before its answer reaches
    `latlab submit`: it sends the submission again with the same `Idempotency-Key`, gets that
    run, and exits 0; one run is stored. Before, it gave up: "cannot reach"."""
    token = Actors(committed_db).token(Scope.runs_write)["Authorization"].split()[1]
    committed_db.commit()
    path = tmp_path / "result.json"
    path.write_text(json.dumps(result()))
    proxy = ResettingProxy(live_server)
    try:
        submitted = _submit(proxy.url, token, path)
    finally:
        proxy.close()
    assert submitted.returncode == 0, submitted.stderr
    assert proxy.connections == 2 and submitted.stdout.startswith(f"{live_server}/runs/")
    assert committed_db.scalar(select(func.count()).select_from(Run)) == 1


class BusyFront:
    """An HTTP front to `upstream` that answers the first request `status` with
    `Retry-After: <seconds>`, as a busy or throttling lab would, and forwards the rest; it
    keeps each request's arrival (monotonic time), method, path and `Idempotency-Key`."""

    def __init__(self, upstream: str, status: int, retry_after: int) -> None:
        self.requests: list[tuple[float, str, str, str | None]] = []
        front = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self._answer()

            def do_GET(self) -> None:
                self._answer()

            def _answer(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                front.requests.append((time.monotonic(), self.command, self.path,
                                       self.headers.get("Idempotency-Key")))
                if len(front.requests) == 1:
                    self._send(status, {"Retry-After": str(retry_after),
                                        "Content-Type": "application/json"},
                               json.dumps({"detail": "busy, try again"}).encode())
                    return
                forwarded = {k: v for k, v in self.headers.items() if k.lower() not in (
                    "host", "content-length", "connection", "accept-encoding")}
                answer = httpx.request(self.command, upstream + self.path, headers=forwarded,
                                       content=body, timeout=60)
                self._send(answer.status_code, {k: v for k, v in answer.headers.items()
                                                if k.lower() not in _HOP_BY_HOP},
                           answer.content)

            def _send(self, code: int, headers: dict[str, str], body: bytes) -> None:
                self.send_response(code)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


_HOP_BY_HOP = ("content-length", "content-encoding", "transfer-encoding", "connection",
               "keep-alive", "date", "server")


@pytest.mark.parametrize(("status", "retry_after"), [(503, 1), (429, 2)])
def test_a_submission_answered_busy_is_sent_again_after_retry_after_and_stored_once(
        committed_db, live_server, tmp_path, status, retry_after) -> None:
    """The lab answers the submission 503 (or 429) with `Retry-After`: `latlab submit` waits
    that long, sends it again with the same `Idempotency-Key`, and exits 0 with the run the
    lab stored, once."""
    token = Actors(committed_db).token(Scope.runs_write)["Authorization"].split()[1]
    committed_db.commit()
    path = tmp_path / "result.json"
    path.write_text(json.dumps(result()))
    front = BusyFront(live_server, status, retry_after)
    try:
        submitted = _submit(front.url, token, path)
    finally:
        front.close()
    assert submitted.returncode == 0, submitted.stderr
    assert submitted.stdout.startswith(f"{live_server}/runs/")
    assert [(method, url_path) for _, method, url_path, _ in front.requests] == [
        ("POST", "/api/v1/runs")] * 2
    (first, *_, first_key), (second, *_, second_key) = front.requests
    assert first_key is not None and second_key == first_key
    # A lower bound only: it did not come back before the lab said it could.
    assert second - first >= retry_after
    assert committed_db.scalar(select(func.count()).select_from(Run)) == 1


def test_rejected_submission_exits_non_zero_with_the_server_message(committed_db, live_server,
                                                                    tmp_path) -> None:
    token = Actors(committed_db).token(Scope.runs_write)["Authorization"].split()[1]
    committed_db.commit()
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(edited(result(), "schema", "latlab.result/v0")))
    rejected = _submit(live_server, token, path)
    assert rejected.returncode == 1
    assert "rejected (422)" in rejected.stderr and "$.schema" in rejected.stderr
    refused = _submit(live_server, "llt_wrong", path)
    assert refused.returncode == 1 and "unknown API token" in refused.stderr
    missing = _submit(live_server, token, tmp_path / "nope.json")
    assert missing.returncode == 2 and "cannot read" in missing.stderr


def test_a_profile_goes_with_the_run_it_names(committed_db, live_server, tmp_path) -> None:
    """`--profile client=rust:perf.folded`: the series with those labels gets the profile;
    labels that pick no series, or an unreadable file, are usage errors (exit 2)."""
    token = Actors(committed_db).token(Scope.runs_write, Scope.read)["Authorization"].split()[1]
    committed_db.commit()
    path = tmp_path / "result.json"
    path.write_text(json.dumps(result()))
    folded = tmp_path / "perf.folded"
    folded.write_text("main;serve;spin 30\nmain;serve 10\n")
    sent = _submit(live_server, token, path, "--profile",
                   f"client=rust,program=server,tool=perf:{folded}")
    assert sent.returncode == 0, sent.stderr
    run_url = sent.stdout.strip()
    run_id = run_url.rsplit("/", 1)[1]
    (profile,) = httpx.get(f"{live_server}/api/v1/runs/{run_id}/profiles",
                           headers={"Authorization": f"Bearer {token}"}).json()
    assert (profile["labels"], profile["program"], profile["tool"], profile["samples"]) == (
        {"client": "rust"}, "server", "perf", 40)
    wrong = _submit(live_server, token, path, "--profile", f"client=go:{folded}")
    assert wrong.returncode == 2 and "pick 0 of the run's series" in wrong.stderr
    missing = _submit(live_server, token, path, "--profile", str(tmp_path / "none.folded"))
    assert missing.returncode == 2 and "cannot read the profile" in missing.stderr


def test_a_go_pprof_profile_is_read_into_folded_stacks(committed_db, live_server,
                                                       tmp_path) -> None:
    token = Actors(committed_db).token(Scope.runs_write, Scope.read)["Authorization"].split()[1]
    committed_db.commit()
    path = tmp_path / "result.json"
    path.write_text(json.dumps(result()))
    sent = _submit(live_server, token, path, "--profile", f"program=benchmark:{GOLDEN_PPROF}")
    assert sent.returncode == 0, sent.stderr
    run_id = sent.stdout.strip().rsplit("/", 1)[1]
    (profile,) = httpx.get(f"{live_server}/api/v1/runs/{run_id}/profiles",
                           headers={"Authorization": f"Bearer {token}"}).json()
    assert (profile["tool"], profile["samples"]) == ("pprof", 41)
    broken = tmp_path / "broken.pprof"
    broken.write_bytes(GOLDEN_PPROF.read_bytes()[:300])
    refused = _submit(live_server, token, path, "--profile", str(broken))
    assert refused.returncode == 1 and "pprof profile is cut short" in refused.stderr
