"""The generic runner: build a suite's programs once per version, run each series of the job's
matrix with only the servers it needs, its load program (argument lists, never a shell) within
the job's time bound, and turn their output into a typed `latlab.result/v1` result; on
request, one more trial of each series with its programs' CPU profiled (`profiles.py`)."""

import json
import logging
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
    made: list[ProfileIn] = []
    labels_of: dict[int, dict[str, str]] = {}  # a plan's series (its first), for its profile
    longest = 0.0
    with tempfile.TemporaryDirectory(prefix=f"latlab-job-{spec.job_id}-") as work:
        group = ProgramGroup(Path(work))
        if on_group is not None:
            on_group(group)
        network = _network(suite, params, group)
        servers = Servers(group, deadline, network)
        try:
            reporter.progress("start", 10.0)
            steps = spec.repetitions * len(plans)
            total = steps + (len(plans) if spec.profile else 0)
            for step in range(total):
                variant, plan = plans[step % len(plans)]
                context = {**plan.context, **program_context(variant.suite, variant.build_dir)}
                try:
                    context.update(servers.ensure(variant.suite, plan.servers, context))
                    argv = render(plan.load.command, context)
                    cpus, pinned = pinning(plan.load, context)
                    scheduled = scheduling(plan.load, context)
                except (TemplateError, NetworkError) as error:
                    raise JobError(str(error)) from error
                if step >= steps:  # the profiled trial: only its profiles are kept
                    reporter.progress("measure", 15.0 + 80.0 * step / total, group.info())
                    made += _profiled_trial(variant.suite, plan, context, argv, cpus,
                                            scheduled, group, servers,
                                            labels_of.get(step % len(plans)), longest,
                                            len(made))
                    continue
                watched = servers.reset_peak_rss(plan.servers)
                servers.reports(plan.servers, params)  # what came before the trial is not its
                servers.watch(plan.servers)
                children, busy, started = (counters.of_children(), counters.host_busy_s(),
                                           time.monotonic())
                process = group.start(plan.load.name, argv, variant.suite.directory,
                                      program_env(), cpus=cpus, scheduling=scheduled)
                reporter.progress("measure", 15.0 + 80.0 * step / total, group.info())
                output = servers.wait_load(plan.load, process)
                reports = servers.reports(plan.servers, params)
                seconds = time.monotonic() - started
                longest = max(longest, seconds)
                busy = counters.host_busy_s() - busy
                used = {**servers.used(), plan.load.name: counters.of_children() - children}
                parsed = parse_output(variant.suite, plan.load, output)
                metric_info.update(parsed.metric_info)
                tuning = {**servers.tuning(plan.servers),
                          **({f"cpus.{plan.load.name}": pinned} if pinned else {}),
                          **group.scheduled.get(plan.load.name, {})}
                for found in parsed.series:
                    labels = _collect(collected, plan, found, variant.labels,
                                      servers.peak_rss(watched), tuning, used, seconds, busy)
                    labels_of.setdefault(step % len(plans), labels)
                for name, report in reports.items():  # the servers' own view of the trial
                    for found in _report(name, report):
                        _collect(collected, plan, found, variant.labels, {}, tuning, {},
                                 seconds, busy)
                if step < len(plans) and parsed.series:  # the program's own, first trial's
                    made += [p.model_copy(update={"labels": labels_of[step]})
                             for p in parsed.profiles][:MAX_PROFILES - len(made)]
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
            "metric_info": {**counters.metric_info(sorted(
                {name for series in collected.values() for trial in series.trials
                 for name in trial.metrics})), **metric_info},
            "host": {"name": host.name, "tags": host.tags, "fingerprint": host.fingerprint},
            "series": [counters.mark_disturbed(series) for series in collected.values()],
            "profiles": made,
        })
    except ValidationError as error:
        raise JobError(f"the job's result is invalid: {validation_message(error)}") from error


def _profiled_trial(suite: Suite, plan: SeriesPlan, context: Context, argv: list[str],
                    cpus: frozenset[int] | None, scheduled: Scheduling | None,
                    group: ProgramGroup, servers: Servers, labels: dict[str, str] | None,
                    longest_s: float, made: int) -> list[ProfileIn]:
    """One more trial of the series with each of its programs profiled. Its measurements
    are not read; a program that fails in it fails the job, a profiler only its profile."""
    reason = ("it measured nothing a profile could go with" if labels is None
              else profiles.skip_reason(servers.deadline, longest_s, made))
    if reason is not None or labels is None:
        _LOG.warning("series %s not profiled: %s", labels or plan.labels, reason)
        return []
    with profiles.Session(group.workdir, program_env(), servers.deadline, labels) as session:
        for server in plan.servers:
            session.attach(server.name, render(server.command, context),
                           group.processes[server.name].pid, _agent(server, context))
        agent = _agent(plan.load, context)
        command, env = session.load_command(plan.load.name, argv, agent)
        process = group.start(plan.load.name, command, suite.directory, env, cpus=cpus,
                              scheduling=scheduled)
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
    return Network(name, profile, group, program_env(), suite.directory)
