"""CPU profiles on request (`JobSpec.profile`): after a job's repetitions the runner runs one
more trial of each series, in which each of its programs is sampled at about 1 kHz by the
profiler its kind takes, and keeps only the folded stacks (the trial enters no statistic).

- Native programs: `perf record` attached to the pid. Stacks are unwound from a copy of the
  stack (DWARF): our Rust and C builds omit frame pointers, so frame-pointer stacks stop after
  a frame or two. Go binaries are the exception: they keep frame pointers and have no unwind
  tables perf reads (DWARF stacks stop after one frame).
- Python programs: `py-spy record --pid`, the thread running Python code (holding the GIL)
  sampled; its raw output is folded stacks already.
- JVM programs: async-profiler's agent, from the folder the suite unpacks it into (the
  program's `async_profiler`): the load's JVM starts with it (JAVA_TOOL_OPTIONS, its profile
  written as the JVM exits); a running server's JVM loads it through `jcmd`.

A profiler that cannot run skips its program, saying why in the job's log: profiling never
fails a job its programs did not fail.
"""

import contextlib
import logging
import mmap
import os
import platform
import re
import select
import shutil
import signal
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import IO, Literal, Protocol

from pydantic import ValidationError

from latlab_contract.result import (
    MAX_PROFILE_CHARS,
    MAX_PROFILE_DEPTH,
    MAX_PROFILE_STACKS,
    MAX_PROFILES,
    ProfileIn,
)
from latlab_workers.processes import die_with_parent, read_line

log = logging.getLogger(__name__)

Tool = Literal["perf", "py-spy", "async-profiler"]
Stacks = Counter[tuple[str, ...]]

PERF_HZ = 997  # about 1 kHz, off the beat of the programs' own millisecond timers
RATE_HZ = 1000  # py-spy and async-profiler sample every millisecond
# Bytes of stack perf copies per sample to unwind: 8 KB cut tokio's stacks short (90 % of the
# order server's samples ended in [unknown]), 16 KB none.
_DWARF_STACK = "dwarf,16384"
_PERF_DATA_LIMIT = "1G"  # 16 KB a sample: about a minute of two busy threads
_ATTACH_S = 10.0  # how long a profiler may take to attach (perf takes ~0.5 s on a busy host)
_STOP_S = 30.0  # how long it may take to write its profile once stopped
# Seconds a profiled trial may need beyond twice the job's longest trial so far (the profilers
# attach, slow the programs a little, and perf's samples are unwound afterwards).
_PROFILE_MARGIN_S = 15.0
# async-profiler's output: folded stacks, classes named with dots (java.lang.String, not
# java/lang/String) and lambdas' generated class names without their addresses (`norm`), so the
# same code has the same frames in every run. Its `cpu` event samples through perf_events where
# the host allows them (1 kHz here) and per-thread CPU timers otherwise; `itimer` and `ctimer`
# were held to the kernel's 250 Hz tick here.
_DUMP = "collapsed,dot,norm"
# A load that stops itself, to be resumed as its own program (`exec` keeps the pid) once its
# profiler is attached; its arguments are passed as they are, never through the shell's parser.
_STOPPED = ["/bin/sh", "-c", 'kill -STOP "$$" && exec "$@"']
_UNKNOWN = "[unknown]"
_END_OF_STACK = "ffffffffffffffff"  # a return address of 0, less 1 (perf's call site)
_TRUNCATED = "[truncated]"


class Session:
    """The profilers of one profiled trial of a series: attached to its servers before the
    load starts and to the load as it starts, stopped after it ends (`finish`)."""

    def __init__(self, workdir: Path, env: dict[str, str], deadline: float,
                 labels: dict[str, str]) -> None:
        self.workdir = workdir
        self.env = env
        self.deadline = deadline
        self.labels = labels
        self.recordings: dict[str, _Recording] = {}
        self.tried: set[str] = set()
        self.stopped: set[str] = set()  # loads started stopped, waiting for their profiler

    def load_command(self, name: str, argv: list[str], agent: str | None
                     ) -> tuple[list[str], dict[str, str]]:
        """How to start the load for its profiler (`attach` it once started). A native one
        starts stopped, perf attaching before it runs: perf follows the threads a program
        starts once attached, not those it starts while perf attaches. A JVM loads
        async-profiler's agent as it starts (it cannot be attached to until later)."""
        tool = tool_for(argv)
        if tool == "perf":
            self.stopped.add(name)
            return [*_STOPPED, name, *argv], self.env
        if tool == "py-spy":
            return argv, self.env
        self.tried.add(name)
        try:
            recording = _AgentAtStart(agent_library(agent), self.workdir, name)
        except Skipped as error:
            self._skip(name, tool, str(error))
            return argv, self.env
        self.recordings[name] = recording
        return argv, recording.env(self.env)

    def attach(self, name: str, argv: list[str], pid: int, agent: str | None) -> None:
        """Starts sampling a running program, returning once its profiler samples it (a
        load started stopped is resumed then, profiled or not)."""
        if name in self.stopped:
            try:
                if _stopped(pid, self.deadline):
                    self._attach(name, argv, pid, agent)
            finally:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGCONT)
        elif name not in self.tried:
            self._attach(name, argv, pid, agent)

    def _attach(self, name: str, argv: list[str], pid: int, agent: str | None) -> None:
        self.tried.add(name)
        tool = tool_for(argv)
        try:
            if tool == "perf":
                recording: _Recording = _Perf(pid, self.workdir, name, self.env, self.deadline)
            elif tool == "py-spy":
                recording = _PySpy(pid, self.workdir, name, self.env, self.deadline)
            else:
                recording = _AgentAttached(pid, argv, agent_library(agent), self.workdir, name,
                                           self.env, self.deadline)
        except (Skipped, OSError, subprocess.SubprocessError) as error:
            self._skip(name, tool, str(error))
            return
        self.recordings[name] = recording

    def finish(self, room: int = MAX_PROFILES) -> list[ProfileIn]:
        """Stops the profilers and returns a profile for each program that has samples, at
        most `room` of them (what the result still holds)."""
        profiles: list[ProfileIn] = []
        for name, recording in self.recordings.items():
            try:
                if len(profiles) == room:
                    recording.kill()
                    raise Skipped(f"a result holds {MAX_PROFILES} profiles")
                stacks = recording.stop(self.deadline)
                if not stacks:
                    raise Skipped("no samples (did it use the CPU?)")
                profiles.append(ProfileIn(
                    labels=self.labels, program=name, tool=recording.tool,
                    frequency_hz=recording.frequency_hz,
                    folded=folded_text(stacks, f"{name} of {self.labels}")))
            except (Skipped, OSError, subprocess.SubprocessError, ValidationError) as error:
                self._skip(name, recording.tool, str(error))
        self.recordings.clear()
        return profiles

    def close(self) -> None:
        """Ends the profilers still running (the trial failed)."""
        for recording in self.recordings.values():
            recording.kill()
        self.recordings.clear()

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    def _skip(self, name: str, tool: str, reason: str) -> None:
        log.warning("series %s: no %s profile of %s: %s", self.labels, tool, name, reason)


class Skipped(Exception):
    """Why a program's profile is left out."""


def tool_for(argv: list[str]) -> Tool:
    """The profiler of a program, from its command: a Python interpreter's or a JVM's, or
    perf for native code (Rust, C, C++, Go, Zig)."""
    name = Path(argv[0]).name
    if re.fullmatch(r"(python|pypy)[0-9.]*", name):
        return "py-spy"
    if name == "java":
        return "async-profiler"
    return "perf"


def skip_reason(deadline: float, longest_trial_s: float, made: int) -> str | None:
    """Why the next profiled trial is not run, if it must not be: it would risk the job's time
    limit, or the result holds no more profiles."""
    if made >= MAX_PROFILES:
        return f"a result holds {MAX_PROFILES} profiles"
    if deadline - time.monotonic() < 2 * longest_trial_s + _PROFILE_MARGIN_S:
        return "too little of the job's time is left"
    return None


def agent_library(folder: str | None) -> Path:
    """async-profiler's agent for this host, in the folder its jar was unpacked into (the jar
    holds one per platform: linux-x64/, linux-arm64/)."""
    if folder is None:
        raise Skipped("its suite declares no async_profiler for it")
    arch = {"x86_64": "x64", "aarch64": "arm64"}.get(platform.machine())
    library = Path(folder) / f"linux-{arch}" / "libasyncProfiler.so"
    if arch is None or not library.is_file():
        raise Skipped(f"no async-profiler agent for {platform.machine()} at {library}")
    if re.search(r"[\s,=]", str(library)):  # the agent's options are comma-separated
        raise Skipped(f"the agent's path {library} holds a space, ',' or '='")
    return library


def fold_perf_script(lines: Iterable[str]) -> Stacks:
    """`perf script` output folded: each sample is a header line, its frames from the leaf
    down (`address symbol+0xoffset (module)`), then a blank line. Stacks run from the root;
    a frame is its symbol without the offset, `[module]` where perf knows only the module,
    `[unknown]` where it knows neither. A return address of 0, which a program puts at the
    bottom of a stack it makes (the Zig server's coroutines) to end it, is no frame: perf
    shows it as address 0 - 1."""
    stacks: Stacks = Counter()
    frames: list[str] | None = None
    for line in lines:
        if not line.strip():
            if frames is not None:
                stacks[tuple(reversed(frames)) or (_UNKNOWN,)] += 1
            frames = None
        elif not line[0].isspace():
            frames = []  # a sample's header: command, thread, time, event
        elif frames is not None and (frame := _perf_frame(line)) is not None:
            frames.append(frame)
    if frames is not None:
        stacks[tuple(reversed(frames)) or (_UNKNOWN,)] += 1
    return stacks


def fold_collapsed(lines: Iterable[str]) -> Stacks:
    """Folded stacks as py-spy and async-profiler write them (`frame;...;frame count`), a
    stack given twice summed; a sample with no frames (py-spy's, outside any Python code) is
    `[unknown]`, and a line that is not a stack is left out."""
    stacks: Stacks = Counter()
    for line in lines:
        stack, _, count = line.rstrip("\n").rpartition(" ")
        if count.isdigit() and int(count) > 0:
            frames = tuple(frame.strip() or _UNKNOWN for frame in stack.split(";"))
            stacks[frames] += int(count)
    return stacks


def folded_text(stacks: Stacks, what: str) -> str:
    """The profile's folded text, within the contract's bounds: a stack deeper than it
    allows keeps its leaf end under a `[truncated]` root; when there are more stacks or more
    text than a profile holds, the heaviest that fit are kept, and the log says so."""
    bounded: Stacks = Counter()
    for frames, count in stacks.items():
        if len(frames) > MAX_PROFILE_DEPTH:
            frames = (_TRUNCATED, *frames[-(MAX_PROFILE_DEPTH - 1):])
        bounded[frames] += count
    kept: list[str] = []
    size = 0
    for frames, count in bounded.most_common():
        line = f"{';'.join(frames)} {count}\n"
        if len(kept) == MAX_PROFILE_STACKS or size + len(line) > MAX_PROFILE_CHARS:
            break
        kept.append(line)
        size += len(line)
    if len(kept) < len(bounded):
        total = sum(bounded.values())
        share = sum(count for _, count in bounded.most_common(len(kept))) / total
        log.warning("profile of %s: kept the %d heaviest of %d stacks (%.1f %% of %d samples) "
                    "to fit a profile's bounds", what, len(kept), len(bounded), 100 * share,
                    total)
    return "".join(sorted(kept))


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
        perf = shutil.which("perf", path=env.get("PATH"))
        if perf is None:
            raise Skipped("perf is not on the PATH (Debian's linux-perf)")
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
        py_spy = shutil.which("py-spy", path=env.get("PATH"))
        if py_spy is None:
            raise Skipped("py-spy is not installed (a dependency of the runner)")
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


def _perf_frame(line: str) -> str | None:
    match = re.fullmatch(r"\s*([0-9a-f]+)\s+(.*?)\s+\(([^()]*(?: \(deleted\))?)\)\s*", line)
    if match is None:
        return _UNKNOWN
    if match[1] == _END_OF_STACK:
        return None
    symbol, module = re.sub(r"\+0x[0-9a-f]+$", "", match[2]), match[3]
    if symbol and symbol != _UNKNOWN:
        return symbol
    return f"[{Path(module).name}]" if module and module != _UNKNOWN else _UNKNOWN


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
