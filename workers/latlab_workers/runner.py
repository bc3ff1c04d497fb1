"""The generic runner: build a suite's programs once per version, run each series of the job's
matrix with only the servers it needs, its load program (argument lists, never a shell) within
the job's time bound, and turn their output into a typed `latlab.result/v1` result."""

import ctypes
import fcntl
import json
import os
import selectors
import shutil
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

from pydantic import ValidationError

from latlab_contract import JobSpec, Phase, ProgramInfo
from latlab_contract.parsers import ParseContext, Parsed, ParseError, validation_message
from latlab_contract.result import SCHEMA_VERSION, RunCreate, SeriesIn
from latlab_contract.vocabulary import MetricSpec
from latlab_workers.network import PARAM as NETWORK_PARAM
from latlab_workers.network import Network, NetworkError, load_profiles
from latlab_workers.suites import Program, SeriesPlan, Suite, SuiteError, load_suite
from latlab_workers.templates import Context, TemplateError, render, render_one


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


class ProgramGroup:
    """The processes of one job, each in its own process group, all killed together."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.processes: dict[str, subprocess.Popen[bytes]] = {}

    def start(self, name: str, argv: list[str], cwd: Path, env: dict[str, str] | None = None,
              log_only: bool = False, cpus: frozenset[int] | None = None
              ) -> subprocess.Popen[bytes]:
        """Starts a program; `cpus` pins it (and every thread it will start) before it runs.
        Its stdout is a pipe unless `log_only` (then it goes to the log beside its stderr, as
        for a helper whose output nobody reads)."""
        def before_exec() -> None:
            die_with_parent()
            if cpus:
                os.sched_setaffinity(0, cpus)

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
            ) -> RunCreate:
    """Runs every series of the job once per repetition (repetition-major, so slow drift of
    the host spreads over all series alike) and returns the typed result."""
    deadline = time.monotonic() + spec.timeout_s
    started_at = datetime.now(UTC)
    if spec.scenario not in suite.scenarios:
        raise JobError(f"suite '{suite.id}' has no scenario '{spec.scenario}'")
    params = suite.resolved_params(spec.scenario, spec.params)
    reporter.progress("build", 0.0)
    variants = [_Variant(suite, build(suite, cache_dir, deadline), {})]
    baseline = _cached_version(suite, spec.baseline_version, cache_dir)
    if baseline is not None:
        variants = [baseline, _Variant(suite, variants[0].build_dir,
                                       {"variant": "candidate"})]
    try:
        plans = [(variant, plan) for variant in variants for plan in variant.suite.plan(params)]
        sweep = suite.sweep(params)
    except SuiteError as error:
        raise JobError(str(error)) from error
    collected: dict[str, SeriesIn] = {}
    metric_info: dict[str, MetricSpec] = {}
    with tempfile.TemporaryDirectory(prefix=f"latlab-job-{spec.job_id}-") as work:
        group = ProgramGroup(Path(work))
        if on_group is not None:
            on_group(group)
        network = _network(suite, params, group)
        servers = _Servers(group, deadline, network)
        try:
            reporter.progress("start", 10.0)
            steps = spec.repetitions * len(plans)
            for step in range(steps):
                variant, plan = plans[step % len(plans)]
                context = {**plan.context, **program_context(variant.suite, variant.build_dir)}
                try:
                    context.update(servers.ensure(variant.suite, plan.servers, context))
                    argv = render(plan.load.command, context)
                    cpus, pinned = pinning(plan.load, context)
                except (TemplateError, NetworkError) as error:
                    raise JobError(str(error)) from error
                watched = servers.reset_peak_rss(plan.servers)
                process = group.start(plan.load.name, argv, variant.suite.directory,
                                      _program_env(), cpus=cpus)
                reporter.progress("measure", 15.0 + 80.0 * step / steps, group.info())
                output = _wait_load(group, plan.load, process, deadline, servers)
                parsed = parse_output(variant.suite, plan.load, output)
                metric_info.update(parsed.metric_info)
                tuning = {**servers.tuning(plan.servers),
                          **({f"cpus.{plan.load.name}": pinned} if pinned else {})}
                for found in parsed.series:
                    _collect(collected, plan, found, variant.labels,
                             servers.peak_rss(watched), tuning)
        finally:
            if network is not None:
                network.close()
            group.kill_all()
    reporter.progress("report", 95.0)
    try:
        return RunCreate.model_validate({
            "schema": SCHEMA_VERSION, "suite": suite.id, "scenario": spec.scenario,
            "params": params, "started_at": started_at, "finished_at": datetime.now(UTC),
            # A job's "commit" is the version of the suite it measured.
            "source": {"kind": "job", "commit": suite.version}, "sweep": sweep,
            "metric_info": metric_info,
            "host": {"name": host.name, "tags": host.tags, "fingerprint": host.fingerprint},
            "series": list(collected.values()),
        })
    except ValidationError as error:
        raise JobError(f"the job's result is invalid: {validation_message(error)}") from error


def parse_output(suite: Suite, load: Program, output: str) -> Parsed:
    """A load program's output, read by its parser."""
    assert load.output is not None
    try:
        return suite.parser(load.output)(output, ParseContext(metrics=frozenset(suite.metrics)))
    except ParseError as error:
        raise JobError(f"{load.name}'s output ({load.output}) cannot be read: {error}") from error


@dataclass(frozen=True)
class _Variant:
    """A version of the suite a job runs: the current one, or (a confirmation job) the
    baseline's, interleaved; `labels` tell their series apart."""

    suite: Suite
    build_dir: Path
    labels: dict[str, str]


SNAPSHOT = "suite"  # the suite's folder as built, kept in its build directory (under its id)


def _cached_version(suite: Suite, version: str | None, cache_dir: Path) -> _Variant | None:
    """The baseline's version of the suite, when the host still has its build and
    definition: the current one itself when they are the same version."""
    if version is None:
        return None
    build_dir = cache_dir / suite.id / version
    if version == suite.version:  # the same code, measured again beside itself (A A A A)
        return _Variant(suite, build_dir, {"variant": "baseline"})
    if not (build_dir / ".built").exists() or not (build_dir / SNAPSHOT / suite.id).is_dir():
        return None
    try:
        return _Variant(load_suite(build_dir / SNAPSHOT / suite.id), build_dir,
                        {"variant": "baseline"})
    except SuiteError:
        return None


def _collect(collected: dict[str, SeriesIn], plan: SeriesPlan, found: SeriesIn,
             variant: dict[str, str], metrics: dict[str, float], tuning: dict[str, str]) -> None:
    """Adds a parsed series' trials to the job's series with the same labels, with what the
    runner measured and applied around the program (`metrics`, `tuning`)."""
    clash = sorted(k for k in found.labels if k in plan.labels or k in variant)
    if clash:
        raise JobError(f"{plan.load.name} reports labels {clash} that are axes of the suite")
    labels = {**plan.labels, **variant, **found.labels}
    key = json.dumps(labels, sort_keys=True)
    before = collected.get(key)
    added = [trial.model_copy(update={
        "metrics": {**trial.metrics, **metrics},
        "tuning": {**(trial.tuning or {}), **tuning} or None}) for trial in found.trials]
    collected[key] = SeriesIn(labels=labels, trials=[*(before.trials if before else []), *added])


@dataclass
class _Running:
    identity: tuple[list[str], str]  # argv and CPU list: the server is kept while both match
    announced: dict[str, str]
    pinned: str | None  # its tuning line, for a server with `cpus`


def _network(suite: Suite, params: dict[str, Any], group: ProgramGroup) -> Network | None:
    """The job's network profile, for a suite whose servers declare endpoints."""
    if not suite.uses_network:
        return None
    try:
        profiles = load_profiles()
        name = str(params.get(NETWORK_PARAM, profiles.default))
        profile = profiles.profiles[name]
    except (NetworkError, KeyError) as error:
        name = str(params.get(NETWORK_PARAM))
        raise JobError(f"no network profile '{name}': {error}") from error
    return Network(name, profile, group, _program_env(), suite.directory)


class _Servers:
    """The servers running for the current series. A series gets exactly the servers it
    names: others are stopped first; one already running with the same command is kept.
    The load sees a server's endpoints through the job's network profile."""

    def __init__(self, group: ProgramGroup, deadline: float, network: Network | None) -> None:
        self.group = group
        self.deadline = deadline
        self.network = network
        self.running: dict[str, _Running] = {}

    def ensure(self, suite: Suite, needed: list[Program], context: Context) -> dict[str, str]:
        wanted = {server.name: (render(server.command, context),
                                render_one(server.cpus or "", context)) for server in needed}
        for name in list(self.running):
            if self.running[name].identity != wanted.get(name):
                _kill_group(self.group.processes[name])
                del self.running[name]
                if self.network is not None:
                    self.network.forget(name)
        for server in needed:
            if server.name not in self.running:
                cpus, pinned = pinning(server, context)
                announced = _start_server(self.group, suite, server, wanted[server.name][0],
                                          self.deadline, cpus)
                if self.network is not None:
                    announced = self.network.expose(server.name, server.endpoints, announced)
                self.running[server.name] = _Running(wanted[server.name], announced, pinned)
        values = {f"{name}.{key}": value for name, running in self.running.items()
                  for key, value in running.announced.items()}
        if len(needed) == 1:
            values.update({f"server.{key}": value
                           for key, value in self.running[needed[0].name].announced.items()})
        return values

    def tuning(self, needed: list[Program]) -> dict[str, str]:
        """The pinning of the series' servers, for its trials' tuning."""
        return {f"cpus.{server.name}": pinned for server in needed
                if (pinned := self.running[server.name].pinned) is not None}

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
            kilobytes = _status_field(pid, "VmHWM")
            if kilobytes is not None:
                peaks[names[name]] = kilobytes / 1024
        return peaks

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


def build(suite: Suite, cache_dir: Path, deadline: float) -> Path:
    """Builds the suite's programs once per version into the cache (a lock serialises
    concurrent builds of one version)."""
    build_dir = cache_dir / suite.id / suite.version
    marker = build_dir / ".built"
    if marker.exists() and (build_dir / SNAPSHOT / suite.id).is_dir():
        return build_dir
    build_dir.mkdir(parents=True, exist_ok=True)
    with open(build_dir / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        command = suite.spec.build.command
        if marker.exists() or command is None:  # built before snapshots were kept, or no build
            _snapshot(suite, build_dir)
            marker.touch()
            return build_dir
        context: Context = dict(program_context(suite, build_dir))
        env = {**_program_env(),
               **{k: render_one(v, context) for k, v in suite.spec.build.env.items()}}
        try:
            completed = subprocess.run(
                render(command, context), cwd=suite.directory, env=env,
                capture_output=True, timeout=max(deadline - time.monotonic(), 1), check=False)
        except subprocess.TimeoutExpired as error:
            raise JobTimedOut(f"building {suite.id} ran out of the job's time") from error
        except OSError as error:
            raise JobError(f"cannot build {suite.id}: {error}") from error
        if completed.returncode != 0:
            tail = completed.stderr.decode(errors="replace")[-2000:]
            raise JobError(f"building {suite.id} failed ({completed.returncode}): {tail}")
        _snapshot(suite, build_dir)
        marker.touch()
    return build_dir


def _snapshot(suite: Suite, build_dir: Path) -> None:
    """Keeps the suite's folder as built beside its build, so a later confirmation job can
    run this version again after the suite has changed."""
    target = build_dir / SNAPSHOT / suite.id
    shutil.rmtree(build_dir / SNAPSHOT, ignore_errors=True)
    shutil.copytree(suite.directory, target, symlinks=True, ignore=shutil.ignore_patterns(
        "target", "build", "node_modules", "__pycache__", ".git"))


def _start_server(group: ProgramGroup, suite: Suite, server: Program, argv: list[str],
                  deadline: float, cpus: frozenset[int] | None) -> dict[str, str]:
    process = group.start(server.name, argv, suite.directory, _program_env(), cpus=cpus)
    assert process.stdout is not None
    values: dict[str, str] = {}
    if server.ready == "stdout-json":
        line = _read_line(process.stdout, min(deadline, time.monotonic() + 60))
        if not line:
            raise JobError(f"{server.name} did not become ready: {group.stderr_tail(server.name)}")
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


_LIVENESS_S = 0.5  # how often the servers are checked while a load program runs


def _wait_load(group: ProgramGroup, load: Program, process: subprocess.Popen[bytes],
               deadline: float, servers: _Servers) -> str:
    """The load program's output once it exits. A server (or the network) that dies while it
    runs stops it at once and fails the job, rather than leaving it to time out."""
    while True:
        left = deadline - time.monotonic()
        try:
            stdout, _ = process.communicate(timeout=max(min(left, _LIVENESS_S), 0.1))
            break
        except subprocess.TimeoutExpired as error:
            if left <= _LIVENESS_S:
                _kill_group(process)
                raise JobTimedOut(f"{load.name} ran past the job's time limit") from error
        try:
            servers.check_alive()
        except JobError:
            _kill_group(process)
            raise
    servers.check_alive()
    if process.returncode != 0:
        raise JobError(f"{load.name} exited with {process.returncode}: "
                       f"{group.stderr_tail(load.name)}")
    return stdout.decode(errors="replace")


def pinning(program: Program, context: Context) -> tuple[frozenset[int] | None, str | None]:
    """The CPUs to pin a program to (None: leave it) and the tuning line its trials report:
    "off" (not asked), "applied: <cpus>", or "refused: <reason>" when the runner itself may
    not use those CPUs."""
    if program.cpus is None:
        return None, None
    text = render_one(program.cpus, context).strip()
    if not text:
        return None, "off"
    try:
        wanted = cpu_list(text)
    except ValueError as error:
        raise JobError(f"{program.name}: cpus '{text}': {error}") from error
    allowed = os.sched_getaffinity(0)
    if not wanted <= allowed:
        return None, (f"refused: CPUs {_cpu_text(wanted - allowed)} not available "
                      f"(allowed: {_cpu_text(allowed)})")
    return wanted, f"applied: {text}"


def cpu_list(text: str) -> frozenset[int]:
    """ "0-2,5" -> {0, 1, 2, 5}."""
    cpus: set[int] = set()
    for part in text.split(","):
        low, dash, high = part.strip().partition("-")
        if not low.isdigit() or (dash and not high.isdigit()):
            raise ValueError(f"'{part}' is not a CPU or a range of CPUs")
        first, last = int(low), int(high or low)
        if last < first or last >= 4096:
            raise ValueError(f"'{part}' is not a range of CPUs below 4096")
        cpus.update(range(first, last + 1))
    return frozenset(cpus)


def _cpu_text(cpus: set[int] | frozenset[int]) -> str:
    return ",".join(str(cpu) for cpu in sorted(cpus))


def _status_field(pid: int, field: str) -> int | None:
    """A number (kB) from /proc/<pid>/status, or None when the process is gone."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


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


def die_with_parent() -> None:
    # Programs die with the runner even when it is SIGKILLed.
    ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def program_context(suite: Suite, build_dir: Path) -> dict[str, str]:
    """The placeholders every command may use besides params and axes: `build_dir`,
    `suite_dir`, and `python` (the runner's interpreter, for Python programs)."""
    return {"build_dir": str(build_dir), "suite_dir": str(suite.directory),
            "python": sys.executable}


def _program_env() -> dict[str, str]:
    """Programs find the runner's tools (pip and go installed, next to its interpreter)."""
    tools = str(Path(sys.executable).parent)
    return {**os.environ, "PATH": f"{tools}{os.pathsep}{os.environ.get('PATH', '')}"}


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
