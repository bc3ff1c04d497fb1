"""The profilers a profiled trial attaches to its programs (`perf`, py-spy, async-profiler's
agent), each recording one program and giving its folded stacks when stopped; and the
process handling they share. `profiles.Session` chooses and runs them."""

import contextlib
import logging
import mmap
import os
import select
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import IO, Literal, Protocol

from latlab_workers.processes import die_with_parent, read_line
from latlab_workers.stacks import Stacks, fold_collapsed, fold_perf_script

log = logging.getLogger(__name__)

Tool = Literal["perf", "py-spy", "async-profiler"]

PERF_HZ = 997  # about 1 kHz, off the beat of the programs' own millisecond timers
RATE_HZ = 1000  # py-spy and async-profiler sample every millisecond
# Bytes of stack perf copies per sample to unwind: 8 KB cut tokio's stacks short (90 % of the
# order server's samples ended in [unknown]), 16 KB none.
_DWARF_STACK = "dwarf,16384"
_PERF_DATA_LIMIT = "1G"  # 16 KB a sample: about a minute of two busy threads
_ATTACH_S = 10.0  # how long a profiler may take to attach (perf takes ~0.5 s on a busy host)
_STOP_S = 30.0  # how long it may take to write its profile once stopped
# async-profiler's output: folded stacks, classes named with dots (java.lang.String, not
# java/lang/String) and lambdas' generated class names without their addresses (`norm`), so the
# same code has the same frames in every run. Its `cpu` event samples through perf_events where
# the host allows them (1 kHz here) and per-thread CPU timers otherwise; `itimer` and `ctimer`
# were held to the kernel's 250 Hz tick here.
_DUMP = "collapsed,dot,norm"


class Skipped(Exception):
    """Why a program's profile is left out."""


class _Recording(Protocol):
    tool: Tool
    frequency_hz: float

    def stop(self, deadline: float) -> Stacks: ...

    def kill(self) -> None: ...


class _Perf:
    """`perf record` on a running program; its samples are unwound (`perf script`) and folded
    once it stops."""

    tool: Tool = "perf"
    frequency_hz: float = PERF_HZ

    def __init__(self, pid: int, workdir: Path, name: str, env: dict[str, str],
                 deadline: float) -> None:
        perf = _on_path("perf", env, "perf is not on the PATH (Debian's linux-perf)")
        self.perf = perf
        self.env = env
        self.data = workdir / f"profile-{name}.perf.data"
        self.log = workdir / f"profile-{name}.perf.log"
        call_graph = ["-g"] if _is_go(Path(f"/proc/{pid}/exe")) else [
            "--call-graph", _DWARF_STACK]
        # Recording starts disabled; perf acknowledges "enable" once it samples the program,
        # so the load never starts before it is watched.
        control_in, self.control = os.pipe()
        self.ack, ack_out = os.pipe()
        try:
            with open(self.log, "wb") as output:
                self.process = _spawn(
                    [perf, "record", "-F", str(PERF_HZ), *call_graph, "--max-size",
                     _PERF_DATA_LIMIT, "-D", "-1", f"--control=fd:{control_in},{ack_out}",
                     "-o", str(self.data), "-p", str(pid)],
                    env, output, pass_fds=(control_in, ack_out))
        except OSError:
            self._close_pipes()
            raise
        finally:
            os.close(control_in)
            os.close(ack_out)
        with contextlib.suppress(OSError):  # perf has exited: the log says why, below
            os.write(self.control, b"enable\n")
        if not _acknowledged(self.ack, min(deadline, time.monotonic() + _ATTACH_S)):
            self.kill()
            raise Skipped(f"perf did not start: {_tail(self.log)}")

    def stop(self, deadline: float) -> Stacks:
        try:
            _interrupt(self.process, deadline)
        finally:
            self._close_pipes()
        try:
            if not self.data.exists():
                raise Skipped(f"perf recorded nothing: {_tail(self.log)}")
            with open(self.log, "ab") as output:
                script = _spawn([self.perf, "script", "-i", str(self.data)], self.env,
                                output, stdout=subprocess.PIPE)
            assert script.stdout is not None
            timer = threading.Timer(max(deadline - time.monotonic(), 0.0), script.kill)
            timer.start()
            try:
                stacks = fold_perf_script(_text_lines(script.stdout))
            finally:
                timer.cancel()
                script.stdout.close()
                script.wait()
        finally:
            self.data.unlink(missing_ok=True)
        if script.returncode == -signal.SIGKILL:
            raise Skipped("unwinding its samples ran out of the job's time")
        return stacks

    def kill(self) -> None:
        _kill(self.process)
        self._close_pipes()

    def _close_pipes(self) -> None:
        for fd in (self.control, self.ack):
            if fd >= 0:
                os.close(fd)
        self.control = self.ack = -1


class _PySpy:
    """`py-spy record` on a running Python program; it writes folded stacks when stopped or
    when the program ends. It samples the thread that holds the GIL (`--gil`): its guess of
    which threads are idle counts one blocked in recv or sleep as busy (a load waiting on its
    server had 70 % of its samples in the wait), and a CPU profile is of running code. Frames
    are functions, named with their first line (`--function`), not each line run."""

    tool: Tool = "py-spy"
    frequency_hz: float = RATE_HZ

    def __init__(self, pid: int, workdir: Path, name: str, env: dict[str, str],
                 deadline: float) -> None:
        py_spy = _on_path("py-spy", env, "py-spy is not installed (a dependency of the runner)")
        self.output = workdir / f"profile-{name}.py-spy.txt"
        self.log = workdir / f"profile-{name}.py-spy.log"
        give_up = min(deadline, time.monotonic() + _ATTACH_S)
        while True:
            with open(self.log, "wb") as errors:
                process = _spawn([py_spy, "record", "-r", str(RATE_HZ), "--gil",
                                  "--function", "-f", "raw", "-o", str(self.output),
                                  "--pid", str(pid)], env, errors, stdout=subprocess.PIPE)
            assert process.stdout is not None
            if read_line(process.stdout, give_up).startswith("py-spy> Sampling"):
                break
            _kill(process)
            process.stdout.close()
            # A Python program just started has no interpreter to find yet: try again.
            if time.monotonic() >= give_up or not Path(f"/proc/{pid}").exists():
                raise Skipped(f"py-spy could not attach: {_tail(self.log, first=True)}")
            time.sleep(0.1)
        self.process = process
        # Nobody reads its later messages; they must not fill the pipe and stall it.
        threading.Thread(target=process.stdout.read, daemon=True).start()

    def stop(self, deadline: float) -> Stacks:
        _interrupt(self.process, deadline)
        if not self.output.exists():
            raise Skipped(f"py-spy wrote no profile: {_tail(self.log, first=True)}")
        with open(self.output, errors="replace") as lines:
            return fold_collapsed(lines)

    def kill(self) -> None:
        _kill(self.process)


class _Agent:
    """async-profiler's agent in a JVM, its profile written to `output`."""

    tool: Tool = "async-profiler"
    frequency_hz: float = RATE_HZ

    def __init__(self, library: Path, workdir: Path, name: str) -> None:
        self.library = library
        self.output = workdir / f"profile-{name}.collapsed"

    def stop(self, deadline: float) -> Stacks:
        if not self.output.exists():
            raise Skipped("the JVM wrote no profile (it writes it as it exits normally)")
        with open(self.output, errors="replace") as lines:
            return fold_collapsed(lines)

    def kill(self) -> None:
        pass  # it ends with its JVM


class _AgentAtStart(_Agent):
    """The agent loaded as the JVM starts; it writes the profile as the JVM exits."""

    def env(self, env: dict[str, str]) -> dict[str, str]:
        agent = (f"-agentpath:{self.library}=start,event=cpu,interval=1ms,{_DUMP},"
                 f"file={self.output}")
        options = f"{env.get('JAVA_TOOL_OPTIONS', '')} {agent}".strip()
        return {**env, "JAVA_TOOL_OPTIONS": options}


class _AgentAttached(_Agent):
    """The agent loaded into a running JVM (a server) through `jcmd`, which passes each
    command to it: start, then stop and write the profile."""

    def __init__(self, pid: int, argv: list[str], library: Path, workdir: Path, name: str,
                 env: dict[str, str], deadline: float) -> None:
        super().__init__(library, workdir, name)
        java = shutil.which(argv[0], path=env.get("PATH"))
        jcmd = Path(os.path.realpath(java)).parent / "jcmd" if java else None
        if jcmd is None or not jcmd.is_file():
            raise Skipped(f"no jcmd beside {argv[0]} (a JDK's) to load the agent")
        self.jcmd = jcmd
        self.pid = pid
        self.env = env
        self._command("start,event=cpu,interval=1ms", deadline)

    def stop(self, deadline: float) -> Stacks:
        self._command(f"stop,{_DUMP},file={self.output}", deadline)
        return super().stop(deadline)

    def _command(self, command: str, deadline: float) -> None:
        # jcmd reads `key=value` arguments: the agent's options go as one quoted argument.
        completed = subprocess.run(
            [str(self.jcmd), str(self.pid), "JVMTI.agent_load", str(self.library),
             f'"{command}"'], env=self.env, capture_output=True, text=True, check=False,
            timeout=max(min(deadline - time.monotonic(), _ATTACH_S), 1.0))
        if completed.returncode != 0 or "return code: 0" not in completed.stdout:
            said = (completed.stdout + completed.stderr).strip().splitlines()
            raise Skipped(f"jcmd could not {command.split(',')[0]} the agent: "
                          f"{said[-1] if said else completed.returncode}")


def _on_path(tool: str, env: dict[str, str], missing: str) -> str:
    """Where `tool` is on the program's PATH; Skipped, saying `missing`, when it is not."""
    found = shutil.which(tool, path=env.get("PATH"))
    if found is None:
        raise Skipped(missing)
    return found


def _stopped(pid: int, deadline: float) -> bool:
    """Whether the process stops (itself) by the deadline."""
    while time.monotonic() < deadline:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return False
        state = stat[stat.rindex(")") + 2]
        if state == "T":
            return True
        if state in "ZX":
            return False
        time.sleep(0.005)
    return False


def _is_go(executable: Path) -> bool:
    """A Go binary (its build information's magic, as Go's own debug/buildinfo finds it)."""
    try:
        with open(executable, "rb") as file, mmap.mmap(file.fileno(), 0,
                                                       access=mmap.ACCESS_READ) as data:
            return data.find(b"\xff Go buildinf:") >= 0
    except (OSError, ValueError):
        return False


def _spawn(argv: list[str], env: dict[str, str], output: IO[bytes],
           stdout: int | IO[bytes] | None = None,
           pass_fds: tuple[int, ...] = ()) -> subprocess.Popen[bytes]:
    """A profiler, in a session of its own (signalled alone), dying with the runner."""
    return subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL,
                            stdout=output if stdout is None else stdout, stderr=output,
                            pass_fds=pass_fds, start_new_session=True,
                            preexec_fn=die_with_parent)


def _acknowledged(fd: int, deadline: float) -> bool:
    readable, _, _ = select.select([fd], [], [], max(deadline - time.monotonic(), 0.0))
    return bool(readable) and os.read(fd, 16).startswith(b"ack")


def _interrupt(process: subprocess.Popen[bytes], deadline: float) -> None:
    """Stops a profiler as Ctrl-C would, so it writes what it has."""
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=max(min(deadline - time.monotonic(), _STOP_S), 1.0))
    except subprocess.TimeoutExpired as error:
        _kill(process)
        raise Skipped("it did not stop when interrupted") from error


def _kill(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.kill()
        process.wait()


def _text_lines(stream: IO[bytes]) -> Iterable[str]:
    for line in stream:
        yield line.decode(errors="replace")


def _tail(path: Path, first: bool = False) -> str:
    """What a profiler said: its last line, or its first (py-spy's error comes first, its
    backtrace after)."""
    try:
        lines = [line for line in path.read_text(errors="replace").splitlines() if line.strip()]
    except OSError:
        return "(no output)"
    if not lines:
        return "(no output)"
    return (lines[0] if first else lines[-1]).strip()[:300]
