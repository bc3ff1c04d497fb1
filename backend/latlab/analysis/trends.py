"""A series' history over time: its runs' values (rollups for long ranges), change points."""

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime, time
from typing import Any

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.orm import Session

from latlab.analysis import changepoints
from latlab.core.cache import memo
from latlab.models import Rollup, Run, Series
from latlab.runs import keys
from latlab.runs.service import DEFAULT_BRANCH, on_default_branch, series_value


@dataclass(frozen=True)
class TrendQuery:
    """One series' history: runs of (suite, scenario) with these params whose series carries
    these labels."""

    suite: str
    scenario: str
    label_key: str
    metric: str
    project_id: int  # a history belongs to one project
    # A history is keyed like a comparison: runs with other params are another history.
    params: dict[str, Any] | None = None
    # From this moment on; when the range holds more runs than `limit`, the trend reads the
    # daily rollups of the default branch instead, one point a day.
    since: datetime | None = None
    branch: str | None = None
    host: str | None = None
    limit: int = 200


@dataclass(frozen=True)
class TrendPoint:
    run_id: int | None  # None for a day of rollups
    started_at: datetime
    value: float
    commit: str | None
    branch: str | None
    host_name: str | None
    runs: int = 1  # a day of rollups: how many runs its median stands for


def trend(session: Session, query: TrendQuery
          ) -> tuple[list[TrendPoint], list[changepoints.ChangePoint]]:
    """The newest `limit` values of a metric, oldest first, and their change points. The
    history is an index range of `series` (its history and params keys, newest first), so
    the read costs the same whatever else the lab has stored."""
    if query.since is not None and _runs_since(session, query) > query.limit:
        points = _rollup_points(session, query)
        return points, change_points([p.value for p in points])
    series_filter = _history_filter(query)
    if query.params is not None:
        series_filter.append(Series.params_key == keys.params_key(query.params))
    if query.host:
        series_filter.append(Series.host_name == query.host)
    if query.branch:
        series_filter.append(on_default_branch(Series.branch) if query.branch == DEFAULT_BRANCH
                             else Series.branch == query.branch)
    if query.since is not None:
        series_filter.append(Series.started_at >= query.since)
    rows = session.execute(
        select(Run.id, Run.commit, Series)
        .join(Run, Run.id == Series.run_id)
        .where(*series_filter)
        .order_by(Series.started_at.desc(), Series.id.desc())
        .limit(query.limit)).all()
    points = []
    for run_id, commit, series in reversed(rows):
        value = series_value(series, query.metric)
        if value is not None:
            points.append(TrendPoint(run_id, series.started_at, value, commit, series.branch,
                                     series.host_name))
    return points, change_points([p.value for p in points])


def _runs_since(session: Session, query: TrendQuery) -> int:
    """Runs of the history since `query.since`, counted up to `limit + 1`."""
    matching = select(Series.id).where(*_history_filter(query),
                                       Series.started_at >= query.since)
    if query.params is not None:
        matching = matching.where(Series.params_key == keys.params_key(query.params))
    return session.scalar(select(func.count()).select_from(
        matching.limit(query.limit + 1).subquery())) or 0


def _rollup_points(session: Session, query: TrendQuery) -> list[TrendPoint]:
    """One point a day from the rollups: the median of the day's run values."""
    assert query.since is not None
    history = keys.history(query.project_id, query.suite, query.scenario, query.label_key)
    statement = (select(Rollup).where(Rollup.history == history, Rollup.metric == query.metric,
                                      Rollup.day >= query.since.date())
                 .order_by(Rollup.day))
    if query.params is not None:
        statement = statement.where(Rollup.params_key == keys.params_key(query.params))
    return [TrendPoint(None, datetime.combine(row.day, time(), tzinfo=UTC), row.median, None,
                       DEFAULT_BRANCH, None, row.runs)
            for row in session.scalars(statement)]


def latest_params(session: Session, query: TrendQuery) -> dict[str, Any] | None:
    """The params of the newest run in a history, so one without params is still one
    history (a change of params starts another)."""
    return session.scalar(
        select(Run.params).join(Series, Series.run_id == Run.id)
        .where(*_history_filter(query))
        .order_by(Series.started_at.desc(), Series.id.desc()).limit(1))


def _history_filter(query: TrendQuery) -> list[ColumnElement[bool]]:
    return [Series.history == keys.history(query.project_id, query.suite, query.scenario,
                                           query.label_key)]


def change_points(values: list[float]) -> list[changepoints.ChangePoint]:
    """E-Divisive change points of a history, remembered by its values: the ingest worker
    finds them for each new run, so the dashboard's trends read them at once."""
    digest = hashlib.sha256(json.dumps(values).encode()).hexdigest()
    found = memo(f"latlab:change-points:v1:{digest}",
                 lambda: [dataclasses.asdict(c) for c in changepoints.detect(values)])
    return [changepoints.ChangePoint(**c) for c in found]
