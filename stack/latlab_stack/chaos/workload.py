"""The chaos soak's workload (`latlab_stack.chaos`): CI clients submitting runs as a CI step
would, a flood, readers on the heaviest routes, a job launcher; each answer kept in the history
the checker reads."""

import contextlib
import hashlib
import json
import random
import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import httpx

from latlab.core.settings import Settings as LabSettings
from latlab_cli.client import Lab
from latlab_cli.config import Settings
from latlab_cli.errors import Rejected, Unreachable
from latlab_stack.chaos.lab import CLIENTS, SupervisedLab

JOB = {"suite": "echo", "params": {"count": 2000, "warmup": 100}, "repetitions": 1,
       "timeout_s": 60}
SUBMIT_DEADLINE_S = 120  # a CI step's patience with one submission


# Fair use as the lab's defaults set it: submissions per token per window.
DEFAULT_BUDGET: int = LabSettings.model_fields["submissions_per_caller"].default
WINDOW_S: float = LabSettings.model_fields["rate_window_s"].default


# --- the workload ---------------------------------------------------------------------------

@dataclass
class Fault:
    kind: str  # "kill api", "stop postgres", "500 receiver", ...
    start: float
    end: float
    note: str = ""


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
    faults: list[Fault] = field(default_factory=list)

    def now(self) -> float:
        return time.monotonic() - self.started

    def record(self, route: str, response: httpx.Response | None) -> None:
        self.answers.append(Answer(
            self.now(), route, None if response is None else response.status_code,
            None if response is None else response.headers.get("Retry-After")))


class RecordingLab(Lab):
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
