import json
from typing import Annotated, Literal

from fastapi import APIRouter, Query, Response, status
from sqlalchemy import select

from latlab.analysis import reports
from latlab.analysis import service as analysis
from latlab.analysis.schemas import (
    BaselinePin,
    BaselineRead,
    ChangePointRead,
    CompareRead,
    MetricDelta,
    RunRef,
    SeriesDelta,
    TrendPoint,
    TrendRead,
)
from latlab.auth.dependencies import Member, Reader
from latlab.core.db import DbSession
from latlab.core.errors import NotFound, Unprocessable
from latlab.models import Baseline, Run
from latlab.runs import metrics as metric_registry
from latlab.runs.service import label_key

router = APIRouter(tags=["analysis"])
RunId = Annotated[int, Query(ge=1)]


# format=markdown and format=csv answer text/markdown and text/csv; only JSON is declared in
# the schema, so the typed client keeps one response type.
@router.get("/compare", response_model=CompareRead)
def compare(
    baseline: RunId, candidate: RunId, principal: Reader, session: DbSession,
    format: Annotated[Literal["json", "markdown", "csv"], Query(
        description="json; markdown: a table (text/markdown) for a CI summary or a PR "
        "comment; csv: a table (text/csv) for a spreadsheet")] = "json",
) -> CompareRead | Response:
    """Baseline vs candidate: per series and metric, both values, the delta and a verdict."""
    project_id = principal.token_project_id
    result = analysis.compare_runs(analysis.load_run(session, baseline, project_id),
                                   analysis.load_run(session, candidate, project_id))
    read = _compare_read(result)
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


def _compare_read(result: analysis.RunComparison) -> CompareRead:
    return CompareRead(
        baseline=_ref(result.baseline), candidate=_ref(result.candidate),
        series=[SeriesDelta(
            labels=s.labels, baseline_series_id=s.baseline_series_id,
            candidate_series_id=s.candidate_series_id,
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


@router.get("/trends")
def trends(
    principal: Reader, session: DbSession, suite: str, scenario: str,
    metric: str = "p99",
    labels: Annotated[str, Query(description='Series labels as JSON, e.g. {"client":"rust"}')]
    = "{}",
    branch: str | None = None, host: str | None = None,
    limit: Annotated[int, Query(ge=2, le=2000)] = 200,
) -> TrendRead:
    """A metric over time for one series, oldest first, with its change points."""
    try:
        wanted = json.loads(labels)
        assert isinstance(wanted, dict)
    except (ValueError, AssertionError):
        raise Unprocessable("labels must be a JSON object", "query.labels") from None
    points, found = analysis.trend(session, analysis.TrendQuery(
        suite=suite, scenario=scenario, label_key=label_key(wanted), metric=metric,
        project_id=principal.token_project_id, branch=branch, host=host, limit=limit))
    info = metric_registry.info(metric)
    return TrendRead(
        suite=suite, scenario=scenario, metric=metric, unit=info.unit,
        direction=info.direction, labels=wanted,
        points=[TrendPoint.model_validate(p, from_attributes=True) for p in points],
        change_points=[ChangePointRead(index=c.index, run_id=points[c.index].run_id,
                                       before=c.before, after=c.after,
                                       delta_pct=c.delta_pct, p_value=c.p_value)
                       for c in found],
    )


@router.post("/baselines", status_code=status.HTTP_201_CREATED)
def pin(body: BaselinePin, user: Member, session: DbSession) -> BaselineRead:
    """Pin a run as the baseline of its (suite, scenario, branch)."""
    run = session.get(Run, body.run_id)
    if run is None:
        raise NotFound(f"no run {body.run_id}")
    return BaselineRead.model_validate(
        analysis.pin_baseline(session, run, body.branch, user.id), from_attributes=True)


@router.get("/baselines")
def list_baselines(principal: Reader, session: DbSession) -> list[BaselineRead]:
    """Pinned baselines."""
    return [BaselineRead.model_validate(b, from_attributes=True)
            for b in session.scalars(select(Baseline).order_by(Baseline.id))]


@router.delete("/baselines/{baseline_id}", status_code=status.HTTP_204_NO_CONTENT)
def unpin(baseline_id: int, user: Member, session: DbSession) -> None:
    """Unpin: the latest good run of main is the baseline again."""
    pinned = session.get(Baseline, baseline_id)
    if pinned is None:
        raise NotFound(f"no baseline {baseline_id}")
    session.delete(pinned)


def _ref(run: Run) -> RunRef:
    return RunRef(id=run.id, suite=run.suite, scenario=run.scenario, branch=run.branch,
                  commit=run.commit, host_name=run.host_name, started_at=run.started_at)

