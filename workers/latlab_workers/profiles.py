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
import os
import platform
import re
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path
from types import TracebackType

from pydantic import ValidationError

from latlab_contract.result import MAX_PROFILES, ProfileIn
from latlab_workers.profilers import (
    Skipped,
    Tool,
    _AgentAtStart,
    _AgentAttached,
    _Perf,
    _PySpy,
    _Recording,
    _stopped,
)
from latlab_workers.stacks import folded_text

log = logging.getLogger(__name__)

Stacks = Counter[tuple[str, ...]]

# Seconds a profiled trial may need beyond twice the job's longest trial so far (the profilers
# attach, slow the programs a little, and perf's samples are unwound afterwards).
_PROFILE_MARGIN_S = 15.0
# A load that stops itself, to be resumed as its own program (`exec` keeps the pid) once its
# profiler is attached; its arguments are passed as they are, never through the shell's parser.
_STOPPED = ["/bin/sh", "-c", 'kill -STOP "$$" && exec "$@"']


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
