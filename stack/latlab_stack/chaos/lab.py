"""The chaos soak's lab (`latlab_stack.chaos`): the lab as `make up` runs it in a throwaway data
directory, prepared with its admin, CI tokens, an SLA rule and the local HTTP receiver its
alerts go to."""

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

import latlab_stack as localstack
from latlab.core import rate_limits

PROGRAMS = ("api", "ingest", "alerts", "beat", "runner", "redis", "postgres")
TERMINAL = ("succeeded", "failed", "cancelled", "timed_out")


ADMIN = {"email": "admin@latlab.local", "password": "chaos-lab-admin"}
CLIENTS = 3  # CI clients, each on a token of its own


# --- the lab as `make up` runs it ---------------------------------------------------------

@dataclass
class SupervisedLab:
    process: subprocess.Popen[bytes]
    data: Path
    url: str
    database_url: str
    token: str = ""  # the readers' and the job launcher's
    ci_tokens: list[str] = field(default_factory=list)
    flood_token: str = ""

    def rpc(self) -> Any:
        return localstack.supervisor_rpc(self.data / "supervisord.conf")

    def states(self) -> dict[str, tuple[str, int]]:
        """Each program's supervisord state and main pid (0 when not running)."""
        return {p["name"]: (p["statename"], p["pid"]) for p in self.rpc().getAllProcessInfo()}

    def log(self, name: str) -> str:
        path = self.data / "logs" / f"{name}.log"
        return path.read_text(errors="replace") if path.exists() else ""


@contextlib.contextmanager
def made_up_lab(build_cache: Path, budget: int | None = None) -> Iterator[SupervisedLab]:
    """`python -m latlab_stack up` on free ports with its data in a temporary directory,
    with the default fair-use limits (or `budget` submissions per token per window); yields
    once the admin can sign in and the runner is online; stopped as Ctrl-C stops it."""
    data = Path(tempfile.mkdtemp(prefix="latlab-chaos-"))
    data.chmod(0o755)  # postgres runs as its own user and must reach its directory
    port, pg_port = localstack.free_port(), localstack.free_port()
    env = {k: v for k, v in os.environ.items()
           if k not in ("LATLAB_DATABASE_URL", "LATLAB_REDIS_URL", *rate_limits.ENVIRONMENT)}
    env.update({
        "LATLAB_DATA_DIR": str(data), "LATLAB_PORT": str(port),
        "LATLAB_PG_PORT": str(pg_port), "LATLAB_REDIS_PORT": str(localstack.free_port()),
        "LATLAB_PUBLIC_URL": f"http://127.0.0.1:{port}",
        "LATLAB_ADMIN_PASSWORD": ADMIN["password"], "LATLAB_HOST_NAME": "chaos-lab",
        "LATLAB_BUILD_CACHE": str(build_cache),
        **({} if budget is None else {"LATLAB_SUBMISSIONS_PER_CALLER": str(budget)}),
    })
    with open(data / "up.log", "ab") as log:
        process = subprocess.Popen([sys.executable, "-m", "latlab_stack", "up"], env=env,
                                   stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    lab = SupervisedLab(process, data, f"http://127.0.0.1:{port}",
                        f"postgresql://postgres@127.0.0.1:{pg_port}/latlab")
    try:
        yield lab
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(process.pid, signal.SIGTERM)
        try:
            process.wait(90)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
        shutil.rmtree(data, ignore_errors=True)


def wait_until(predicate: Any, timeout: float, what: str, interval: float = 0.5) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.HTTPError):
            value = predicate()
            if value:
                return value
        time.sleep(interval)
    raise RuntimeError(f"{what}: not within {timeout:g} s")


def prepare(lab: SupervisedLab, receiver_url: str) -> None:
    """The admin signs in; tokens (one for the readers and the launcher, one per CI client,
    the flood's), the receiver's webhook channel and the SLA rule."""
    with httpx.Client(base_url=f"{lab.url}/api/v1", timeout=30,
                      headers={"Content-Type": "application/json"}) as admin:
        def signed_in() -> bool:
            if lab.process.poll() is not None:
                raise RuntimeError(f"make up ended: {(lab.data / 'up.log').read_text()[-3000:]}")
            return admin.post("/auth/login", json=ADMIN).status_code == 200

        wait_until(signed_in, 240, "the admin signs in")
        wait_until(lambda: any(h["online"] for h in admin.get("/hosts").json()), 240,
                   "the runner comes online")
        admin.patch("/projects/default", json={"allow_private_webhooks": True}
                    ).raise_for_status()
        def token(name: str) -> str:
            return str(admin.post("/tokens", json={
                "name": name, "scopes": ["runs:write", "jobs:write", "read"]}
                                  ).raise_for_status().json()["token"])

        lab.token = token("chaos-lab")
        lab.ci_tokens = [token(f"chaos-ci-{i}") for i in range(CLIENTS)]
        lab.flood_token = token("chaos-flood")
        channel = admin.post("/channels", json={
            "name": "chaos receiver", "kind": "webhook", "url": receiver_url}
                             ).raise_for_status().json()
        admin.post("/sla-rules", json={
            "name": "chaos: p99 over 0.2 ms", "suite": "http-order", "scenario": "chaos",
            "series_selector": {"breach": "yes"}, "metric": "p99", "op": ">",
            "threshold": 0.2, "unit": "ms", "channel_ids": [channel["id"]]}).raise_for_status()
        # `make up`'s first-look echo job ends before the clock starts.
        first = wait_until(lambda: admin.get("/jobs").json()["items"], 60, "the first job")
        wait_until(lambda: admin.get(f"/jobs/{first[-1]['id']}").json()["status"] in TERMINAL,
                   240, "the first job ends")


# --- the receiver ---------------------------------------------------------------------------

class Receiver:
    """A real local HTTP server taking the lab's webhooks. It keeps what it accepted (answered
    200); while `failing_until` it answers 500, while `stalled_until` it holds the request
    without an answer until the stall ends (the lab's 5 s delivery timeout gives up first),
    then answers 503: neither is kept."""

    def __init__(self) -> None:
        self.accepted: list[dict[str, Any]] = []
        self.refused = 0
        self.failing_until = 0.0
        self.stalled_until = 0.0
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                stalled = time.monotonic() < receiver.stalled_until
                while time.monotonic() < receiver.stalled_until:
                    time.sleep(0.1)
                status = 503 if stalled else (
                    500 if time.monotonic() < receiver.failing_until else 200)
                if status == 200:
                    receiver.accepted.append(json.loads(body))
                else:
                    receiver.refused += 1
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_port}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


# --- the whole run --------------------------------------------------------------------------

@contextlib.contextmanager
def prepared_lab(budget: int | None = None) -> Iterator[tuple[SupervisedLab, Receiver]]:
    """The lab as `make up` runs it (`made_up_lab`, its submission `budget`), prepared
    (`prepare`), and its alert receiver."""
    build_cache = Path(os.environ.get("LATLAB_TEST_BUILD_CACHE",
                                      Path.home() / ".cache" / "latlab" / "test-builds"))
    build_cache.mkdir(parents=True, exist_ok=True)
    receiver = Receiver()
    try:
        with made_up_lab(build_cache, budget) as lab:
            prepare(lab, receiver.url)
            yield lab, receiver
    finally:
        receiver.stop()
