"""The job's programs as processes: each started from an argument list in its own process
group, dying with the runner, killed group by group; what they inherit from the runner, and
what is read from them (a readiness line, /proc status)."""

import ctypes
import os
import selectors
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from latlab_contract import ProgramInfo
from latlab_workers.errors import JobCancelled, JobError
from latlab_workers.scheduling import Scheduling


class ProgramGroup:
    """The processes of one job, each in its own process group, all killed together."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        # What each program's scheduling became, read from it once it ran (tuning lines).
        self.scheduled: dict[str, dict[str, str]] = {}

    def start(self, name: str, argv: list[str], cwd: Path, env: dict[str, str] | None = None,
              log_only: bool = False, cpus: frozenset[int] | None = None,
              scheduling: Scheduling | None = None,
              preexec: Callable[[], None] | None = None) -> subprocess.Popen[bytes]:
        """Starts a program; `cpus` pins it (and every thread it will start) before it runs,
        `scheduling` sets its policy and memory placement likewise, then `preexec` runs (a
        sandbox's, which may give up root). Its stdout is a pipe unless `log_only` (then it
        goes to the log beside its stderr, as for a helper whose output nobody reads)."""
        def before_exec() -> None:
            if cpus:
                os.sched_setaffinity(0, cpus)
            if scheduling is not None:
                scheduling.before_exec()
            if preexec is not None:
                preexec()
            die_with_parent()  # last: a change of user clears it

        with open(self.workdir / f"{name}.stderr", "wb") as log:  # the program keeps a copy
            try:
                process = subprocess.Popen(
                    argv, cwd=cwd, env=env, stdout=log if log_only else subprocess.PIPE,
                    stderr=log, start_new_session=True, preexec_fn=before_exec,
                )
            except (OSError, subprocess.SubprocessError) as error:
                reason = error.strerror if isinstance(error, OSError) else str(error)
                raise JobError(f"cannot start {name} ({argv[0]}): {reason}") from error
        self.processes[name] = process
        self.scheduled[name] = {} if scheduling is None else scheduling.applied(process.pid)
        return process

    def stderr_tail(self, name: str, limit: int = 2000) -> str:
        path = self.workdir / f"{name}.stderr"
        return path.read_text(errors="replace")[-limit:].strip() if path.exists() else ""

    def info(self) -> list[ProgramInfo]:
        return [ProgramInfo(name=name, pid=p.pid) for name, p in self.processes.items()
                if p.poll() is None]

    def kill_all(self) -> None:
        for process in self.processes.values():
            kill_group(process)


def kill_group(process: subprocess.Popen[bytes]) -> None:
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


def die_with_parent() -> None:
    # Programs die with the runner even when it is SIGKILLed.
    ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


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


def program_env() -> dict[str, str]:
    """Programs find the runner's tools (pip and go installed, next to its interpreter)."""
    tools = str(Path(sys.executable).parent)
    return {**os.environ, "PATH": f"{tools}{os.pathsep}{os.environ.get('PATH', '')}"}


def read_line(stream: Any, deadline: float) -> str:
    """One line from a program's stdout (its readiness line), or what came before the
    deadline or the end of the stream."""
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


def status_field(pid: int, field: str) -> int | None:
    """A number (kB) from /proc/<pid>/status, or None when the process is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None
