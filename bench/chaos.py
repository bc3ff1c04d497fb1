"""Chaos soak, Jepsen-style: a workload, a nemesis and a checker against the lab as `make up`
runs it (`python -m latlab.localstack up`: supervisord over Postgres, Redis, the api, the
ingest and alerts workers, beat and this host's runner), in a throwaway data directory.

- Workload (threads): CI clients submitting runs with idempotency keys through the CLI's API
  client (`latlab_cli.client.Lab`, the one `latlab submit` uses), retrying as a CI step would
  (see `submit_retried`); one in four runs breaches an SLA rule whose channel is a real local
  HTTP receiver; short echo jobs launched, a third of them cancelled; readers on the
  dashboard's heaviest routes (runs list, run detail, compare, trends). With `--flood`, one
  more CI client on a token of its own submits from several threads as fast as the lab lets
  it, waiting only what a 429's Retry-After says (see `flood_client`).
- Nemesis (seeded): at random moments, SIGKILL of a program's main process, or SIGSTOP of its
  whole process group then SIGCONT a few seconds later, for the api, ingest, alerts, beat,
  runner, Redis and Postgres; the receiver stalls or answers 500 for a while. Faults overlap.
  supervisord (`autorestart=true`, Postgres and Redis included, `make up`'s config) restarts
  whatever is killed; the nemesis restarts nothing itself.
- Checker, after a quiet period (bounded) in which the lab settles: the properties in
  `check`; the figures as a table; exit status 1 when a property is violated.

    .venv/bin/python -m bench.chaos --minutes 30 --seed 7
"""

import argparse
import contextlib
import hashlib
import itertools
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import psycopg

from latlab import localstack
from latlab.core import rate_limits
from latlab.core.settings import Settings as LabSettings
from latlab_cli.client import Lab
from latlab_cli.config import Settings
from latlab_cli.errors import Rejected, Unreachable

PROGRAMS = ("api", "ingest", "alerts", "beat", "runner", "redis", "postgres")
FAULTS = (*(f"{action} {target}" for target in PROGRAMS for action in ("kill", "stop")),
          "stall receiver", "500 receiver")
TERMINAL = ("succeeded", "failed", "cancelled", "timed_out")
# A job ends within its timeout plus this: the watchdog's pickup (60 s) and silence (30 s)
# limits, its 5 s period, and one more attempt queued behind the others (a runner killed
# mid-job is tried again).
JOB_MARGIN_S = 240
JOB = {"suite": "echo", "params": {"count": 2000, "warmup": 100}, "repetitions": 1,
       "timeout_s": 60}
SUBMIT_DEADLINE_S = 120  # a CI step's patience with one submission
ADMIN = {"email": "admin@latlab.local", "password": "chaos-lab-admin"}
CLIENTS = 3  # CI clients, each on a token of its own
# Fair use as the lab's defaults set it: submissions per token per window.
DEFAULT_BUDGET: int = LabSettings.model_fields["submissions_per_caller"].default
WINDOW_S: float = LabSettings.model_fields["rate_window_s"].default
# The soak's own budget, a small share of what a slow lab stores in a window (a 2-core
# machine limited to one CPU's time stored about 3.4 submissions a second, all clients
# together, and the flood 1.4 of them: under the default 2 a second, never refused), so the
# flood exceeds it on any machine while the paced CI clients stay inside it.
SOAK_BUDGET = 6


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
    """`python -m latlab.localstack up` on free ports with its data in a temporary directory,
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
        process = subprocess.Popen([sys.executable, "-m", "latlab.localstack", "up"], env=env,
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


# --- the workload ---------------------------------------------------------------------------

@dataclass
class Answer:
    at: float  # seconds since the workload started
    route: str
    status: int | None  # None: no answer (refused, reset, timed out)
    retry_after: str | None = None


@dataclass
class Submission:
    key: str
    breach: bool
    flood: bool = False
    statuses: list[int | None] = field(default_factory=list)
    # Per attempt (as `statuses`): when it started (seconds since the workload started) and
    # how long until its answer or its failure.
    attempts: list[tuple[float, float]] = field(default_factory=list)


@dataclass
class History:
    """What the workload did and saw; lists are appended to by several threads."""

    started: float = field(default_factory=time.monotonic)
    answers: list[Answer] = field(default_factory=list)
    submissions: list[Submission] = field(default_factory=list)
    jobs: list[int] = field(default_factory=list)
    cancels: list[int] = field(default_factory=list)
    faults: list["Fault"] = field(default_factory=list)

    def now(self) -> float:
        return time.monotonic() - self.started

    def record(self, route: str, response: httpx.Response | None) -> None:
        self.answers.append(Answer(
            self.now(), route, None if response is None else response.status_code,
            None if response is None else response.headers.get("Retry-After")))


class RecordingLab(Lab):  # type: ignore[misc]  # latlab is untyped to `mypy bench`
    """The CLI's API client (`latlab submit` sends with it), each answer also recorded."""

    def __init__(self, url: str, token: str, history: History, route: str) -> None:
        super().__init__(Settings(url=url, token=token, sources={}), timeout=30)
        self.last: httpx.Response | None = None
        self._http.event_hooks["response"].append(self._record)
        self.history, self.route = history, route

    def _record(self, response: httpx.Response) -> None:
        self.last = response
        self.history.record(self.route, response)


def document(labels: dict[str, str], scale_ns: int, rng: random.Random) -> bytes:
    """A latlab.result/v1 document of one series, 200 samples around `scale_ns`."""
    now = datetime.now(UTC).isoformat()
    return json.dumps({
        "schema": "latlab.result/v1", "suite": "http-order", "scenario": "chaos",
        "params": {"orders": 200, "connections": 1, "load": "closed"},
        "started_at": now, "finished_at": now,
        "source": {"kind": "ci", "commit": f"{rng.getrandbits(28):07x}", "branch": "main"},
        "host": {"name": "chaos-ci", "tags": []},
        "series": [{"labels": labels, "trials": [{"latency": {"samples_ns": [
            int(scale_ns * rng.uniform(0.9, 1.1)) for _ in range(200)]}}]}],
    }).encode()


def attempt(lab: "RecordingLab", body: bytes, submission: Submission,
            history: History) -> str | None:
    """One try of `latlab submit`'s request, recorded in `submission`; returns the answer's
    Retry-After, if any."""
    start = time.monotonic()
    retry_after = None
    try:
        response = lab.send("POST", "/runs", content=body, headers={
            "Idempotency-Key": submission.key, "Content-Type": "application/json"})
        status: int | None = response.status_code
    except Unreachable:
        status = None
        history.record(lab.route, None)
    except Rejected as error:
        status = error.status
        retry_after = lab.last.headers.get("Retry-After") if lab.last else None
    submission.statuses.append(status)
    submission.attempts.append((start - history.started, time.monotonic() - start))
    return retry_after


def submit_retried(lab: "RecordingLab", body: bytes, submission: Submission,
                   history: History) -> None:
    """One submission as a CI step makes it: `latlab submit`'s request (its default key, a
    SHA-256 of the body, here made unique per submission) sent again with the same key after
    no answer, a 5xx or a 429 (after its Retry-After, else a backoff of 0.5 s doubling to
    8 s), for up to SUBMIT_DEADLINE_S. (`latlab submit` itself sends once; CI retries the
    step.)"""
    deadline = time.monotonic() + SUBMIT_DEADLINE_S
    for tries in range(1000):
        wait = min(0.5 * 2 ** tries, 8.0)
        retry_after = attempt(lab, body, submission, history)
        status = submission.statuses[-1]
        if status is not None and (200 <= status < 300 or (status < 500 and status != 429)):
            return  # stored, or refused for good
        if retry_after and retry_after.isdigit():
            wait = min(float(retry_after), 15.0)
        if time.monotonic() + wait > deadline:
            return
        time.sleep(wait)


def ci_client(name: str, token: str, lab: SupervisedLab, history: History,
              rng: random.Random, until: float, budget: int) -> None:
    """Submissions one after another, each followed by a pause of 1-2 times the token's
    refill interval (window / budget), so a CI client stays well inside its budget however
    fast the lab answers."""
    client = RecordingLab(lab.url, token, history, "submit")
    interval = WINDOW_S / budget
    number = 0
    while time.monotonic() < until:
        number += 1
        breach = rng.random() < 0.25
        key = hashlib.sha256(f"{name}-{number}-{rng.random()}".encode()).hexdigest()
        labels = ({"client": f"breach-{key[:12]}", "breach": "yes"} if breach
                  else {"client": name})
        submission = Submission(key, breach)
        history.submissions.append(submission)
        body = document(labels, 350_000 if breach else 60_000, rng)
        submit_retried(client, body, submission, history)
        time.sleep(interval * rng.uniform(1, 2))


FLOOD_THREADS = 4
NO_ANSWER_WAIT_S = 0.25  # the flood's pause after no answer or a 5xx without Retry-After


def flood_client(name: str, lab: SupervisedLab, history: History, rng: random.Random,
                 until: float, flooding: threading.Event) -> None:
    """One thread of the flooding CI client (its own token, `lab.flood_token`): while
    `flooding` is set, submissions one after another with no pause. A 429 gives the
    submission up (it must not be stored) and the thread waits what its Retry-After says, no
    more, before the next; no answer or a 5xx is sent again with the same key (after its
    Retry-After, else NO_ANSWER_WAIT_S), so what the lab stored is checked as the others'."""
    client = RecordingLab(lab.url, lab.flood_token, history, "flood submit")
    number = 0
    while time.monotonic() < until:
        if not flooding.wait(0.5):
            continue
        number += 1
        key = hashlib.sha256(f"{name}-{number}-{rng.random()}".encode()).hexdigest()
        submission = Submission(key, breach=False, flood=True)
        history.submissions.append(submission)
        body = document({"client": "flood"}, 60_000, rng)
        deadline = time.monotonic() + SUBMIT_DEADLINE_S
        while True:
            retry_after = attempt(client, body, submission, history)
            status = submission.statuses[-1]
            wait = (float(retry_after) if retry_after and retry_after.isdigit()
                    else NO_ANSWER_WAIT_S)
            if status == 429:
                time.sleep(wait)
                break
            if (status is not None and status < 500) or time.monotonic() + wait > deadline:
                break
            time.sleep(wait)


def reader(lab: SupervisedLab, history: History, rng: random.Random, until: float) -> None:
    """The dashboard's heaviest reads, one after another."""
    with httpx.Client(base_url=f"{lab.url}/api/v1", timeout=30,
                      headers={"Authorization": f"Bearer {lab.token}"}) as api:
        def get(route: str, path: str, **params: Any) -> Any:
            try:
                response = api.get(path, params=params)
            except httpx.HTTPError:
                history.record(route, None)
                time.sleep(0.5)
                return None
            history.record(route, response)
            return response.json() if response.status_code == 200 else None

        while time.monotonic() < until:
            page = get("runs list", "/runs", suite="http-order", limit=50)
            steady = [r["id"] for r in (page or {}).get("items", [])]
            if page and page["items"]:
                get("run detail", f"/runs/{rng.choice(page['items'])['id']}")
            if len(steady) >= 2:
                baseline, candidate = sorted(rng.sample(steady, 2))
                get("compare", "/compare", baseline=baseline, candidate=candidate)
            get("trends", "/trends", suite="http-order", scenario="chaos", metric="p99",
                labels=json.dumps({"client": f"ci-{rng.randrange(3)}"}))
            time.sleep(rng.uniform(0.1, 0.5))


def launcher(lab: SupervisedLab, history: History, rng: random.Random, until: float) -> None:
    """Short echo jobs, every 4-10 s; a third of them cancelled 0.1-1.5 s after launch."""
    with httpx.Client(base_url=f"{lab.url}/api/v1", timeout=30,
                      headers={"Authorization": f"Bearer {lab.token}"}) as api:
        while time.monotonic() < until:
            try:
                response = api.post("/jobs", json=JOB)
                history.record("launch job", response)
            except httpx.HTTPError:
                history.record("launch job", None)
                response = None
            if response is not None and response.status_code == 202:
                job_id = response.json()["id"]
                history.jobs.append(job_id)
                if rng.random() < 1 / 3:
                    time.sleep(rng.uniform(0.1, 1.5))
                    history.cancels.append(job_id)
                    with contextlib.suppress(httpx.HTTPError):
                        history.record("cancel job", api.post(f"/jobs/{job_id}/cancel"))
            time.sleep(rng.uniform(4, 10))


# --- the nemesis ----------------------------------------------------------------------------

@dataclass
class Fault:
    kind: str  # "kill api", "stop postgres", "500 receiver", ...
    start: float
    end: float
    note: str = ""


def nemesis(lab: SupervisedLab, receiver: Receiver, history: History, rng: random.Random,
            until: float, kinds: tuple[str, ...], mean_gap_s: float) -> None:
    """A fault every `mean_gap_s` on average (exponential gaps), each in its own thread so
    faults overlap; never two at once on one target."""
    busy: set[str] = set()
    threads = []
    while True:
        time.sleep(rng.expovariate(1 / mean_gap_s))
        if time.monotonic() >= until:
            break
        free = [k for k in kinds if k.split()[1] not in busy]
        if not free:
            continue
        kind = rng.choice(free)
        target = kind.split()[1]
        busy.add(target)
        thread = threading.Thread(target=_inflict, args=(
            lab, receiver, history, kind, rng.uniform(2, 8), busy), daemon=True)
        thread.start()
        threads.append(thread)
    for thread in threads:
        thread.join(30)


def _inflict(lab: SupervisedLab, receiver: Receiver, history: History, kind: str,
             seconds: float, busy: set[str]) -> None:
    action, target = kind.split()
    start = history.now()
    note = ""
    try:
        if target == "receiver":
            until = time.monotonic() + seconds
            if action == "stall":
                receiver.stalled_until = until
            else:
                receiver.failing_until = until
            time.sleep(seconds)
            return
        state, pid = lab.states()[target]
        if state != "RUNNING" or not pid:
            note = f"skipped: {state}"
            return
        if action == "kill":
            os.kill(pid, signal.SIGKILL)  # the main process, as a crash would
            seconds = 0
        else:
            frozen = localstack.program_processes(pid)  # the whole program, its children too
            for process in frozen:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(process, signal.SIGSTOP)
            try:
                time.sleep(seconds)
            finally:
                for process in frozen:
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(process, signal.SIGCONT)
    except Exception as error:  # a fault that could not be made is reported, not fatal
        note = f"{type(error).__name__}: {error}"
    finally:
        history.faults.append(Fault(kind, start, history.now(), note))
        busy.discard(target)


# --- memory ---------------------------------------------------------------------------------

def pss_mib(lab: SupervisedLab) -> dict[str, float]:
    """Each program's memory: the proportional set size (PSS: a page shared by n processes
    counts 1/n in each) summed over its processes, Celery's pool children and Postgres's
    backends included, so memory they share (Postgres's buffers) is counted once."""
    def resident(pid: int) -> float:
        with contextlib.suppress(OSError, StopIteration):
            rollup = (Path("/proc") / str(pid) / "smaps_rollup").read_text().splitlines()
            return int(next(line for line in rollup if line.startswith("Pss:")).split()[1]) / 1024
        return 0.0  # ended meanwhile

    return {name: sum(map(resident, localstack.program_processes(pid))) if pid else 0.0
            for name, (_, pid) in lab.states().items()}


# --- the checker ----------------------------------------------------------------------------

@dataclass
class Verdict:
    figures: list[tuple[str, str]] = field(default_factory=list)
    violations: list[str] = field(default_factory=list)

    def figure(self, name: str, value: Any) -> None:
        self.figures.append((name, str(value)))

    def require(self, holds: bool, name: str, detail: str) -> None:
        self.figures.append((f"[{'ok' if holds else 'VIOLATED'}] {name}", detail))
        if not holds:
            self.violations.append(f"{name}: {detail}")

    def table(self) -> str:
        width = max(len(name) for name, _ in self.figures)
        return "\n".join(f"{name:<{width}}  {value}" for name, value in self.figures)


def settle(lab: SupervisedLab, history: History, receiver: Receiver, timeout: float) -> float:
    """The quiet period: until every program runs, every job has ended and every breach's alert
    reached the receiver, or `timeout`; returns the seconds it took."""
    started = time.monotonic()
    time.sleep(10)
    breaches = [s.key for s in history.submissions if s.breach]
    while time.monotonic() - started < timeout:
        with contextlib.suppress(Exception):
            running = all(state == "RUNNING" for state, _ in lab.states().values())
            with psycopg.connect(lab.database_url, connect_timeout=3) as db:
                open_jobs = db.execute("select count(*) from job where status not in "
                                       "('succeeded', 'failed', 'cancelled', 'timed_out')"
                                       ).fetchone()
                alerted = db.execute(
                    "select count(*) from run r join alert a on a.run_id = r.id "
                    "where r.idempotency_key = any(%s)", (breaches,)).fetchone()
            opened = {m["alert_id"] for m in receiver.accepted if m["event"] == "opened"}
            if running and open_jobs == (0,) and alerted and alerted[0] <= len(opened):
                break
        time.sleep(2)
    return time.monotonic() - started


def check(lab: SupervisedLab, history: History, receiver: Receiver, quiet_s: float,
          pss_start: dict[str, float], flood: bool = False) -> Verdict:
    verdict = Verdict()
    with psycopg.connect(lab.database_url, connect_timeout=10) as db:
        stored: Counter[str] = Counter(dict(db.execute(
            "select idempotency_key, count(*) from run where idempotency_key = any(%s) "
            "group by idempotency_key", ([s.key for s in history.submissions],)).fetchall()))
        runs: dict[str, int] = dict(db.execute("select idempotency_key, id from run where "
                               "idempotency_key = any(%s)",
                               ([s.key for s in history.submissions],)).fetchall())
        jobs = db.execute("select id, status, attempts, timeout_s, extract(epoch from "
                          "coalesce(finished_at, now()) - created_at) from job").fetchall()
        alerts: dict[int, int] = dict(db.execute(
            "select run_id, id from alert where run_id = any(%s)", (list(runs.values()),)
        ).fetchall())
        delivered = {(alert_id, event): (status, attempts, ok) for alert_id, event, status,
                     attempts, ok in db.execute(
            "select n.alert_id, n.event, n.status, n.attempts, (select count(*) from "
            "delivery_attempt d where d.notification_id = n.id and d.ok) from notification n "
            "join channel c on c.id = n.channel_id where c.name = 'chaos receiver'")}

    subs = history.submissions
    acked = [s for s in subs if any(c is not None and 200 <= c < 300 for c in s.statuses)]
    for name, group in (("submissions (answered 2xx)", [s for s in subs if not s.flood]),
                        ("flood's submissions (2xx)", [s for s in subs if s.flood])):
        if group or not name.startswith("flood"):
            verdict.figure(name, f"{len(group)} ({sum(s in acked for s in group)}), "
                           f"{sum(len(s.statuses) for s in group)} attempts, "
                           f"{sum(s.statuses.count(None) for s in group)} without an answer")
    verdict.require(all(stored[s.key] == 1 for s in acked), "2xx stored exactly once",
                    f"{sum(stored[s.key] != 1 for s in acked)} of {len(acked)} not")
    duplicated = [s.key for s in subs if stored[s.key] > 1]
    lost = [s for s in subs if stored[s.key] == 0 and not any(
        c is not None and (c < 200 or c >= 300) for c in s.statuses)]
    verdict.require(not duplicated and not lost, "stored or answered non-2xx",
                    f"{len(duplicated)} duplicated, {len(lost)} neither stored nor refused; "
                    f"{sum(stored[s.key] == 0 for s in subs)} not stored")
    # Answered 4xx every time (a 429 the flood gave up on): the lab kept none of them.
    refused = [s for s in subs if s.statuses and all(
        c is not None and 400 <= c < 500 for c in s.statuses)]
    verdict.require(not any(stored[s.key] for s in refused), "refused (only 4xx) not stored",
                    f"{sum(stored[s.key] > 0 for s in refused)} of {len(refused)} stored")
    too_many = Counter(a.route for a in history.answers if a.status == 429)
    if flood:
        verdict.require(too_many["flood submit"] > 0, "the flood client gets 429s",
                        f"{too_many['flood submit']} 429s to the flood's "
                        f"{sum(len(s.statuses) for s in subs if s.flood)} attempts")
        verdict.require(not too_many["submit"], "the other CI clients get no 429",
                        f"{too_many['submit']} 429s")

    statuses = Counter(status for _, status, *_ in jobs)
    late = [(job_id, status, round(age)) for job_id, status, _, timeout_s, age in jobs
            if status not in TERMINAL or age > timeout_s + JOB_MARGIN_S]
    verdict.figure("jobs", f"{len(history.jobs)} launched, {len(history.cancels)} cancelled; "
                   f"by status: {dict(statuses)}; "
                   f"retried: {sum(attempts > 1 for _, _, attempts, _, _ in jobs)}")
    verdict.require(not late, f"jobs terminal within timeout + {JOB_MARGIN_S} s",
                    f"longest {max((age for *_, age in jobs), default=0):.0f} s; late: {late}")

    breaches = [s for s in subs if s.breach and s.key in runs]
    unalerted = [s.key[:12] for s in breaches if alerts.get(runs[s.key]) is None]
    got = Counter((m["alert_id"], m["event"]) for m in receiver.accepted)
    missed = [s.key[:12] for s in breaches if alerts.get(runs[s.key]) is not None
              and got[(alerts[runs[s.key]], "opened")] == 0]
    verdict.require(not unalerted and not missed, "every stored breach alerted",
                    f"{len(breaches)} breaches stored; without an alert {len(unalerted)}, "
                    f"alert never received {len(missed)}")
    twice = {k: n for k, n in got.items() if n > 1}
    # A kill between a POST and the record of its answer makes the message go again: Slack
    # does not de-duplicate, so the lab's promise is that a repeat shows. It is hidden when the
    # lab recorded fewer attempts than the receiver got, or a repeat does not say it may be one.
    hidden = {k: (n, delivered.get(k)) for k, n in got.items()
              if n > (delivered.get(k) or (None, 0, 0))[1]}
    unmarked = {k: n for k, n in twice.items() if sum(
        1 for m in receiver.accepted if (m["alert_id"], m["event"]) == k and m.get("may_repeat")
    ) < n - 1}
    verdict.require(not hidden and not unmarked, "no hidden duplicate deliveries",
                    f"{len(receiver.accepted)} messages accepted ({receiver.refused} refused by "
                    f"the receiver's faults); received more than once: {len(twice)}; of them "
                    f"more often than the lab recorded an attempt: {len(hidden)}, a repeat not "
                    f"saying it may be one: {len(unmarked)}")
    pending = Counter(status for status, _, _ in delivered.values())
    verdict.figure("deliveries (lab's records)", dict(pending))

    errors = [a for a in history.answers if a.status is not None and a.status >= 500
              and not (a.status == 503 and a.retry_after)]
    verdict.require(not errors, "no 5xx but 503 with Retry-After",
                    f"{Counter((a.route, a.status) for a in errors)}")
    by_route = Counter((a.route, a.status) for a in history.answers)
    for route in sorted({a.route for a in history.answers}):
        verdict.figure(f"answers: {route}", ", ".join(
            f"{status or 'none'} x{n}" for (r, status), n in sorted(
                by_route.items(), key=lambda item: str(item[0][1])) if r == route))

    for kind, (count, window) in sorted(longest_without_2xx(history).items()):
        verdict.figure(f"no 2xx for, during {kind}", f"{window:.1f} s longest ({count} faults)")
    skipped = [f for f in history.faults if f.note]
    verdict.figure("faults", f"{len(history.faults)} ({len(skipped)} not made: "
                   f"{Counter(f.note for f in skipped)})")
    verdict.figure("quiet period", f"{quiet_s:.0f} s")

    states = lab.states()
    verdict.require(all(state == "RUNNING" for state, _ in states.values()),
                    "every program running at the end",
                    ", ".join(f"{n} {s}" for n, (s, _) in states.items() if s != "RUNNING")
                    or "all")
    log = lab.log("supervisord")
    exits = Counter(name for name in PROGRAMS for line in log.splitlines()
                    if f"exited: {name} (" in line and "not expected" in line)
    killed = Counter(f.kind.split()[1] for f in history.faults
                     if f.kind.startswith("kill") and not f.note)
    verdict.figure("exits the nemesis did not cause", ", ".join(
        f"{name} {exits[name] - killed[name]}" for name in PROGRAMS
        if exits[name] > killed[name]) or "none")
    pss_end = pss_mib(lab)
    for name in PROGRAMS:
        if name in pss_start:
            verdict.figure(f"PSS {name}", f"{pss_start[name]:.0f} -> {pss_end.get(name, 0):.0f}"
                           " MiB")
    for name in ("alerts", "ingest", "runner"):
        deaths = lab.log(name).count("Unrecoverable error")
        if deaths:
            verdict.figure(f"{name} log: Unrecoverable error", deaths)
    return verdict


def longest_without_2xx(history: History) -> dict[str, tuple[int, float]]:
    """Per fault kind: how many, and the longest gap between two 2xx answers (to any client)
    that overlaps one of its faults."""
    times = sorted(a.at for a in history.answers
                   if a.status is not None and 200 <= a.status < 300)
    gaps = list(itertools.pairwise(times))
    result: dict[str, tuple[int, float]] = {}
    for kind in sorted({f.kind for f in history.faults if not f.note}):
        faults = [f for f in history.faults if f.kind == kind and not f.note]
        widest = max((b - a for a, b in gaps for f in faults if a <= f.end and b >= f.start),
                     default=0.0)
        result[kind] = (len(faults), widest)
    return result


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


def workload(lab: SupervisedLab, history: History, rng: random.Random, until: float,
             clients: int = CLIENTS, readers: int = 2,
             flooding: threading.Event | None = None,
             budget: int = DEFAULT_BUDGET) -> list[threading.Thread]:
    """The workload's threads, not started: CI clients (paced by the lab's submission
    `budget`), readers, the job launcher and, with `flooding`, the flood client's
    FLOOD_THREADS (flooding while the event is set)."""
    threads = [threading.Thread(target=ci_client, args=(
        f"ci-{i}", lab.ci_tokens[i], lab, history, random.Random(rng.random()), until,
        budget)) for i in range(clients)]
    threads += [threading.Thread(target=reader, args=(
        lab, history, random.Random(rng.random()), until)) for _ in range(readers)]
    threads.append(threading.Thread(target=launcher, args=(
        lab, history, random.Random(rng.random()), until)))
    if flooding is not None:
        threads += [threading.Thread(target=flood_client, args=(
            f"flood-{i}", lab, history, random.Random(rng.random()), until, flooding))
            for i in range(FLOOD_THREADS)]
    return threads


def run(minutes: float, seed: int, faults: tuple[str, ...] = FAULTS, clients: int = CLIENTS,
        readers: int = 2, mean_gap_s: float = 10.0, settle_s: float = 300.0,
        flood: bool = False, budget: int = SOAK_BUDGET) -> Verdict:
    rng = random.Random(seed)
    faults_rng = random.Random(rng.random())  # the same faults with the flood or without
    with prepared_lab(budget) as (lab, receiver):
        pss_start = pss_mib(lab)
        history = History()
        until = time.monotonic() + minutes * 60
        flooding = threading.Event()
        flooding.set()
        threads = workload(lab, history, rng, until, clients, readers,
                           flooding if flood else None, budget)
        threads.append(threading.Thread(target=nemesis, args=(
            lab, receiver, history, faults_rng, until, faults, mean_gap_s)))
        for thread in threads:
            thread.start()
        for thread in threads:
            # A submission may go on SUBMIT_DEADLINE_S past the end.
            thread.join(minutes * 60 + SUBMIT_DEADLINE_S + 60)
        quiet = settle(lab, history, receiver, settle_s)
        verdict = check(lab, history, receiver, quiet, pss_start, flood)
        verdict.figures.insert(0, ("run", f"{minutes:g} min, seed {seed}, "
                                   f"{'flood on' if flood else 'no flood'}, "
                                   f"{budget} submissions per token per {WINDOW_S:g} s, faults: "
                                   f"{', '.join(faults)}; logs were in {lab.data}"))
        if verdict.violations:
            keep = Path(tempfile.mkdtemp(prefix="latlab-chaos-logs-"))
            shutil.copytree(lab.data / "logs", keep / "logs")
            verdict.figure("logs kept", keep)
        return verdict


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--faults", default=",".join(FAULTS),
                        help=f"comma-separated, of: {', '.join(FAULTS)}")
    parser.add_argument("--mean-gap", type=float, default=10.0,
                        help="mean seconds between two faults' starts")
    parser.add_argument("--budget", type=int, default=SOAK_BUDGET,
                        help=f"submissions per token per {WINDOW_S:g} s (the lab's default: "
                        f"{DEFAULT_BUDGET})")
    parser.add_argument("--flood", action="store_true",
                        help="one more CI client, on its own token, flooding submissions")
    args = parser.parse_args()
    kinds = tuple(k.strip() for k in args.faults.split(",") if k.strip())
    unknown = [k for k in kinds if k not in FAULTS]
    if unknown:
        parser.error(f"unknown faults: {unknown}")
    verdict = run(args.minutes, args.seed, kinds, mean_gap_s=args.mean_gap, budget=args.budget,
                  flood=args.flood)
    print(verdict.table())
    for violation in verdict.violations:
        print(f"VIOLATED: {violation}", file=sys.stderr)
    return 1 if verdict.violations else 0


if __name__ == "__main__":
    sys.exit(main())
