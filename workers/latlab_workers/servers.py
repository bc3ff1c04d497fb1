"""The servers of a job's current series: started with their readiness read, kept while
consecutive series use them unchanged, watched while the load program runs, and measured
around it (peak RSS, and what a server reports of each trial itself)."""

import functools
import json
import subprocess
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from latlab_workers.code import CodeUnderTest
from latlab_workers.counters import ProcessWatch, Reading
from latlab_workers.errors import JobError, JobTimedOut
from latlab_workers.network import Network, NetworkError
from latlab_workers.pinning import pinning, scheduling
from latlab_workers.processes import (
    ProgramGroup,
    kill_group,
    read_line,
    status_field,
)
from latlab_workers.scheduling import Scheduling
from latlab_workers.suite_file import Program
from latlab_workers.suites import Suite
from latlab_workers.templates import Context, render, render_one

# How often the servers are checked (alive, and their OS counters read) while a load runs.
_LIVENESS_S = 0.2
_REPORT_TIMEOUT_S = 10.0
_REPORT_BYTES = 10_000_000


class Servers:
    """The servers running for the current series. A series gets exactly the servers it
    names: others are stopped first; one already running with the same command is kept.
    The load sees a server's endpoints through the job's network profile."""

    def __init__(self, group: ProgramGroup, deadline: float, network: Network | None,
                 code: CodeUnderTest) -> None:
        self.group = group
        self.deadline = deadline
        self.network = network
        self.code = code
        self.running: dict[str, _Running] = {}
        self.watched: dict[str, ProcessWatch] = {}

    def ensure(self, suite: Suite, needed: list[Program], context: Context) -> dict[str, str]:
        wanted = {server.name: (render(server.command, context),
                                render_one(server.cpus or "", context)) for server in needed}
        for name in list(self.running):
            if self.running[name].identity != wanted.get(name):
                kill_group(self.group.processes[name])
                del self.running[name]
                if self.network is not None:
                    self.network.forget(name)
        for server in needed:
            if server.name not in self.running:
                cpus, pinned = pinning(server, context)
                own = self._start(suite, server, wanted[server.name][0], cpus,
                                  scheduling(server, context), context)
                announced = own if self.network is None else self.network.expose(
                    server.name, server.endpoints, own)
                self.running[server.name] = _Running(wanted[server.name], announced, own,
                                                     pinned)
        values = {f"{name}.{key}": value for name, running in self.running.items()
                  for key, value in running.announced.items()}
        if len(needed) == 1:
            values.update({f"server.{key}": value
                           for key, value in self.running[needed[0].name].announced.items()})
        return values

    def tuning(self, needed: list[Program]) -> dict[str, str]:
        """The pinning and scheduling of the series' servers, for its trials' tuning."""
        lines = {f"cpus.{server.name}": pinned for server in needed
                 if (pinned := self.running[server.name].pinned) is not None}
        for server in needed:
            lines.update(self.group.scheduled.get(server.name, {}))
        return lines

    def reset_peak_rss(self, needed: list[Program]) -> dict[str, int]:
        """Resets the peak RSS (VmHWM) of the series' servers that report it: servers outlive
        a series, so each trial's peak must be its own. Returns the pids whose reset worked."""
        watched = {}
        for server in needed:
            if server.peak_rss:
                pid = self.group.processes[server.name].pid
                try:
                    Path(f"/proc/{pid}/clear_refs").write_text("5")
                except OSError:
                    continue  # no per-trial peak to report; none is better than a wrong one
                watched[server.name] = pid
        return watched

    def peak_rss(self, watched: dict[str, int]) -> dict[str, float]:
        """`peak_rss_mb` (MB) of one server since its reset; `peak_rss_mb.<server>` for each
        of several."""
        names = {name: "peak_rss_mb" if len(watched) == 1 else f"peak_rss_mb.{name}"
                 for name in watched}
        peaks = {}
        for name, pid in watched.items():
            kilobytes = status_field(pid, "VmHWM")
            if kilobytes is not None:
                peaks[names[name]] = kilobytes / 1024
        return peaks

    def reports(self, needed: list[Program], params: dict[str, Any]) -> dict[str, str]:
        """What each of the series' servers with a `report` (on, by the job's `params`) says
        of the trial that just ended (a latlab-json document), by server; asking also starts
        its next window, so a call right before a trial discards what came before it."""
        found = {}
        for server in needed:
            report = server.report
            if report is None or (report.when is not None and params.get(report.when) is not True):
                continue
            url = render_one(report.url, dict(self.running[server.name].own))
            request = urllib.request.Request(url, method="POST", data=b"")
            try:
                found[server.name] = self.code.inside(functools.partial(_ask, request))
            except (urllib.error.URLError, OSError) as error:
                raise JobError(f"server {server.name} did not report the trial ({url}): "
                               f"{error}") from error
        return found

    def watch(self, needed: list[Program]) -> None:
        """Starts reading the OS counters of the series' servers for a trial."""
        self.watched = {server.name: ProcessWatch(self.group.processes[server.name].pid)
                        for server in needed}

    def used(self) -> dict[str, Reading]:
        """What each watched server used since `watch` (a server that is gone has none)."""
        return {name: reading for name, watch in self.watched.items()
                if (reading := watch.used()) is not None}

    def wait_load(self, load: Program, process: subprocess.Popen[bytes]) -> str:
        """The load program's output once it exits. A server (or the network) that dies while
        it runs stops it at once and fails the job, rather than leaving it to time out."""
        while True:
            left = self.deadline - time.monotonic()
            try:
                stdout, _ = process.communicate(timeout=max(min(left, _LIVENESS_S), 0.1))
                break
            except subprocess.TimeoutExpired as error:
                if left <= _LIVENESS_S:
                    kill_group(process)
                    raise JobTimedOut(f"{load.name} ran past the job's time limit") from error
            try:
                self.check_alive()
            except JobError:
                kill_group(process)
                raise
            for watch in self.watched.values():
                watch.poll()
        self.check_alive()
        if process.returncode != 0:
            raise JobError(f"{load.name} exited with {process.returncode}: "
                           f"{self.group.stderr_tail(load.name)}")
        return stdout.decode(errors="replace")

    def check_alive(self) -> None:
        """A server that died while a series was measured fails the job, saying so."""
        for name in self.running:
            process = self.group.processes[name]
            if process.poll() is not None:
                raise JobError(f"server {name} exited with {process.returncode} during the "
                               f"measurement: {self.group.stderr_tail(name)}")
        if self.network is not None:
            try:
                self.network.check()
            except NetworkError as error:
                raise JobError(str(error)) from error

    def _start(self, suite: Suite, server: Program, argv: list[str],
               cpus: frozenset[int] | None, scheduled: Scheduling | None,
               context: Context) -> dict[str, str]:
        """Starts a server and returns what it announced on its readiness line."""
        launch = self.code.launch(server, suite, context)
        process = self.group.start(server.name, argv, launch.cwd, launch.env, cpus=cpus,
                                   scheduling=scheduled, preexec=launch.preexec)
        assert process.stdout is not None
        values: dict[str, str] = {}
        if server.ready == "stdout-json":
            line = read_line(process.stdout, min(self.deadline, time.monotonic() + 60))
            if not line:
                raise JobError(f"{server.name} did not become ready: "
                               f"{self.group.stderr_tail(server.name)}")
            try:
                announced = json.loads(line)
                assert isinstance(announced, dict)
            except (json.JSONDecodeError, AssertionError) as error:
                raise JobError(f"{server.name} announced {line!r}, not a JSON object") from error
            values = {str(k): _text(v) for k, v in announced.items()}
        # Keep draining stdout so a chatty server never blocks on a full pipe.
        threading.Thread(target=lambda: process.stdout.read() if process.stdout else None,
                         daemon=True).start()
        return values


def _ask(request: urllib.request.Request) -> str:
    with urllib.request.urlopen(request, timeout=_REPORT_TIMEOUT_S) as answer:
        return str(answer.read(_REPORT_BYTES).decode(errors="replace"))


@dataclass
class _Running:
    identity: tuple[list[str], str]  # argv and CPU list: the server is kept while both match
    announced: dict[str, str]  # as the load sees it (its endpoints through the network)
    own: dict[str, str]  # as it announced it: where the runner reaches it
    pinned: str | None  # its tuning line, for a server with `cpus`


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
