"""The generic runner: build a suite's programs once per version, start its servers, run its
load programs (argument lists, never a shell) within the job's time bound, and turn their
output into a `latlab.result/v1` document."""

import ctypes
import fcntl
import json
import os
import re
import selectors
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from latlab_contract import JobSpec, Phase, ProgramInfo
from latlab_workers.parsers import parse_output
from latlab_workers.suites import Program, Suite, SuiteError


class JobError(Exception):
    status = "failed"


class JobTimedOut(JobError):
    status = "timed_out"


class JobCancelled(JobError):
    status = "cancelled"


class Reporter(Protocol):
    def progress(self, phase: Phase, percent: float,
                 programs: list[ProgramInfo] | None = None) -> None: ...


@dataclass(frozen=True)
class HostIdentity:
    name: str
    tags: list[str]
    fingerprint: dict[str, Any]


_PLACEHOLDER = re.compile(r"\{([A-Za-z0-9_.]+)\}")


def render(template: list[str], context: dict[str, str]) -> list[str]:
    """Fills `{name}` placeholders in each argument; the result is an argv list."""
    def value(match: re.Match[str]) -> str:
        key = match.group(1)
        if key not in context:
            raise JobError(f"the suite refers to an unknown value '{{{key}}}'")
        return context[key]

    return [_PLACEHOLDER.sub(value, part) for part in template]


class ProgramGroup:
    """The processes of one job, each in its own process group, all killed together."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.processes: dict[str, subprocess.Popen[bytes]] = {}

    def start(self, name: str, argv: list[str], cwd: Path,
              env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        try:
            process = subprocess.Popen(
                argv, cwd=cwd, env=env, stdout=subprocess.PIPE,
                stderr=open(self.workdir / f"{name}.stderr", "wb"),  # noqa: SIM115
                start_new_session=True, preexec_fn=_die_with_parent,
            )
        except OSError as error:
            raise JobError(f"cannot start {name} ({argv[0]}): {error.strerror}") from error
        self.processes[name] = process
        return process

    def stderr_tail(self, name: str, limit: int = 2000) -> str:
        path = self.workdir / f"{name}.stderr"
        return path.read_text(errors="replace")[-limit:].strip() if path.exists() else ""

    def info(self) -> list[ProgramInfo]:
        return [ProgramInfo(name=name, pid=p.pid) for name, p in self.processes.items()
                if p.poll() is None]

    def kill_all(self) -> None:
        for process in self.processes.values():
            _kill_group(process)


def execute(spec: JobSpec, suite: Suite, host: HostIdentity, reporter: Reporter,
            cache_dir: Path, on_group: Callable[[ProgramGroup], None] | None = None
            ) -> dict[str, Any]:
    deadline = time.monotonic() + spec.timeout_s
    started_at = datetime.now(UTC)
    if spec.scenario not in suite.scenarios:
        raise JobError(f"suite '{suite.id}' has no scenario '{spec.scenario}'")
    params = suite.resolved_params(spec.scenario, spec.params)
    reporter.progress("build", 0.0)
    build_dir = build(suite, cache_dir, deadline)
    context = program_context(params, build_dir)
    try:
        loads = suite.loads(spec.scenario, params)
    except SuiteError as error:
        raise JobError(str(error)) from error
    trials: dict[str, list[dict[str, Any]]] = {load.name: [] for load in loads}
    with tempfile.TemporaryDirectory(prefix=f"latlab-job-{spec.job_id}-") as work:
        group = ProgramGroup(Path(work))
        if on_group is not None:
            on_group(group)
        try:
            reporter.progress("start", 10.0)
            for server in suite.servers():
                context.update(_start_server(group, suite, server, context, deadline))
            steps = spec.repetitions * len(loads)
            for step in range(steps):
                load = loads[step % len(loads)]
                percent = 15.0 + 80.0 * step / steps
                process = group.start(load.name, render(load.command, context), suite.directory)
                reporter.progress("measure", percent, group.info())
                output = _wait_load(group, load, process, deadline)
                trials[load.name].append(parse_output(load.output or "", output, suite))
        finally:
            group.kill_all()
    reporter.progress("report", 95.0)
    return {
        "schema": "latlab.result/v1",
        "suite": suite.id,
        "scenario": spec.scenario,
        "params": params,
        "started_at": started_at.isoformat(),
        "finished_at": datetime.now(UTC).isoformat(),
        "source": {"kind": "job"},
        "host": {"name": host.name, "tags": host.tags, "fingerprint": host.fingerprint},
        "series": [{"labels": load.labels, "trials": trials[load.name]} for load in loads],
    }


def build(suite: Suite, cache_dir: Path, deadline: float) -> Path:
    """Builds the suite's programs once per version into the cache (a lock serialises
    concurrent builds of one version)."""
    build_dir = cache_dir / suite.id / suite.version
    marker = build_dir / ".built"
    if marker.exists():
        return build_dir
    build_dir.mkdir(parents=True, exist_ok=True)
    with open(build_dir / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if marker.exists() or suite.build_command is None:
            marker.touch()
            return build_dir
        context = {"build_dir": str(build_dir)}
        env = {**os.environ, **{k: render([v], context)[0] for k, v in suite.build_env.items()}}
        try:
            completed = subprocess.run(
                render(suite.build_command, context), cwd=suite.directory, env=env,
                capture_output=True, timeout=max(deadline - time.monotonic(), 1), check=False)
        except subprocess.TimeoutExpired as error:
            raise JobTimedOut(f"building {suite.id} ran out of the job's time") from error
        except OSError as error:
            raise JobError(f"cannot build {suite.id}: {error}") from error
        if completed.returncode != 0:
            tail = completed.stderr.decode(errors="replace")[-2000:]
            raise JobError(f"building {suite.id} failed ({completed.returncode}): {tail}")
        marker.touch()
    return build_dir


def _start_server(group: ProgramGroup, suite: Suite, server: Program,
                  context: dict[str, str], deadline: float) -> dict[str, str]:
    process = group.start(server.name, render(server.command, context), suite.directory)
    assert process.stdout is not None
    values: dict[str, str] = {}
    if server.ready == "stdout-json":
        line = _read_line(process.stdout, min(deadline, time.monotonic() + 60))
        if not line:
            raise JobError(f"{server.name} did not become ready: {group.stderr_tail(server.name)}")
        try:
            announced = json.loads(line)
        except json.JSONDecodeError as error:
            raise JobError(f"{server.name} announced {line!r}, not JSON") from error
        values = {f"{server.name}.{k}": _text(v) for k, v in announced.items()}
    # Keep draining stdout so a chatty server never blocks on a full pipe.
    threading.Thread(target=lambda: process.stdout.read() if process.stdout else None,
                     daemon=True).start()
    return values


def _wait_load(group: ProgramGroup, load: Program, process: subprocess.Popen[bytes],
               deadline: float) -> str:
    try:
        stdout, _ = process.communicate(timeout=max(deadline - time.monotonic(), 0.1))
    except subprocess.TimeoutExpired as error:
        _kill_group(process)
        raise JobTimedOut(f"{load.name} ran past the job's time limit") from error
    if process.returncode != 0:
        raise JobError(f"{load.name} exited with {process.returncode}: "
                       f"{group.stderr_tail(load.name)}")
    return stdout.decode()


def _read_line(stream: Any, deadline: float) -> str:
    selector = selectors.DefaultSelector()
    selector.register(stream, selectors.EVENT_READ)
    buffer = b""
    while time.monotonic() < deadline and not buffer.endswith(b"\n"):
        if not selector.select(timeout=max(deadline - time.monotonic(), 0)):
            break
        chunk = os.read(stream.fileno(), 1)
        if not chunk:
            break
        buffer += chunk
    selector.close()
    return buffer.decode(errors="replace").strip()


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=3)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
    except ProcessLookupError:
        pass


_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    # Programs die with the runner even when it is SIGKILLed.
    ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def program_context(params: dict[str, Any], build_dir: Path) -> dict[str, str]:
    """The placeholders a suite's command lines may use, before any server has announced
    itself: every parameter as text, `build_dir`, and `python` (the runner's interpreter, for
    Python load programs)."""
    context = {name: _text(value) for name, value in params.items()}
    context["build_dir"] = str(build_dir)
    context["python"] = sys.executable
    return context


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@contextmanager
def cancellable(group_holder: list[ProgramGroup]) -> Iterator[None]:
    """Turns SIGTERM (a revoke with terminate) into JobCancelled after killing the programs."""
    def on_term(signum: int, frame: object) -> None:
        for group in group_holder:
            group.kill_all()
        raise JobCancelled("cancelled")

    previous = signal.signal(signal.SIGTERM, on_term)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
