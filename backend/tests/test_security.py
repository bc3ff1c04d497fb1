"""Sign-in throttling, the cost of an unknown email, security headers, the session cookie,
CSRF, authentication before the body, and where webhooks may go."""

import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from latlab.auth import throttle
from latlab.core import security
from latlab.core.settings import get_settings
from latlab.models import Channel, Role, Run, Scope
from tests.factories import JSON, PASSWORD, result


def _login(client, email: str, password: str):
    return client.post("/api/v1/auth/login", json={"email": email, "password": password})


def test_failed_sign_ins_are_throttled_per_account_with_retry_after(client, actors,
                                                                    clock) -> None:
    user = actors.user(email="ada@lab.test")
    for _ in range(5):
        assert _login(client, "ada@lab.test", "wrong").status_code == 401
    throttled = _login(client, "ada@lab.test", PASSWORD)
    assert throttled.status_code == 429
    assert int(throttled.headers["Retry-After"]) == 900
    clock.advance(seconds=600)
    assert int(_login(client, "ADA@lab.test", "wrong").headers["Retry-After"]) == 300
    # Another account from the same address is not held up.
    other = actors.user(email="bob@lab.test")
    assert _login(client, "bob@lab.test", PASSWORD).status_code == 200
    clock.advance(seconds=301)
    assert _login(client, user.email, PASSWORD).status_code == 200
    assert other.id != user.id


def test_failures_from_one_address_slow_that_address_with_growing_delays(
        client, actors, clock) -> None:
    actors.user(email="carol@lab.test")
    for index in range(20):  # an address's first 20 failures in the window cost nothing
        assert _login(client, f"nobody-{index}@lab.test", "wrong").status_code == 401
    # Then each attempt claims the address's next one: due after a delay that doubles with
    # each failure, up to a minute.
    for index, delay in enumerate([1, 2, 4, 8, 16, 32, 60, 60]):
        assert _login(client, f"guess-{index}@lab.test", "wrong").status_code == 401
        refused = _login(client, "carol@lab.test", PASSWORD)
        assert refused.status_code == 429, refused.text
        assert int(refused.headers["Retry-After"]) == delay
        assert refused.json()["detail"] == ("many failed sign-ins from this address; the next "
                                            f"may come in {delay} s")
        clock.advance(seconds=delay - 0.5)
        assert _login(client, "carol@lab.test", PASSWORD).status_code == 429
        clock.advance(seconds=0.5)
    # A person behind the address waits a minute at most, never the window.
    assert _login(client, "carol@lab.test", PASSWORD).status_code == 200
    clock.advance(seconds=901)  # the failures left the window: no delay at all
    for _ in range(3):
        assert _login(client, "carol@lab.test", PASSWORD).status_code == 200


def test_two_clients_behind_one_proxy_a_guesser_does_not_lock_out_a_known_browser(
        client, actors, clock, monkeypatch) -> None:
    """A proxy at 10.9.0.1 forwards a browser and an API fuzzer from one office address."""
    monkeypatch.setattr(get_settings(), "trusted_proxies", "10.9.0.0/24")
    office = {**JSON, "X-Forwarded-For": "203.0.113.7, 10.9.0.1"}
    browser = TestClient(client.app, headers=office, client=("10.9.0.1", 40001))
    fuzzer = TestClient(client.app, headers=office, client=("10.9.0.1", 40002))
    newcomer = TestClient(client.app, headers=office, client=("10.9.0.1", 40003))
    actors.user(email="erin@lab.test")
    actors.user(email="fay@lab.test")
    assert _login(browser, "erin@lab.test", PASSWORD).status_code == 200
    assert browser.cookies.get(throttle.DEVICE_COOKIE)

    for index in range(40):  # the fuzzer: everyone's account, erin's too, past every limit
        _login(fuzzer, "erin@lab.test" if index % 2 else f"x-{index}@lab.test", "wrong")
    assert _login(fuzzer, "erin@lab.test", PASSWORD).status_code == 429  # erin's account: shut
    # Erin's browser signed in before: neither the address's failures nor her account's hold
    # it. A newcomer behind the same address waits the address's delay, not the window.
    assert _login(browser, "erin@lab.test", PASSWORD).status_code == 200
    slowed = _login(newcomer, "fay@lab.test", PASSWORD)
    assert slowed.status_code == 429 and int(slowed.headers["Retry-After"]) <= 60
    clock.advance(seconds=int(slowed.headers["Retry-After"]))
    assert _login(newcomer, "fay@lab.test", PASSWORD).status_code == 200
    # The failures were the office's, not the proxy's: another address behind it is free.
    elsewhere = TestClient(client.app, client=("10.9.0.1", 40004),
                           headers={**JSON, "X-Forwarded-For": "198.51.100.20"})
    assert _login(elsewhere, "erin@lab.test", "wrong").status_code == 401
    # A wrong password from erin's browser counts against the browser: at the account's
    # limit it is a browser like any other.
    for _ in range(5):
        assert _login(browser, "erin@lab.test", "wrong").status_code == 401
    assert _login(browser, "erin@lab.test", PASSWORD).status_code == 429


def test_x_forwarded_for_counts_only_from_a_trusted_proxy(client, actors, monkeypatch) -> None:
    """A client that sends X-Forwarded-For itself is counted under its own address."""
    monkeypatch.setattr(get_settings(), "trusted_proxies", "10.9.0.1")
    actors.user(email="gus@lab.test")
    for index in range(21):  # each failure claiming another address
        spoof = TestClient(client.app, client=("198.51.100.9", 40000 + index),
                           headers={**JSON, "X-Forwarded-For": f"192.0.2.{index}"})
        assert _login(spoof, f"nobody-{index}@lab.test", "wrong").status_code == 401
    spoof = TestClient(client.app, client=("198.51.100.9", 41000),
                       headers={**JSON, "X-Forwarded-For": "192.0.2.200"})
    assert _login(spoof, "gus@lab.test", PASSWORD).status_code == 429
    proxied = TestClient(client.app, client=("10.9.0.1", 41001),
                         headers={**JSON, "X-Forwarded-For": "198.51.100.9"})
    assert _login(proxied, "gus@lab.test", PASSWORD).status_code == 429  # the same client
    direct = TestClient(client.app, client=("192.0.2.5", 41002), headers=JSON)
    assert _login(direct, "gus@lab.test", PASSWORD).status_code == 200


def test_the_api_as_make_up_runs_it_does_not_take_x_forwarded_for_from_loopback(
        live_server) -> None:
    """uvicorn trusts X-Forwarded-For from 127.0.0.1 unless told not to; the lab's api is."""
    with httpx.Client(base_url=live_server, timeout=30) as spoof:
        for index in range(21):
            spoof.post("/api/v1/auth/login", headers={"X-Forwarded-For": f"192.0.2.{index}"},
                       json={"email": f"nobody-{index}@lab.test", "password": "wrong"})
        refused = spoof.post("/api/v1/auth/login", headers={"X-Forwarded-For": "192.0.2.99"},
                             json={"email": "nobody@lab.test", "password": "wrong"})
    assert refused.status_code == 429, refused.text


def test_an_unknown_email_costs_a_password_check_like_a_known_one(client, actors,
                                                                   monkeypatch) -> None:
    checks: list[str] = []
    real = security._hasher

    class Counted:
        """The real argon2 hasher, counting its verifications."""

        def verify(self, password_hash: str, password: str) -> bool:
            checks.append(password_hash[:10])
            return real.verify(password_hash, password)

        def hash(self, password: str) -> str:
            return real.hash(password)

    actors.user(email="dan@lab.test")
    inactive = actors.user(email="old@lab.test")
    inactive.is_active = False
    monkeypatch.setattr(security, "_hasher", Counted())
    for email in ("dan@lab.test", "nobody@lab.test", "old@lab.test"):
        response = _login(client, email, "wrong password")
        assert response.status_code == 401
        assert response.json() == {"detail": "wrong email or password"}
    assert len(checks) == 3 and all(c.startswith("$argon2id") for c in checks)


def test_security_headers_on_the_api_and_the_dashboard(client) -> None:
    for path in ("/api/v1/openapi.json", "/", "/runs/1", "/api/v1/nothing"):
        headers = client.get(path).headers
        assert "frame-ancestors 'none'" in headers["Content-Security-Policy"], path
        assert "default-src 'self'" in headers["Content-Security-Policy"]
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["Referrer-Policy"] == "same-origin"


def test_the_session_cookie_is_secure_when_the_lab_is_served_over_https(
        client, actors, monkeypatch) -> None:
    from latlab.core.settings import get_settings

    user = actors.user()
    assert "Secure" not in _login(client, user.email, PASSWORD).headers["set-cookie"]
    monkeypatch.setattr(get_settings(), "public_url", "https://lab.example")
    assert "Secure" in _login(client, user.email, PASSWORD).headers["set-cookie"]


def test_signed_in_writes_need_a_json_content_type(client, actors, db) -> None:
    actors.login(client)
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    before = db.scalar(select(func.count()).select_from(Run))
    refused = client.post("/api/v1/runs", content=b"schema=x", headers=form)
    assert refused.status_code == 403 and "application/json" in refused.json()["detail"]
    plain = client.post("/api/v1/channels", content=b'{"name": "x"}',
                        headers={"Content-Type": "text/plain"})
    assert plain.status_code == 403
    assert db.scalar(select(func.count()).select_from(Run)) == before
    # Tokens are not sent by browsers on their own: no such rule for them.
    token = actors.token(Scope.runs_write)
    assert client.post("/api/v1/runs", json=result(), headers=token).status_code == 201


def _raw_request(url: str, head: str) -> bytes:
    """Sends request headers only, never the body they announce; returns the answer."""
    parts = urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=30) as sock:
        sock.sendall(head.encode())
        return sock.recv(65536)


@pytest.mark.parametrize("credentials", ["", "Authorization: Bearer llt_forged\r\n"])
def test_the_caller_is_checked_before_a_large_body_is_read(live_server, committed_db,
                                                           credentials) -> None:
    # 60 MiB announced and never sent: an answer at all means the body was not awaited.
    answer = _raw_request(live_server, (
        f"POST /api/v1/runs HTTP/1.1\r\nHost: lab\r\nContent-Type: application/json\r\n"
        f"Content-Length: {60 * 1024 * 1024}\r\n{credentials}\r\n"))
    assert answer.startswith(b"HTTP/1.1 401"), answer[:200]


def test_other_bodies_are_small(client, actors) -> None:
    actors.login(client)
    huge = client.post("/api/v1/sla-rules", content=b"{" + b" " * (2 * 1024 * 1024) + b"}")
    assert huge.status_code == 413


class Receiver:
    """A local webhook receiver whose answer holds a secret."""

    def __init__(self, status: int) -> None:
        self.calls = 0
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers["Content-Length"]))
                receiver.calls += 1
                self.send_response(status)
                self.end_headers()
                self.wfile.write(b"internal-secret-42")

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver(status=500)
    yield server
    server.server.shutdown()
    server.server.server_close()


@pytest.mark.parametrize("url", ["http://127.0.0.1:8000/hook", "http://localhost/",
                                 "http://10.1.2.3/", "http://169.254.169.254/latest/meta-data",
                                 "http://[::1]/", "http://[::ffff:192.168.0.1]/",
                                 "http://0.0.0.0/"])
def test_webhooks_to_internal_addresses_are_refused(client, actors, db, url) -> None:
    actors.login(client)
    refused = client.post("/api/v1/channels", json={"name": "x", "kind": "webhook", "url": url})
    assert refused.status_code == 422
    assert refused.json()["detail"][0]["path"] == "$.url"
    assert "not a public address" in refused.json()["detail"][0]["message"]
    assert db.scalar(select(func.count()).select_from(Channel)) == 0


def test_private_targets_when_the_admin_allows_them_and_checked_again_at_send_time(
        client, actors, db, receiver) -> None:
    actors.login(client, Role.admin)
    assert client.patch("/api/v1/projects/default",
                        json={"allow_private_webhooks": True}).status_code == 200
    channel = client.post("/api/v1/channels", json={
        "name": "local", "kind": "webhook", "url": receiver.url}).json()
    tested = client.post(f"/api/v1/channels/{channel['id']}/test").json()
    assert tested["ok"] is False and tested["status_code"] == 500
    assert tested["error"] == "HTTP 500" and tested["elapsed_ms"] > 0
    assert "internal-secret" not in str(tested)
    assert receiver.calls == 1
    # Withdrawn: the saved channel is refused when sending, before any connection.
    client.patch("/api/v1/projects/default", json={"allow_private_webhooks": False})
    again = client.post(f"/api/v1/channels/{channel['id']}/test").json()
    assert again["ok"] is False and again["status_code"] is None
    assert "TargetRefused" in again["error"] and receiver.calls == 1


def test_members_cannot_allow_private_targets(client, actors) -> None:
    actors.login(client, Role.member)
    assert client.patch("/api/v1/projects/default",
                        json={"allow_private_webhooks": True}).status_code == 403
