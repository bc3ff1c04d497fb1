"""The runner worker: one per lab host, consuming `host.<name>`.

    LATLAB_HOST_NAME=lab-07 LATLAB_HOST_TAGS=hft-tuned,x86 \
        celery -A latlab_workers.app worker -Q host.lab-07 -c 1

It announces itself (name, tags, fingerprint, suites) at start and every ~10 s, executes job
specs with the generic runner, and sends progress and outcomes to the ingest queue.
"""

import contextlib
import multiprocessing
import os
import signal
import sys
import threading
import time
from typing import Any

import redis
from celery import Celery
from celery.exceptions import SoftTimeLimitExceeded
from celery.signals import worker_process_init, worker_ready, worker_shutdown

from latlab_contract import (
    EXECUTE_JOB,
    HOST_HEARTBEAT,
    INGEST_QUEUE,
    JOB_EVENT,
    JOB_OUTCOME,
    Attempt,
    Heartbeat,
    JobEvent,
    JobOutcome,
    JobSpec,
    Phase,
    ProgramInfo,
    attempt_key,
    host_queue,
)
from latlab_contract.broker import (
    BROKER_ERRORS,
    CELERY_DEFAULTS,
    TRANSPORT_OPTIONS,
    runner_transport_keys,
)
from latlab_contract.signing import seal
from latlab_workers.errors import JobError
from latlab_workers.fingerprint import read_fingerprint
from latlab_workers.processes import ProgramGroup, cancellable, die_with_parent
from latlab_workers.runner import HostIdentity, execute
from latlab_workers.settings import get_settings
from latlab_workers.suites import load_suites

settings = get_settings()
if not settings.host_key:
    sys.exit(f"host {settings.host_name} is not enrolled (no LATLAB_HOST_KEY): ask the lab's "
             "admin for an invitation and run `latlab-runner join <lab url> <code>`")
HOST_KEY: str = settings.host_key
app = Celery("latlab-runner", broker=settings.redis_url)
app.conf.update(
    CELERY_DEFAULTS,
    worker_concurrency=1,
    # Nothing reaches a runner but its queue: no remote control (a cancel is read from the
    # lab's state, `_EventReporter`).
    worker_enable_remote_control=False,
    broker_use_ssl=settings.broker_tls,
    task_default_queue=host_queue(settings.host_name),
    # Lost jobs are found by the api's watchdog; the broker must not redeliver a long job
    # that is still running. The messages it holds are under keys of its host's own, the only
    # ones beside its queue its broker user may touch (`runner_acl_rules`).
    broker_transport_options={**TRANSPORT_OPTIONS, "visibility_timeout": 7 * 3600,
                              **runner_transport_keys(settings.host_name)},
)
_stop = threading.Event()
# A job's outcome waits this long for a broker that is away (then the api's watchdog retries
# the job); progress events are repeated anyway and are not waited for.
OUTCOME_PATIENCE_S = 600.0


_reported: set[str] = set()


def _report(error: Exception) -> None:
    if str(error) not in _reported:  # once, not at every heartbeat
        _reported.add(str(error))
        print(f"suite not offered: {error}", file=sys.stderr, flush=True)


# The attempt the pool process is executing (job id, attempt, the process's pid; zeros when
# none), made before the pool forks so the heartbeat thread of the main process reads it.
_running = multiprocessing.RawArray("q", 3)
# How long a task waits for Redis to say whether the lab still expects its attempt.
EXPECTED_PATIENCE_S = 10.0


def running() -> Attempt | None:
    """The attempt this runner is executing: told to the lab with every heartbeat, so a host
    still busy with work the lab gave up on is given nothing more."""
    job_id, attempt, pid = _running
    if not pid:
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:  # the pool process died mid-job: nothing runs
        return None
    return Attempt(job_id=job_id, attempt=attempt)


def heartbeat() -> Heartbeat:
    return Heartbeat(
        name=settings.host_name, tags=settings.tags, address=settings.host_address,
        fingerprint=read_fingerprint(),
        suites=[s.info() for s in load_suites(settings.suites_dir, on_error=_report).values()],
        running=running(),
    )


def _lab_state() -> redis.Redis:
    """A connection to the broker's Redis for reading the lab's `attempt_key`s."""
    return redis.Redis.from_url(settings.redis_url, socket_timeout=2, socket_connect_timeout=2,
                                **(settings.broker_tls or {}))


def expected(job_id: int, task_id: str) -> bool:
    """Whether the lab still expects the attempt of this task (`attempt_key`): an attempt it
    superseded, failed or cancelled while the task waited in the queue is not started. Redis
    away for EXPECTED_PATIENCE_S: not started either (the lab's watchdog runs the job again)."""
    client = _lab_state()
    deadline = time.monotonic() + EXPECTED_PATIENCE_S
    try:
        while True:
            try:
                if client.get(attempt_key(job_id)) == task_id.encode():
                    return True
                print(f"job {job_id}: the lab no longer expects this attempt; not started",
                      flush=True)
                return False
            except redis.RedisError as error:
                if time.monotonic() >= deadline:
                    print(f"job {job_id}: cannot ask whether it is still expected ({error}); "
                          "not started", flush=True)
                    return False
                time.sleep(1.0)
    finally:
        client.close()


def _signed(task: str, body: dict[str, Any]) -> None:
    """Sends `body` as `task` to the ingest queue, signed with the host's key."""
    app.send_task(task, kwargs={"message": seal(HOST_KEY, task, settings.host_name, body)},
                  queue=INGEST_QUEUE)


def _send(task: str, body: dict[str, Any], patience_s: float = 0.0) -> bool:
    """Sends `task` to the ingest queue, trying again every second for `patience_s` while the
    broker is away; says whether it left."""
    deadline = time.monotonic() + patience_s
    while True:
        try:
            _signed(task, body)
            return True
        except BROKER_ERRORS as error:
            if time.monotonic() >= deadline:
                print(f"{task} not sent, the broker is away: {error}", flush=True)
                return False
            time.sleep(1.0)


def _announce_forever() -> None:
    while not _stop.is_set():
        try:
            _signed(HOST_HEARTBEAT, heartbeat().model_dump(mode="json"))
        except Exception as error:  # the broker may be briefly away; keep announcing
            print(f"heartbeat failed: {error}", flush=True)
        _stop.wait(settings.heartbeat_s)


@worker_process_init.connect
def _die_with_the_worker(**_: Any) -> None:
    """A pool process, and so its job's programs, dies with the worker's main process, even a
    SIGKILLed one: nothing is left running, and the api's watchdog runs the job again."""
    die_with_parent()


@worker_ready.connect
def _start_announcing(**_: Any) -> None:
    threading.Thread(target=_announce_forever, name="heartbeat", daemon=True).start()


@worker_shutdown.connect
def _stop_announcing(**_: Any) -> None:
    _stop.set()


class _EventReporter:
    """Sends progress, and repeats the last one every few seconds so the api knows the job
    is alive during a long measurement. Each time it also asks whether the lab still expects
    the attempt: one the lab ended (cancelled, failed, given up on) or superseded is stopped,
    its programs killed, as SIGTERM stops it (`processes.cancellable`). That is how a cancel
    reaches a runner: through the lab's own state, not a broadcast any broker client could
    send. A key Redis lost (a restart) stops nothing; the lab's watchdog decides then."""

    def __init__(self, spec: JobSpec, task_id: str) -> None:
        self.spec = spec
        self.task_id = task_id.encode()
        self.last = JobEvent(job_id=spec.job_id, attempt=spec.attempt, status="running")
        self.done = threading.Event()
        self.lock = threading.Lock()
        threading.Thread(target=self._keepalive, daemon=True).start()

    def progress(self, phase: Phase, percent: float,
                 programs: list[ProgramInfo] | None = None) -> None:
        with self.lock:
            self.last = JobEvent(job_id=self.spec.job_id, attempt=self.spec.attempt,
                                 phase=phase, progress=percent,
                                 programs=self.last.programs if programs is None else programs)
        self.send(self.last)

    def send(self, event: JobEvent, patience_s: float = 0.0) -> None:
        _send(JOB_EVENT, event.model_dump(mode="json"), patience_s)

    def _keepalive(self) -> None:
        with contextlib.closing(_lab_state()) as lab:
            while not self.done.wait(settings.event_interval_s):
                with self.lock:
                    event = self.last
                self.send(event)
                if not self._expected(lab):
                    print(f"job {self.spec.job_id}: the lab no longer expects attempt "
                          f"{self.spec.attempt}; stopping it", flush=True)
                    os.kill(os.getpid(), signal.SIGTERM)
                    return

    def _expected(self, lab: redis.Redis) -> bool:
        try:
            value = lab.get(attempt_key(self.spec.job_id))
        except redis.RedisError:
            return True  # the broker away: nothing is known, nothing is stopped
        return value is None or value == self.task_id


@app.task(name=EXECUTE_JOB, bind=True)
def execute_job(task: Any, spec: dict[str, Any]) -> None:
    """Executes one frozen job spec, when the lab still expects it, and reports its outcome
    (or why it ended)."""
    job = JobSpec.model_validate(spec)
    if not expected(job.job_id, task.request.id):
        return
    _running[:] = [job.job_id, job.attempt, os.getpid()]
    try:
        _execute(job, task.request.id)
    finally:
        _running[:] = [0, 0, 0]


def _execute(job: JobSpec, task_id: str) -> None:
    reporter = _EventReporter(job, task_id)
    reporter.send(reporter.last)
    groups: list[ProgramGroup] = []
    host = HostIdentity(settings.host_name, settings.tags, dict(read_fingerprint()))
    try:
        with cancellable(groups):
            suites = load_suites(settings.suites_dir, on_error=_report)
            if job.suite not in suites:
                raise JobError(f"host {settings.host_name} has no suite '{job.suite}'")
            result = execute(job, suites[job.suite], host, reporter, settings.build_cache,
                             on_group=groups.append)
        reporter.done.set()
        _send(JOB_OUTCOME, JobOutcome(
            job_id=job.job_id, attempt=job.attempt,
            result=result.model_dump(mode="json", by_alias=True, exclude_none=True),
        ).model_dump(mode="json"), OUTCOME_PATIENCE_S)
    except (JobError, SoftTimeLimitExceeded, Exception) as error:
        reporter.done.set()
        status = error.status if isinstance(error, JobError) else (
            "timed_out" if isinstance(error, SoftTimeLimitExceeded) else "failed")
        reporter.send(JobEvent(job_id=job.job_id, attempt=job.attempt, status=status,
                               error=str(error) or type(error).__name__), OUTCOME_PATIENCE_S)
        for group in groups:
            group.kill_all()
