import dataclasses
import json
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Query, Response, status

from latlab.analysis import baselines, catalogue, profiles, thresholds
from latlab.analysis import compare as comparisons
from latlab.analysis import trends as history
from latlab.analysis.schemas import (
    BaselinePin,
    BaselineRead,
    ChangePointRead,
    CompareRead,
    FrameDelta,
    GateSettings,
    GateSettingsRead,
    MetricDelta,
    ProfileCompareRead,
    ProfileDelta,
    ProfileUnmatched,
    RunRef,
    SeriesDelta,
    StackDelta,
    TrendBranch,
    TrendCatalogue,
    TrendParamsSet,
    TrendPoint,
    TrendRead,
    TrendSeries,
    TrendWindow,
)
from latlab.annotations import service as annotations
from latlab.auth.dependencies import Admin, Member, Reader, rate_limited
from latlab.core.db import DbSession
from latlab.core.errors import Conflict, NotFound, Unprocessable
from latlab.core.openapi import documented, raises
from latlab.core.params import Id, IdQuery
from latlab.core.rate_limits import Use
from latlab.core.routing import ApiRoute
from latlab.core.schemas import Moment
from latlab.models import Baseline, Project, Run
from latlab.projects import service as projects
from latlab.runs import profiles as stored_profiles
from latlab.runs import service as run_service
from latlab.runs.keys import label_key
from latlab.suites import service as suite_service
from latlab_contract import reports
from latlab_contract.fields import INT64_MAX

router = APIRouter(tags=["analysis"], route_class=ApiRoute)
Text = Annotated[str, Query(max_length=200)]


@raises(NotFound)
def get_baseline(baseline_id: Id, principal: Reader, session: DbSession) -> Baseline:
    return baselines.get_baseline(session, principal.project_id, baseline_id)


BaselineFromPath = Annotated[Baseline, Depends(get_baseline)]


# format=markdown and format=csv answer text/markdown and text/csv; only JSON is declared in
# the schema, so the typed client keeps one response type.
@router.get("/compare", response_model=CompareRead, responses=documented(NotFound),
            dependencies=rate_limited(Use.heavy_reads))
def compare(
    baseline: IdQuery, candidate: IdQuery, principal: Reader, session: DbSession,
    baseline_labels: Annotated[str | None, Query(
        description='Compare only the baseline run\'s series with these labels, as JSON '
                    '(e.g. {"server":"go"}); series are then matched on their other labels')]
    = None,
    candidate_labels: Annotated[str | None, Query(
        description='The same for the candidate run (e.g. {"server":"zig"}); the two runs '
                    'may be one')] = None,
    format: Annotated[Literal["json", "markdown", "csv"], Query(
        description="json; markdown: a table (text/markdown) for a CI summary or a PR "
        "comment; csv: a table (text/csv) for a spreadsheet")] = "json",
) -> CompareRead | Response:
    """Baseline vs candidate: per series and metric, both values, the delta and a verdict."""
    project_id = principal.project_id
    before = run_service.load_run(session, baseline, project_id)
    after = run_service.load_run(session, candidate, project_id)
    selectors = (_labels(baseline_labels, "baseline_labels"),
                 _labels(candidate_labels, "candidate_labels"))
    result = comparisons.compare_runs(
        before, after, suite_service.run_vocabulary(session, after),
        baseline_labels=selectors[0], candidate_labels=selectors[1])
    read = _compare_read(result, selectors)
    if format == "json":
        return read
    rows = reports.compare_rows(read.model_dump(mode="json"))
    if format == "csv":
        return Response(reports.csv_text(rows), media_type="text/csv")
    title = (f"latlab: run {candidate} vs baseline {baseline} "
             f"({result.candidate.suite}/{result.candidate.scenario})")
    lines = [f"- warning: {warning}" for warning in read.warnings]
    return Response(reports.markdown(rows, title=title, lines=lines),
                    media_type="text/markdown")


@router.get("/compare/profiles", responses=documented(NotFound),
            dependencies=rate_limited(Use.heavy_reads))
def compare_profiles(
    baseline: IdQuery, candidate: IdQuery, principal: Reader, session: DbSession,
    baseline_labels: Annotated[str | None, Query(
        description="The baseline's series selector, as for /compare")] = None,
    candidate_labels: Annotated[str | None, Query(
        description='The candidate\'s, e.g. {"variant":"candidate"} against '
                    '{"variant":"baseline"} of one confirmation run')] = None,
    program: Annotated[str | None, Query(max_length=64, description="Only this program's "
                                         "profiles, e.g. server")] = None,
    frames: Annotated[int, Query(ge=1, le=2000, description="At most this many frames per "
                                 "profile, the largest changes first")] = 200,
) -> ProfileCompareRead:
    """Two runs' CPU profiles, series by series and program by program: per frame the
    share of samples on each side and the difference, and the stacks of both sides for a
    differential flame graph."""
    project_id = principal.project_id
    before = run_service.load_run(session, baseline, project_id)
    after = run_service.load_run(session, candidate, project_id)
    selectors = (_labels(baseline_labels, "baseline_labels"),
                 _labels(candidate_labels, "candidate_labels"))
    pairs = comparisons.matched_series(before, after, *selectors)
    sides = [{(p.series_id, p.program): p for p, _ in stored_profiles.of_run(session, run)
              if program is None or p.program == program} for run in (before, after)]
    deltas, unmatched = [], []
    for labels, old_series, new_series in pairs.matched:
        programs = ({name for series_id, name in sides[0] if series_id == old_series.id}
                    | {name for series_id, name in sides[1] if series_id == new_series.id})
        for name in sorted(programs):
            old = sides[0].get((old_series.id, name))
            new = sides[1].get((new_series.id, name))
            if old is None or new is None:
                side, series = ("candidate", new_series) if old is None else (
                    "baseline", old_series)
                unmatched.append(ProfileUnmatched(side=side, labels=series.labels,
                                                  program=name))
                continue
            found = profiles.diff(stored_profiles.stacks(old), stored_profiles.stacks(new))
            deltas.append(ProfileDelta(
                labels=labels, program=name, baseline_profile_id=old.id,
                candidate_profile_id=new.id, baseline_tool=old.tool, candidate_tool=new.tool,
                baseline_samples=found.baseline_samples,
                candidate_samples=found.candidate_samples,
                frames=[FrameDelta(
                    frame=f.frame, baseline_self=f.baseline_self,
                    candidate_self=f.candidate_self, self_delta=f.self_delta,
                    baseline_total=f.baseline_total, candidate_total=f.candidate_total,
                    total_delta=f.total_delta) for f in found.frames[:frames]],
                stacks=[StackDelta(frames=list(s.frames), baseline=s.baseline,
                                   candidate=s.candidate) for s in found.stacks],
                stacks_left_out=found.stacks_left_out))
    return ProfileCompareRead(baseline=_ref(before), candidate=_ref(after),
                              baseline_labels=selectors[0], candidate_labels=selectors[1],
                              profiles=deltas, unmatched=unmatched)


def _compare_read(result: comparisons.RunComparison,
                  selectors: tuple[dict[str, str], dict[str, str]]) -> CompareRead:
    return CompareRead(
        baseline=_ref(result.baseline), candidate=_ref(result.candidate),
        baseline_labels=selectors[0], candidate_labels=selectors[1],
        series=[SeriesDelta(
            labels=s.labels, baseline_series_id=s.baseline_series_id,
            candidate_series_id=s.candidate_series_id, baseline_labels=s.baseline_labels,
            candidate_labels=s.candidate_labels,
            metrics=[MetricDelta(
                metric=m.metric, label=m.label, unit=m.unit, direction=m.direction,
                baseline=m.comparison.baseline, candidate=m.comparison.candidate,
                delta=m.comparison.delta, delta_pct=m.comparison.delta_pct,
                verdict=m.comparison.verdict, confidence=m.comparison.confidence,
                p_value=m.comparison.p_value, method=m.comparison.method,
                evidence=m.comparison.reason, baseline_trials=m.baseline_trials,
                candidate_trials=m.candidate_trials, reliable=m.reliable,
            ) for m in s.metrics],
        ) for s in result.series],
        unmatched_baseline=result.unmatched_baseline,
        unmatched_candidate=result.unmatched_candidate, warnings=result.warnings,
    )


def _labels_or_params(text: str, name: str) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise Unprocessable(f"{name} must be a JSON object", f"query.{name}")
    return value


def _labels(text: str | None, name: str) -> dict[str, str]:
    if text is None:
        return {}
    try:
        labels = json.loads(text)
    except ValueError:
        labels = None
    if not isinstance(labels, dict) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in labels.items()):
        raise Unprocessable(f"{name} must be a JSON object of strings", f"query.{name}")
    return labels


@router.get("/trends/series", responses=documented(NotFound))
def trend_series(principal: Reader, session: DbSession, suite: Text, scenario: Text,
                 run_id: Annotated[int | None, Query(
                     ge=1, le=INT64_MAX, description="A run whose series to include (a "
                     "trend opened from it)")] = None) -> TrendCatalogue:
    """The series and metrics a scenario's trend can draw: those of its newest runs, the ones
    the newest run failed on first (labels and metrics only, not the runs' details)."""
    found = catalogue.catalogue(session, principal.project_id, suite, scenario, run_id)
    if found is None:
        raise NotFound(f"no run of {suite}/{scenario}")
    return TrendCatalogue(
        newest_run_id=found.newest_run_id, metrics=found.metrics,
        series=[TrendSeries(labels=labels, failing=failing) for labels, failing in found.series])


@router.get("/trends", responses=documented(NotFound),
            dependencies=rate_limited(Use.heavy_reads))
def trends(
    principal: Reader, session: DbSession, suite: Text, scenario: Text,
    metric: Text = "p99",
    labels: Annotated[str, Query(description='Series labels as JSON, e.g. {"client":"rust"}')]
    = "{}",
    branch: Annotated[str | None, Query(
        max_length=200, description="The branch drawn: by default the run's (with `run_id`), "
        "else the default branch (main); a history never mixes branches")] = None,
    host: Text | None = None,
    limit: Annotated[int, Query(ge=2, le=2000)] = 200,
    params: Annotated[str | None, Query(
        description="The runs' params as JSON; by default those of the run (with `run_id`), "
                    "else of the branch's newest run, so a history never mixes params (other "
                    "params are another history: the answer lists them)")] = None,
    since: Annotated[Moment | None, Query(
        description="From this moment on (ISO 8601); a range of the default branch with more "
                    "runs than `limit` is read from the daily rollups, one point a day")]
    = None,
    run_id: Annotated[int | None, Query(
        ge=1, le=INT64_MAX, description="Draw this run's history: its params and branch "
        "unless given, and its point (the range ends at it when it is older than the newest "
        "`limit` runs)")] = None,
) -> TrendRead:
    """A metric over time for one series on one branch with one params set, oldest first,
    with its change points, the latest run's window, and the other branches and params."""
    wanted = _labels(labels, "labels")
    project_id = principal.project_id
    if run_id is not None:
        focus = run_service.load_run(session, run_id, project_id)
        branch = branch or focus.branch
    info = suite_service.vocabulary(session, suite).info(metric)
    drawn = history.view(session, history.TrendQuery(
        suite=suite, scenario=scenario, label_key=label_key(wanted), metric=metric,
        project_id=project_id, branch=branch, host=host, limit=limit, since=since,
        through_run_id=run_id,
        params=None if params is None else _labels_or_params(params, "params")),
        info, principal.project.gate_settings or {})
    points, chosen = drawn.points, drawn.query.params or {}
    return TrendRead(
        suite=suite, scenario=scenario, metric=metric, params=chosen,
        branch=drawn.query.branch or run_service.DEFAULT_BRANCH,
        branches=[TrendBranch.model_validate(b, from_attributes=True)
                  for b in drawn.branches],
        params_sets=[TrendParamsSet.model_validate(p, from_attributes=True)
                     for p in drawn.params_sets],
        resolution="day" if any(p.run_id is None for p in points) else "run", unit=info.unit,
        direction=info.direction, labels=wanted,
        points=[TrendPoint.model_validate(p, from_attributes=True) for p in points],
        change_points=[ChangePointRead(index=c.index, run_id=points[c.index].run_id,
                                       started_at=points[c.index].started_at,
                                       before=c.before, after=c.after,
                                       delta_pct=c.delta_pct, p_value=c.p_value)
                       for c in drawn.change_points],
        window=None if drawn.window is None else TrendWindow.model_validate(
            drawn.window, from_attributes=True),
    )


@router.post("/baselines", status_code=status.HTTP_201_CREATED,
             responses=documented(NotFound, Conflict))
def pin(body: BaselinePin, principal: Member, session: DbSession) -> BaselineRead:
    """Pin a run of the project as the baseline of its (suite, scenario, branch)."""
    projects.writable(principal.project)
    run = run_service.load_run(session, body.run_id, principal.project_id)
    return BaselineRead.model_validate(
        baselines.pin_baseline(session, run, body.branch, principal.signed_in.id),
        from_attributes=True)


@router.get("/baselines")
def list_baselines(principal: Reader, session: DbSession) -> list[BaselineRead]:
    """The project's pinned baselines."""
    return [BaselineRead.model_validate(b, from_attributes=True)
            for b in baselines.list_baselines(session, principal.project_id)]


@router.delete("/baselines/{baseline_id}", status_code=status.HTTP_204_NO_CONTENT)
def unpin(pinned: BaselineFromPath, principal: Member, session: DbSession) -> None:
    """Unpin: the latest good run of main is the baseline again."""
    session.delete(pinned)


def _ref(run: Run) -> RunRef:
    return RunRef(id=run.id, suite=run.suite, scenario=run.scenario, branch=run.branch,
                  commit=run.commit, host_name=run.host_name, started_at=run.started_at)


@router.get("/gate-settings")
def get_gate_settings(principal: Reader) -> GateSettingsRead:
    """The CI gate's thresholds of the current project (window, test, false alarms, minimum
    effect), by suite and scenario."""
    return _gate_settings(principal.project)


@router.put("/gate-settings")
def put_gate_settings(body: GateSettings, admin: Admin, session: DbSession) -> GateSettingsRead:
    """Set the current project's gate thresholds (admins); later runs are judged by them, and
    the change is marked on the trends it concerns."""
    target = projects.writable(admin.project)
    before, target.gate_settings = target.gate_settings or {}, body.model_dump(exclude_none=True)
    annotations.gate_changed(session, target, before, target.gate_settings, admin.actor.label)
    return _gate_settings(target)


def _gate_settings(project: Project) -> GateSettingsRead:
    stored = GateSettings.model_validate(project.gate_settings or {})
    default = thresholds.effective(project.gate_settings or {}, "", "")
    return GateSettingsRead(project=project.slug, default=stored.default, suites=stored.suites,
                            effective_default=dataclasses.asdict(default))
