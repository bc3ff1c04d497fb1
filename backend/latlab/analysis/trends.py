"""A series' history over time: its runs' values on one branch with one params set (rollups
for long ranges of the default branch), its change points, the other branches and params sets
it has, and the window its latest run is (or would be) judged against."""

import dataclasses
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, time
from typing import Any

from sqlalchemy import ColumnElement, Row, func, select, tuple_
from sqlalchemy.orm import Session

from latlab.analysis import baselines, changepoints, compare, gate, thresholds
from latlab.analysis.window import window_stats
from latlab.core.cache import memo
from latlab.models import Rollup, Run, Series
from latlab.runs import keys
from latlab.runs import service as run_service
from latlab.runs.service import DEFAULT_BRANCH, on_default_branch, series_value
from latlab.suites import service as suite_service
from latlab_contract.vocabulary import MetricInfo


@dataclass(frozen=True)
class TrendQuery:
    """One series' history: runs of (suite, scenario) with these params whose series carries
    these labels."""

    suite: str
    scenario: str
    label_key: str
    metric: str
    project_id: int  # a history belongs to one project
    # A history is keyed like a comparison: runs with other params are another history (a
    # param the suite added later counts only away from its default: `keys.params_key`).
    params: dict[str, Any] | None = None
    # From this moment on; when the range holds more runs than `limit`, the trend reads the
    # daily rollups of the default branch instead, one point a day.
    since: datetime | None = None
    branch: str | None = None  # None: every branch (the api always names one)
    host: str | None = None
    limit: int = 200
    # This run's point is drawn: when it is older than the newest `limit` runs, the range
    # ends at it instead.
    through_run_id: int | None = None


@dataclass(frozen=True)
class TrendPoint:
    run_id: int | None  # None for a day of rollups
    started_at: datetime
    value: float
    commit: str | None
    branch: str | None
    host_name: str | None
    runs: int = 1  # a day of rollups: how many runs its median stands for


@dataclass(frozen=True)
class BranchRuns:
    """A branch with runs in a history (with the params drawn)."""

    name: str
    runs: int
    last_started_at: datetime


@dataclass(frozen=True)
class ParamsSet:
    """A params set with runs in a history (on the branch drawn)."""

    params: dict[str, Any]  # those of its newest run
    runs: int
    last_run_id: int
    last_started_at: datetime
    drawn: bool  # the params set the query draws


@dataclass(frozen=True)
class LatestWindow:
    """The window the latest run of a trend is judged against: the gate's own evidence, or
    the same computed for this metric alone."""

    run_id: int
    source: str  # "gate" | "computed"
    evidence: dict[str, Any]


@dataclass(frozen=True)
class TrendView:
    """What the trends page draws of one series: its points and change points on one branch
    with one params set, what else the history holds, and its latest run's window."""

    query: TrendQuery
    points: list[TrendPoint]
    change_points: list[changepoints.ChangePoint]
    branches: list[BranchRuns]
    params_sets: list[ParamsSet]
    window: LatestWindow | None


# Branches and params sets are counted among the history's newest runs, so the read costs
# the same however long the history grows.
CHOICES_LOOKBACK = 5_000


def view(session: Session, query: TrendQuery, info: MetricInfo,
         gate_settings: dict[str, Any]) -> TrendView:
    """A history as the trends page draws it: `query.branch` (the default branch when None),
    the params of `query.through_run_id`'s run, or given, or of the branch's newest run."""
    query = dataclasses.replace(query, branch=query.branch or DEFAULT_BRANCH)
    if query.params is None:
        query = dataclasses.replace(query, params=latest_params(session, query))
    points, found = trend(session, query)
    return TrendView(query, points, found, branches(session, query),
                     params_sets(session, query),
                     latest_window(session, query, points, info, gate_settings))


def trend(session: Session, query: TrendQuery
          ) -> tuple[list[TrendPoint], list[changepoints.ChangePoint]]:
    """The newest `limit` values of a metric, oldest first, and their change points. The
    history is an index range of `series` (its history and params keys, newest first), so
    the read costs the same whatever else the lab has stored."""
    if (query.since is not None and _from_rollups(query)
            and _runs_since(session, query) > query.limit):
        points = _rollup_points(session, query)
        return points, change_points([p.value for p in points])
    series_filter = _history_filter(query)
    if (params_key := _params_key(session, query)) is not None:
        series_filter.append(Series.params_key == params_key)
    if query.host:
        series_filter.append(Series.host_name == query.host)
    if query.branch:
        series_filter.append(_on_branch(query.branch))
    if query.since is not None:
        series_filter.append(Series.started_at >= query.since)
    rows = _newest(session, series_filter, query.limit)
    if query.through_run_id is not None and all(r[0] != query.through_run_id for r in rows):
        through = session.execute(
            select(Series.started_at, Series.id).where(
                *series_filter, Series.run_id == query.through_run_id)).first()
        if through is not None:
            rows = _newest(session, [*series_filter, tuple_(Series.started_at, Series.id)
                                     <= tuple_(through[0], through[1])], query.limit)
    points = []
    for run_id, commit, series in reversed(rows):
        value = series_value(series, query.metric)
        if value is not None:
            points.append(TrendPoint(run_id, series.started_at, value, commit, series.branch,
                                     series.host_name))
    return points, change_points([p.value for p in points])


def _newest(session: Session, series_filter: list[ColumnElement[bool]], limit: int
            ) -> Sequence[Row[int, str | None, Series]]:
    """The newest `limit` series of a history, newest first, with their run's id and commit.
    Runs started in the same second keep their order of arrival (the series' ids)."""
    return session.execute(
        select(Run.id, Run.commit, Series)
        .join(Run, Run.id == Series.run_id)
        .where(*series_filter)
        .order_by(Series.started_at.desc(), Series.id.desc())
        .limit(limit)).all()


def _from_rollups(query: TrendQuery) -> bool:
    """Whether a long range may be read from the rollups: they hold the default branch's
    runs of every host, so a trend of another branch or of one host reads runs."""
    return query.host is None and query.branch in (None, DEFAULT_BRANCH)


def _runs_since(session: Session, query: TrendQuery) -> int:
    """Runs of the history since `query.since`, counted up to `limit + 1`."""
    matching = select(Series.id).where(*_history_filter(query),
                                       Series.started_at >= query.since)
    if (params_key := _params_key(session, query)) is not None:
        matching = matching.where(Series.params_key == params_key)
    if query.branch:
        matching = matching.where(_on_branch(query.branch))
    return session.scalar(select(func.count()).select_from(
        matching.limit(query.limit + 1).subquery())) or 0


def _rollup_points(session: Session, query: TrendQuery) -> list[TrendPoint]:
    """One point a day from the rollups: the median of the day's run values."""
    assert query.since is not None
    history = keys.history(query.project_id, query.suite, query.scenario, query.label_key)
    statement = (select(Rollup).where(Rollup.history == history, Rollup.metric == query.metric,
                                      Rollup.day >= query.since.date())
                 .order_by(Rollup.day))
    if (params_key := _params_key(session, query)) is not None:
        statement = statement.where(Rollup.params_key == params_key)
    return [TrendPoint(None, datetime.combine(row.day, time(), tzinfo=UTC), row.median, None,
                       DEFAULT_BRANCH, None, row.runs)
            for row in session.scalars(statement)]


def latest_params(session: Session, query: TrendQuery) -> dict[str, Any] | None:
    """The params of `query.through_run_id`'s run, else of the newest run of the history on
    its branch (and host), so one without params is still one history (a change of params
    starts another)."""
    if query.through_run_id is not None:
        params: dict[str, Any] | None = session.scalar(select(Run.params).where(
            Run.id == query.through_run_id, Run.project_id == query.project_id))
        if params is not None:
            return params
    statement = (select(Run.params).join(Series, Series.run_id == Run.id)
                 .where(*_history_filter(query)))
    if query.branch:
        statement = statement.where(_on_branch(query.branch))
    if query.host:
        statement = statement.where(Series.host_name == query.host)
    return session.scalar(statement.order_by(Series.started_at.desc(), Series.id.desc())
                          .limit(1))


def branches(session: Session, query: TrendQuery) -> list[BranchRuns]:
    """The branches with runs of the history with the params drawn (a run naming no branch
    is the default branch's), among its newest `CHOICES_LOOKBACK` runs, the most recent
    first."""
    recent = select(Series.branch, Series.started_at).where(*_history_filter(query))
    if (params_key := _params_key(session, query)) is not None:
        recent = recent.where(Series.params_key == params_key)
    if query.host:
        recent = recent.where(Series.host_name == query.host)
    newest = recent.order_by(Series.started_at.desc()).limit(CHOICES_LOOKBACK).subquery()
    name = func.coalesce(newest.c.branch, DEFAULT_BRANCH)
    rows = session.execute(select(name, func.count(), func.max(newest.c.started_at))
                           .group_by(name)).all()
    return sorted((BranchRuns(branch, count, last) for branch, count, last in rows),
                  key=lambda b: b.last_started_at, reverse=True)


def params_sets(session: Session, query: TrendQuery) -> list[ParamsSet]:
    """The params sets with runs of the history on the branch drawn (and host), among its
    newest `CHOICES_LOOKBACK` runs, the most recent first: the other histories a change of
    params started."""
    recent = select(Series.params_key, Series.started_at, Series.run_id).where(
        *_history_filter(query))
    if query.branch:
        recent = recent.where(_on_branch(query.branch))
    if query.host:
        recent = recent.where(Series.host_name == query.host)
    newest = recent.order_by(Series.started_at.desc()).limit(CHOICES_LOOKBACK).subquery()
    counted = session.execute(
        select(newest.c.params_key, func.count(), func.max(newest.c.started_at),
               func.max(newest.c.run_id))
        .group_by(newest.c.params_key)).all()
    params: dict[int, dict[str, Any]] = {run_id: value for run_id, value in session.execute(
        select(Run.id, Run.params).where(Run.id.in_([row[3] for row in counted])))}
    drawn = _params_key(session, query)
    return sorted((ParamsSet(params[run_id], count, run_id, last, key == drawn)
                   for key, count, last, run_id in counted),
                  key=lambda p: (p.last_started_at, p.last_run_id), reverse=True)


def latest_window(session: Session, query: TrendQuery, points: list[TrendPoint],
                  info: MetricInfo, gate_settings: dict[str, Any]) -> LatestWindow | None:
    """The window of the trend's latest run: the gate's evidence when it judged this series'
    metric against one; else the same computed on the branch drawn, for this metric alone
    (at the project's false-alarm level, where the gate takes Holm's over its metrics). None
    for days of rollups, or a history too short for a window."""
    if not points or points[-1].run_id is None:
        return None
    run = run_service.load_run(session, points[-1].run_id, query.project_id)
    series = next((s for s in run.series if s.label_key == query.label_key), None)
    if series is None:
        return None
    for evidence in run.gate_evidence or []:
        if evidence.get("metric") == query.metric and evidence.get("series") == series.labels:
            # Evidence stored before it named its unit names none.
            return LatestWindow(run.id, "gate", {"unit": info.unit, **evidence})
    limits = thresholds.effective(gate_settings, run.suite, run.scenario)
    branch = query.branch or DEFAULT_BRANCH
    history = baselines.history_windows(session, run, [query.metric], limits.window,
                                        branch=branch).get((series.label_key, query.metric), [])
    stats = window_stats([item.values for item in history])
    values = tuple(compare.trial_values(series, query.metric))
    if stats is None or not values:
        return None
    judged = gate.judge_window([(series.labels, info, values)],
                               [gate.Window(branch, history, stats)], limits)
    return LatestWindow(run.id, "computed", judged.evidence[0])


def _params_key(session: Session, query: TrendQuery) -> str | None:
    """The key of the params drawn, as the runs' series were stored with it."""
    if query.params is None:
        return None
    return keys.params_key(query.params, suite_service.omitted_params(session, query.suite))


def _history_filter(query: TrendQuery) -> list[ColumnElement[bool]]:
    return [Series.history == keys.history(query.project_id, query.suite, query.scenario,
                                           query.label_key)]


def _on_branch(branch: str) -> ColumnElement[bool]:
    return on_default_branch(Series.branch) if branch == DEFAULT_BRANCH else (
        Series.branch == branch)


def change_points(values: list[float]) -> list[changepoints.ChangePoint]:
    """E-Divisive change points of a history, remembered by its values: the ingest worker
    finds them for each new run, so the dashboard's trends read them at once."""
    digest = hashlib.sha256(json.dumps(values).encode()).hexdigest()
    found = memo(f"latlab:change-points:v1:{digest}",
                 lambda: [dataclasses.asdict(c) for c in changepoints.detect(values)])
    return [changepoints.ChangePoint(**c) for c in found]
