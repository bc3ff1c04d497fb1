"""The generic runner: build a suite's programs once per version, run each series of the job's
matrix with only the servers it needs, its load program (argument lists, never a shell) within
the job's time bound, and turn their output into a typed `latlab.result/v1` result; on
request, one more trial of each series with its programs' CPU profiled (`profiles.py`)."""

import json
import logging
import os
import random
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from pydantic import ValidationError

from latlab_contract import JobSpec, Phase, ProgramInfo
from latlab_contract.hdr import HdrError
from latlab_contract.hdr import decode as decode_hdr
from latlab_contract.parsers import (
    ParseContext,
    Parsed,
    ParseError,
    get_parser,
    validation_message,
)
from latlab_contract.result import (
    MAX_PROFILES,
    SCHEMA_VERSION,
    ProfileIn,
    RunCreate,
    SeriesIn,
    TrialIn,
)
from latlab_contract.vocabulary import MetricSpec
from latlab_workers import counters, profiles
from latlab_workers.builds import build, cached_build, program_context
from latlab_workers.code import CodeUnderTest, Launch
from latlab_workers.errors import JobError
from latlab_workers.network import PARAM as NETWORK_PARAM
from latlab_workers.network import Network, NetworkError, load_profiles
from latlab_workers.pinning import pinning, scheduling
from latlab_workers.processes import ProgramGroup, program_env
from latlab_workers.scheduling import Scheduling
from latlab_workers.servers import Servers
from latlab_workers.suite_file import Program
from latlab_workers.suites import SeriesPlan, Suite, SuiteError
from latlab_workers.templates import Context, TemplateError, render, render_one

_LOG = logging.getLogger(__name__)
MAX_OUTPUT_BYTES = 64 * 1024 * 1024  # a load's output file, read at most


class Reporter(Protocol):
    def progress(self, phase: Phase, percent: float,
                 programs: list[ProgramInfo] | None = None) -> None: ...


@dataclass(frozen=True)
class HostIdentity:
    name: str
    tags: list[str]
    fingerprint: dict[str, Any]


def execute(spec: JobSpec, suite: Suite, host: HostIdentity, reporter: Reporter,
            cache_dir: Path, on_group: Callable[[ProgramGroup], None] | None = None
            ) -> RunCreate:
    """Runs every series of the job once per repetition (repetition-major, so slow drift of
    the host spreads over all series alike), then, if the job asks, once more with each
    program profiled, and returns the typed result."""
    deadline = time.monotonic() + spec.timeout_s
    started_at = datetime.now(UTC)
    if spec.scenario not in suite.scenarios:
        raise JobError(f"suite '{suite.id}' has no scenario '{spec.scenario}'")
    params = suite.resolved_params(spec.scenario, spec.params)
    collected: dict[str, SeriesIn] = {}
    metric_info: dict[str, MetricSpec] = {}
    made: list[ProfileIn] = []
    labels_of: dict[int, dict[str, str]] = {}  # a plan's series (its first), for its profile
    longest = 0.0
    code = CodeUnderTest(spec)
    try:
        reporter.progress("build", 0.0)
        variants = _variants(spec, suite, params, code, cache_dir, deadline)
        try:
            plans = [(variant, plan) for variant in variants
                     for plan in variant.suite.plan(params)]
            sweep = suite.sweep(params)
        except SuiteError as error:
            raise JobError(str(error)) from error
        _check_repo_used(spec, plans)
        with tempfile.TemporaryDirectory(prefix=f"latlab-job-{spec.job_id}-") as work:
            group = ProgramGroup(Path(work))
            if on_group is not None:
                on_group(group)
            network = _network(suite, params, group, code)
            servers = Servers(group, deadline, network, code)
            try:
                reporter.progress("start", 10.0)
                order = _order(spec, plans)
                steps = len(order)
                if spec.profile:
                    order += list(range(len(plans)))
                first: set[int] = set()  # plans whose first trial has been measured
                for step, index in enumerate(order):
                    variant, plan = plans[index]
                    context = {**plan.context,
                               **program_context(variant.suite, variant.build_dir),
                               **({"repo_dir": str(variant.repo_dir)} if variant.repo_dir
                                  else {})}
                    try:
                        context.update(servers.ensure(variant.suite, plan.servers, context))
                        argv = render(plan.load.command, context)
                        cpus, pinned = pinning(plan.load, context)
                        scheduled = scheduling(plan.load, context)
                    except (TemplateError, NetworkError) as error:
                        raise JobError(str(error)) from error
                    launch = code.launch(plan.load, variant.suite, context)
                    if step >= steps:  # the profiled trial: only its profiles are kept
                        reporter.progress("measure", 15.0 + 80.0 * step / len(order),
                                          group.info())
                        made += _profiled_trial(plan, argv, cpus, scheduled, group, servers,
                                                labels_of.get(index), longest, len(made),
                                                context, launch)
                        continue
                    watched = servers.reset_peak_rss(plan.servers)
                    servers.reports(plan.servers, params)  # what came before is not the trial's
                    servers.watch(plan.servers)
                    children, busy, started = (counters.of_children(), counters.host_busy_s(),
                                               time.monotonic())
                    process = group.start(plan.load.name, argv, launch.cwd, launch.env,
                                          cpus=cpus, scheduling=scheduled,
                                          preexec=launch.preexec)
                    reporter.progress("measure", 15.0 + 80.0 * step / len(order), group.info())
                    output = _output(plan.load, servers.wait_load(plan.load, process),
                                     context, launch.cwd)
                    reports = servers.reports(plan.servers, params)
                    seconds = time.monotonic() - started
                    longest = max(longest, seconds)
                    busy = counters.host_busy_s() - busy
                    used = {**servers.used(), plan.load.name: counters.of_children() - children}
                    parsed = parse_output(variant.suite, plan.load, output, context)
                    metric_info.update(parsed.metric_info)
                    tuning = {**servers.tuning(plan.servers),
                              **({f"cpus.{plan.load.name}": pinned} if pinned else {}),
                              **group.scheduled.get(plan.load.name, {})}
                    for found in parsed.series:
                        labels = _collect(collected, plan, found, variant.labels,
                                          servers.peak_rss(watched), tuning, used, seconds,
                                          busy)
                        labels_of.setdefault(index, labels)
                    for name, report in reports.items():  # the servers' own view of the trial
                        for found in _report(name, report):
                            _collect(collected, plan, found, variant.labels, {}, tuning, {},
                                     seconds, busy)
                    if index not in first and parsed.series:  # the program's own profiles
                        first.add(index)
                        made += [p.model_copy(update={"labels": labels_of[index]})
                                 for p in parsed.profiles][:MAX_PROFILES - len(made)]
            finally:
                if network is not None:
                    network.close()
                group.kill_all()
    finally:
        code.close()
    reporter.progress("report", 95.0)
    try:
        return RunCreate.model_validate({
            "schema": SCHEMA_VERSION, "suite": suite.id, "scenario": spec.scenario,
            "params": params, "started_at": started_at, "finished_at": datetime.now(UTC),
            # A job's "commit" is its repository's it measured (a try job's head), else the
            # version of the suite.
            "source": _source(spec, suite), "sweep": sweep,
            "metric_info": {**counters.metric_info(sorted(
                {name for series in collected.values() for trial in series.trials
                 for name in trial.metrics})), **metric_info},
            "host": {"name": host.name, "tags": host.tags, "fingerprint": host.fingerprint},
            "series": [counters.mark_disturbed(series) for series in collected.values()],
            "profiles": made,
        })
    except ValidationError as error:
        raise JobError(f"the job's result is invalid: {validation_message(error)}") from error


def _profiled_trial(plan: SeriesPlan, argv: list[str], cpus: frozenset[int] | None,
                    scheduled: Scheduling | None, group: ProgramGroup, servers: Servers,
                    labels: dict[str, str] | None, longest_s: float, made: int,
                    context: Context, launch: Launch) -> list[ProfileIn]:
    """One more trial of the series with each of its programs profiled. Its measurements
    are not read; a program that fails in it fails the job, a profiler only its profile."""
    reason = ("it measured nothing a profile could go with" if labels is None
              else profiles.skip_reason(servers.deadline, longest_s, made))
    if reason is not None or labels is None:
        _LOG.warning("series %s not profiled: %s", labels or plan.labels, reason)
        return []
    with profiles.Session(group.workdir, launch.env, servers.deadline, labels) as session:
        for server in plan.servers:
            session.attach(server.name, render(server.command, context),
                           group.processes[server.name].pid, _agent(server, context))
        agent = _agent(plan.load, context)
        command, env = session.load_command(plan.load.name, argv, agent)
        process = group.start(plan.load.name, command, launch.cwd, env, cpus=cpus,
                              scheduling=scheduled, preexec=launch.preexec)
        session.attach(plan.load.name, argv, process.pid, agent)
        servers.watch(plan.servers)
        servers.wait_load(plan.load, process)
        return session.finish(room=MAX_PROFILES - made)


def _agent(program: Program, context: Context) -> str | None:
    """Where the program's suite unpacked async-profiler, for a JVM program."""
    try:
        return render_one(program.async_profiler, context) if program.async_profiler else None
    except TemplateError as error:
        _LOG.warning("%s: async_profiler: %s", program.name, error)
        return None


def parse_output(suite: Suite, load: Program, output: str,
                 context: Context | None = None) -> Parsed:
    """A load program's output, read by its parser (its `output`, rendered over `context`:
    a harness's format may be a job's param)."""
    assert load.output is not None
    try:
        name = render_one(load.output, context or {})
    except TemplateError as error:
        raise JobError(f"{load.name}: output: {error}") from error
    try:
        return suite.parser(name)(output, ParseContext(metrics=frozenset(suite.metrics)))
    except ParseError as error:
        raise JobError(f"{load.name}'s output ({name}) cannot be read: {error}") from error


def _output(load: Program, stdout: str, context: Context, folder: Path) -> str:
    """What the load printed, or the file it wrote its output to (`output_file`), read once
    (and removed, so the next trial's is its own). The file must be in its folder: a link
    out of it (the code's, to a file of the runner's) is refused."""
    try:
        name = render_one(load.output_file, context) if load.output_file else ""
    except TemplateError as error:
        raise JobError(f"{load.name}: output_file: {error}") from error
    if not name:
        return stdout
    path = (folder / name).resolve()
    if not path.is_relative_to(folder.resolve()):
        raise JobError(f"{load.name}: its output file {name} is outside its folder")
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(descriptor, "rb") as file:
            text = file.read(MAX_OUTPUT_BYTES).decode(errors="replace")
        path.unlink()
    except OSError as error:
        raise JobError(f"{load.name} left no output file {name}: {error.strerror}") from error
    return text


@dataclass(frozen=True)
class _Variant:
    """What one side of a job runs: the suite's current version, or (a confirmation job) the
    baseline's, interleaved; a repository's commit (a try job: base and head, interleaved)
    built in `repo_dir`. `labels` tell their series apart."""

    suite: Suite
    build_dir: Path
    labels: dict[str, str]
    repo_dir: Path | None = None


def _variants(spec: JobSpec, suite: Suite, params: dict[str, Any], code: CodeUnderTest,
              cache_dir: Path, deadline: float) -> list[_Variant]:
    """The suite built (and a repository's commits, each once per host), as the sides the
    job interleaves."""
    build_dir = build(suite, cache_dir, deadline)
    if code.repo is not None:
        context: Context = {**suite.plan_context(params), **program_context(suite, build_dir)}
        return [_Variant(suite, build_dir, labels, code.build(suite, commit, context, deadline))
                for labels, commit in code.sides()]
    variants = [_Variant(suite, build_dir, {})]
    baseline = _cached_version(suite, spec.baseline_version, cache_dir)
    if baseline is not None:
        variants = [baseline, _Variant(suite, build_dir, {"variant": "candidate"})]
    return variants


def _order(spec: JobSpec, plans: list[tuple[_Variant, SeriesPlan]]) -> list[int]:
    """The plans each repetition measures, in turn: every side's series (repetition-major,
    so slow drift of the host spreads over all series alike); a try job's two sides in a
    random order each repetition (seeded by the job and its attempt: a later stage's is its
    own), so neither always goes first."""
    sides: dict[int, list[int]] = {}
    for index, (variant, _) in enumerate(plans):
        sides.setdefault(id(variant), []).append(index)
    order = []
    for repetition in range(spec.repetitions):
        turn = list(sides.values())
        if spec.base_commit is not None:
            random.Random(f"{spec.job_id}/{spec.attempt}/{repetition}").shuffle(turn)
        order += [index for side in turn for index in side]
    return order


def _check_repo_used(spec: JobSpec, plans: list[tuple[_Variant, SeriesPlan]]) -> None:
    """A job that names a repository runs some of its programs."""
    if spec.repo is None:
        return
    if not any(p.from_ == "repo" for _, plan in plans for p in [plan.load, *plan.servers]):
        raise JobError(f"the job names repository {spec.repo.repo} but its params run none "
                       f"of its programs (http-order: server=repo)")


def _source(spec: JobSpec, suite: Suite) -> dict[str, Any]:
    if spec.repo is not None:
        return {"kind": "job", "commit": spec.commit, "repo": spec.repo.repo}
    return {"kind": "job", "commit": suite.version}


def _cached_version(suite: Suite, version: str | None, cache_dir: Path) -> _Variant | None:
    """The baseline's version of the suite, when the host still has its build and
    definition: the current one itself when they are the same version (the same code,
    measured again beside itself: A A A A)."""
    if version is None:
        return None
    cached = cached_build(suite, version, cache_dir)
    if cached is None:
        return None
    baseline, build_dir = cached
    return _Variant(baseline, build_dir, {"variant": "baseline"})


def _collect(collected: dict[str, SeriesIn], plan: SeriesPlan, found: SeriesIn,
             variant: dict[str, str], metrics: dict[str, float], tuning: dict[str, str],
             used: dict[str, counters.Reading], seconds: float, busy: float
             ) -> dict[str, str]:
    """Adds a parsed series' trials to the job's series with the same labels, with what the
    runner measured and applied around the program (`metrics`, the OS counters `used` in
    `seconds` while the host was `busy` for that many CPU seconds, `tuning`); returns the
    labels."""
    clash = sorted(k for k in found.labels if k in plan.labels or k in variant)
    if clash:
        raise JobError(f"{plan.load.name} reports labels {clash} that are axes of the suite")
    labels = {**plan.labels, **variant, **found.labels}
    key = json.dumps(labels, sort_keys=True)
    before = collected.get(key)
    added = [trial.model_copy(update={
        "metrics": {**trial.metrics, **metrics,
                    **counters.metrics(used, seconds, _operations(trial), busy)},
        "tuning": {**(trial.tuning or {}), **tuning} or None}) for trial in found.trials]
    collected[key] = SeriesIn(labels=labels, trials=[*(before.trials if before else []), *added])
    return labels


def _report(server: str, text: str) -> list[SeriesIn]:
    """A server's report of a trial, a latlab-json document, as series labelled
    view=<server>."""
    try:
        parsed = get_parser("latlab-json")(text, ParseContext())
    except ParseError as error:
        raise JobError(f"server {server}'s report of the trial is unusable: {error}") from error
    return [series.model_copy(update={"labels": {**series.labels, "view": server}})
            for series in parsed.series]


def _operations(trial: TrialIn) -> int:
    """The trial's measured operations: its histogram's count (its samples')."""
    latency = trial.latency
    if latency.samples_ns is not None:
        return len(latency.samples_ns)
    try:
        return int(decode_hdr(latency.hdr).get_total_count()) if latency.hdr else 0
    except HdrError:
        return 0  # the api refuses the trial, saying why


def _network(suite: Suite, params: dict[str, Any], group: ProgramGroup,
             code: CodeUnderTest) -> Network | None:
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
    if profile.proxy and code.sandbox is not None:
        raise JobError(f"network profile '{name}': a repository's code is measured on "
                       f"loopback only, for now")
    return Network(name, profile, group, program_env(), suite.directory)
