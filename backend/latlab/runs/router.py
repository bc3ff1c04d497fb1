from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query
from fastapi.responses import PlainTextResponse

from latlab.auth.dependencies import Admin, Reader, rate_limited
from latlab.core.db import DbSession
from latlab.core.errors import NotFound
from latlab.core.params import Id, IdItem, Limit, Offset
from latlab.core.rate_limits import Use
from latlab.core.routing import ApiRoute
from latlab.core.schemas import Moment
from latlab.models import Project, Run, Series
from latlab.projects.schemas import CurrentProject
from latlab.runs import context, exports, overview, profiles, service
from latlab.runs.dependencies import RunFromPath
from latlab.runs.schemas import (
    AlertRef,
    BisectionRef,
    ContextPoint,
    Headline,
    OverviewPage,
    OverviewRow,
    ProfileRead,
    RetentionRead,
    RetentionUpdate,
    RunContext,
    RunListItem,
    RunPage,
    RunRead,
    RunSummary,
    SeriesContext,
    SeriesRead,
    SourceRead,
    SparkPoint,
    Spectrum,
    SpectrumPoint,
    StartPointRead,
    TrialRead,
    VocabularyRead,
)
from latlab_contract import vocabulary as words

router = APIRouter(tags=["runs"], route_class=ApiRoute)

@router.get("/runs")
def list_runs(
    principal: Reader,
    session: DbSession,
    suite: str | None = None,
    scenario: str | None = None,
    branch: str | None = None,
    commit: str | None = None,
    host: str | None = None,
    source: Literal["ci", "job", "manual"] | None = None,
    since: Annotated[Moment | None, Query(description="ISO 8601, inclusive")] = None,
    until: Annotated[Moment | None, Query(description="ISO 8601, exclusive")] = None,
    verdict: Annotated[
        Literal["pass", "fail", "inconclusive", "no-baseline", "none"] | None,
        Query(description="The CI gate's verdict; none: runs not judged")] = None,
    suite_prefix: Annotated[str | None, Query(
        max_length=64, description="Suites starting with this, case-insensitive")] = None,
    order: Annotated[Literal["-started_at", "started_at", "suite", "-suite", "-p99", "p99"],
                     Query(description="-started_at: newest first; suite: by suite and "
                           "scenario, newest first within each; -p99: by the headline's P99, "
                           "highest first (runs without one last)")] = "-started_at",
    limit: Limit = 50,
    offset: Offset = 0,
) -> RunPage:
    """The project's runs, filtered, ordered and paginated, each with its headline."""
    filters = service.RunFilters(
        project_id=principal.project_id, suite=suite, scenario=scenario, branch=branch,
        commit=commit, host=host, source=source, since=since, until=until, verdict=verdict,
        suite_prefix=suite_prefix,
    )
    rows, total, more = service.list_runs(session, filters, limit, offset, order)
    lines = overview.headlines(session, [run for run, _ in rows])
    return RunPage(
        items=[_list_item(run, slug, lines.get(run.id)) for run, slug in rows],
        total=total, total_capped=more, limit=limit, offset=offset,
    )


@router.get("/overview")
def get_overview(principal: Reader, session: DbSession, limit: Limit = 25,
                 offset: Offset = 0) -> OverviewPage:
    """Every suite and scenario of the project with its latest run, failing ones first (the
    latest run failed its gate or a critical alert is open), each with its open alerts and a
    sparkline of its latest runs' headline P99; and the catalogue's suites with no run."""
    rows, total, idle = overview.latest_per_pair(session, principal.project_id, limit, offset)
    slug = principal.project.slug
    return OverviewPage(
        items=[OverviewRow(run=_list_item(row.run, slug, row.headline),
                           open_alerts=row.open_alerts, critical_alerts=row.critical_alerts,
                           failing=row.failing,
                           spark=[SparkPoint(run_id=run_id, p99=p99) for run_id, p99 in row.spark])
               for row in rows],
        total=total, limit=limit, offset=offset, suites_without_runs=idle)


@router.get("/runs/{run_id}")
def get_run(run: RunFromPath, session: DbSession) -> RunRead:
    """A run with its series, per-trial summaries (nanoseconds), metrics, host and source."""
    series = [
        SeriesRead(
            id=s.id, labels=s.labels, summary=s.summary, summary_uncorrected=s.summary_uncorrected,
            unreliable=service.unreliable_tails(int(s.summary["count"])), metrics=s.metrics,
            failures=s.failures, **_origin(s.summary_origin),
            trials=[
                TrialRead(
                    index=t.index, exact=t.exact,
                    summary={k: getattr(t, k) for k in _SUMMARY_KEYS},
                    unreliable=service.unreliable_tails(t.count),
                    **_origin(t.summary_origin),
                    summary_uncorrected=t.summary_uncorrected,
                    metrics=t.metrics, failures=t.failures,
                    intervals=_without_histograms(t.intervals),
                    tuning=t.tuning, disturbed=t.disturbed,
                )
                for t in s.trials
            ],
        )
        for s in run.series
    ]
    base = _summary(run, run.project.slug)
    return RunRead(
        **base.model_dump(), params=run.params, host_tags=run.host_tags,
        host_fingerprint=run.host_fingerprint, job_id=run.job_id,
        verdict_reasons=run.verdict_reasons, gate_evidence=run.gate_evidence, series=series,
        sweep=run.sweep,
        metric_info=service.metric_info(session, run),
        harness=run.harness, errors_expected=run.errors_expected,
    )


@router.get("/runs/{run_id}/project", responses={404: {"description": "No such run that the "
                                                   "caller may see"}})
def find_run_project(run_id: Id, principal: Reader, session: DbSession) -> CurrentProject:
    """The project a run belongs to, for a signed-in user who may use it (a shared run URL
    opens in its project: the dashboard switches to it). Not for tokens: a token has one
    project."""
    if principal.user is None:
        raise NotFound(f"no run {run_id}")
    return CurrentProject(project=service.project_of_run(session, run_id, principal.user))


@router.get("/runs/{run_id}/context")
def get_run_context(run: RunFromPath, session: DbSession) -> RunContext:
    """Around a run: each series' recent history (P99 and throughput), its value in the run's
    baseline, and the alerts the run opened."""
    found = context.of_run(session, run)

    def point(p: context.Point) -> ContextPoint:
        return ContextPoint(run_id=p.run_id, p99=p.p99, throughput=p.throughput)

    return RunContext(
        series=[SeriesContext(
            series_id=s.id, history=[point(p) for p in found.histories.get(s.id, [])],
            baseline=point(found.baseline[s.id]) if s.id in found.baseline else None)
            for s in run.series],
        alerts=[AlertRef(id=a.id, severity=a.severity, state=a.state, metric=a.metric,
                         message=a.message, bisection=_bisection_ref(found, a.bisection_id))
                for a in found.alerts])


def _bisection_ref(found: context.Context, bisection_id: int | None) -> BisectionRef | None:
    bisection = found.bisections.get(bisection_id) if bisection_id is not None else None
    return None if bisection is None else BisectionRef(
        id=bisection.id, status=bisection.status, message=bisection.message)


# The spectra one request may ask for: what a chart shows at once, not a whole 400-series run.
MAX_SPECTRA = 40


@router.get("/runs/{run_id}/series/{series_id}/spectrum")
def get_spectrum(run: RunFromPath, series_id: Id, session: DbSession) -> Spectrum:
    """Percentile spectrum of a series (all trials merged), for charts."""
    return _spectrum(service.get_series(session, run, series_id))


@router.get("/runs/{run_id}/spectra", responses={404: {"description": "No such run, or a "
                                                 "series it does not have"}})
def get_spectra(run: RunFromPath, session: DbSession,
                series_id: Annotated[list[IdItem], Query(min_length=1, max_length=MAX_SPECTRA,
                                                     description="Series of the run, in the "
                                                     "order wanted")]) -> list[Spectrum]:
    """The percentile spectra of several series of a run in one request (at most 40)."""
    return [_spectrum(series) for series in service.get_series_of(session, run, series_id)]


def _spectrum(series: Series) -> Spectrum:
    corrected, uncorrected = service.spectrum(series)
    return Spectrum(
        series_id=series.id, labels=series.labels,
        corrected=[SpectrumPoint(**p) for p in corrected],
        uncorrected=None if uncorrected is None else [SpectrumPoint(**p) for p in uncorrected],
    )


@router.get("/vocabulary")
def vocabulary(principal: Reader) -> VocabularyRead:
    """Metric labels, units and directions, time units and the tail rule, for the dashboard."""
    return VocabularyRead(metrics=words.GENERIC, time_units=words.TIME_UNITS,
                          latency_keys=list(words.LATENCY_KEYS),
                          min_tail_samples=words.MIN_TAIL_SAMPLES)


@router.get(
    "/runs/{run_id}/series/{series_id}/trials/{index}/hlog",
    response_class=PlainTextResponse,
    responses={200: {"content": {"text/plain": {}}, "description": "An HdrHistogram log"},
               410: {"description": "The trial's histogram was retired by retention"}},
    dependencies=rate_limited(Use.heavy_reads),
)
def get_trial_hlog(
    run: RunFromPath, series_id: Id,
    index: Annotated[int, Path(ge=0, le=1000)], session: DbSession,
) -> PlainTextResponse:
    """A trial's latency as an HdrHistogram interval log (`.hlog`, values in ns), with its
    intervals when it kept their histograms: for HdrHistogram's plotters and log tools."""
    series = service.get_series(session, run, series_id)
    return PlainTextResponse(
        exports.trial_hlog(run, series, index),
        headers=_attachment(f"run-{run.id}-series-{series.id}-trial-{index}.hlog"))


@router.get("/runs/{run_id}/profiles", dependencies=rate_limited(Use.heavy_reads))
def list_profiles(run: RunFromPath, session: DbSession) -> list[ProfileRead]:
    """The run's CPU profiles, one per series and program profiled (a job with `profile`, a
    confirmation that measured both versions, or a CI submission's `profiles`)."""
    return [ProfileRead(id=p.id, series_id=p.series_id, labels=labels, program=p.program,
                        tool=p.tool, frequency_hz=p.frequency_hz, samples=p.samples,
                        stacks=p.stacks, folded_bytes=p.folded_bytes)
            for p, labels in profiles.of_run(session, run)]


@router.get("/runs/{run_id}/profiles/{profile_id}", response_model=None,
            responses={200: {"content": {"application/json": {}, "text/plain": {}},
                             "description": "A speedscope document, or folded stacks with "
                             "format=folded"}},
            dependencies=rate_limited(Use.heavy_reads))
def get_profile(
    run: RunFromPath, profile_id: Id, session: DbSession,
    format: Annotated[Literal["speedscope", "folded"], Query(
        description="speedscope: a speedscope document (open it at speedscope.app); folded: "
        "one line per stack, `frame;frame count`, for flamegraph.pl and most profilers' "
        "tools")] = "speedscope",
) -> dict[str, Any] | PlainTextResponse:
    """One profile's stacks."""
    profile = profiles.get(session, run, profile_id)
    stacks = profiles.stacks(profile)
    name = f"run {run.id} {profile.program} ({profile.tool})"
    if format == "folded":
        return PlainTextResponse(
            profiles.folded(stacks),
            headers=_attachment(f"run-{run.id}-profile-{profile.id}.folded"))
    return profiles.speedscope(stacks, name)


@router.get(
    "/runs/{run_id}/summary.csv",
    response_class=PlainTextResponse,
    responses={200: {"content": {"text/csv": {}}, "description": "The run's summary"}},
    dependencies=rate_limited(Use.heavy_reads),
)
def get_run_csv(run: RunFromPath) -> PlainTextResponse:
    """A run's summary as CSV: each series merged and per trial, latency in ns, metrics."""
    return PlainTextResponse(exports.run_csv(run), media_type="text/csv",
                             headers=_attachment(f"run-{run.id}.csv"))


@router.get("/retention")
def get_retention(principal: Reader) -> RetentionRead:
    """How long the project keeps trials' intervals and histograms (summaries stay)."""
    return _retention(principal.project)


@router.put("/retention")
def put_retention(body: RetentionUpdate, admin: Admin) -> RetentionRead:
    """Change the current project's retention (admins); beat applies it in small batches."""
    target = admin.project
    target.intervals_retention_days = body.intervals_retention_days
    target.histograms_retention_days = body.histograms_retention_days
    return _retention(target)


def _retention(project: Project) -> RetentionRead:
    return RetentionRead(project=project.slug,
                         intervals_retention_days=project.intervals_retention_days,
                         histograms_retention_days=project.histograms_retention_days)


_SUMMARY_KEYS = ("count", "min", "max", "mean", "stddev", "p50", "p90", "p95", "p99", "p999",
                 "p9999")


def _origin(origin: dict[str, Any] | None) -> dict[str, Any]:
    """Which summary statistics the harness printed, which were interpolated, and the step
    the harness printed in."""
    origin = origin or {}
    return {"reported": origin.get("reported", []),
            "interpolated": origin.get("interpolated", []),
            "resolution_ns": origin.get("resolution_ns")}


def _without_histograms(intervals: list[dict[str, Any]] | None) -> list[dict[str, Any]] | None:
    """Intervals as charts need them: their histograms are served by the hlog export."""
    if intervals is None:
        return None
    return [{k: v for k, v in interval.items() if k != "hdr"} for interval in intervals]


def _attachment(filename: str) -> dict[str, str]:
    return {"Content-Disposition": f'attachment; filename="{filename}"'}


def _list_item(run: Run, project: str, line: overview.Headline | None) -> RunListItem:
    return RunListItem(
        **_summary(run, project).model_dump(),
        headline=None if line is None else Headline(
            series=line.series, p99=line.p99, throughput=line.throughput,
            p99_interpolated=line.p99_interpolated, window_delta_pct=line.window_delta_pct))


def _summary(run: Run, project: str) -> RunSummary:
    return RunSummary(
        id=run.id, project=project, suite=run.suite, scenario=run.scenario,
        host_name=run.host_name,
        source=SourceRead(kind=run.source_kind, repo=run.repo, commit=run.commit,
                          branch=run.branch,
                          build_url=run.build_url, pull_request=run.pull_request,
                          start_point=None if run.start_branch is None else StartPointRead(
                              branch=run.start_branch, commit=run.start_commit)),
        started_at=run.started_at, finished_at=run.finished_at, created_at=run.created_at,
        series_count=run.series_count, trial_count=run.trial_count, verdict=run.verdict,
        baseline_run_id=run.baseline_run_id, confirmation=run.confirmation,
        confirms_run_id=run.confirms_run_id, intervals_retired_at=run.intervals_retired_at,
        histograms_retired_at=run.histograms_retired_at,
    )
