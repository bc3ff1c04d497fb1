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
from latlab.runs.service import DEFAULT_BRANCH, on_default_branch, series_value_column
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
# the same however long the history grows (a thousand: months of a series' runs at a few a
# day; 5,000 cost the trends page 14 ms of its 47).
CHOICES_LOOKBACK = 1_000


def view(session: Session, query: TrendQuery, info: MetricInfo,
         gate_settings: dict[str, Any]) -> TrendView:
    """A history as the trends page draws it: `query.branch` (the default branch when None),
    the params of `query.through_run_id`'s run, or given, or of the branch's newest run."""
    query = dataclasses.replace(query, branch=query.branch or DEFAULT_BRANCH)
    recent = recent_groups(session, query)
    if query.params is None:
        query = dataclasses.replace(query, params=(
            _newest_params(recent, query.branch) if query.through_run_id is None else None)
            or latest_params(session, query))
    points, found = trend(session, query)
    branches, params_sets = choices(recent, query, _params_key(session, query))
    return TrendView(query, points, found, branches, params_sets,
                     latest_window(session, query, points, info, gate_settings))


def trend(session: Session, query: TrendQuery
          ) -> tuple[list[TrendPoint], list[changepoints.ChangePoint]]:
    """The newest `limit` values of a metric, oldest first, and their change points. The
    history is an index range of `series` (its history and params keys, newest first), so
    the read costs the same whatever else the lab has stored."""
    if (query.since is not None and _from_rollups(query)
            and _runs_since(session, query) > query.limit):
        points = _rollup_points(session, query)
        return points, baselines.change_points([p.value for p in points])
    series_filter = _history_filter(query)
    if (params_key := _params_key(session, query)) is not None:
        series_filter.append(Series.params_key == params_key)
    if query.host:
        series_filter.append(Series.host_name == query.host)
    if query.branch:
        series_filter.append(_on_branch(query.branch))
    if query.since is not None:
        series_filter.append(Series.started_at >= query.since)
    rows = _newest(session, series_filter, query.metric, query.limit)
    if query.through_run_id is not None and all(r[0] != query.through_run_id for r in rows):
        through = session.execute(
            select(Series.started_at, Series.id).where(
                *series_filter, Series.run_id == query.through_run_id)).first()
        if through is not None:
            rows = _newest(session, [*series_filter, tuple_(Series.started_at, Series.id)
                                     <= tuple_(through[0], through[1])], query.metric,
                           query.limit)
    points = [TrendPoint(run_id, started_at, value, commit, branch, host_name)
              for run_id, commit, started_at, branch, host_name, value in reversed(rows)
              if value is not None]
    return points, baselines.change_points([p.value for p in points])


def _newest(session: Session, series_filter: list[ColumnElement[bool]], metric: str,
            limit: int
            ) -> Sequence[Row[int, str | None, datetime, str | None, str | None, float]]:
    """The newest `limit` series of a history, newest first: their run's id and commit, start,
    branch, host and the metric's value. Runs started in the same second keep their order of
    arrival (the series' ids)."""
    return session.execute(
        select(Run.id, Run.commit, Series.started_at, Series.branch, Series.host_name,
               series_value_column(metric))
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


@dataclass(frozen=True)
class _Recent:
    """The runs of a branch with one params key among the history's newest runs."""

    branch: str
    params_key: str | None
    runs: int
    last_started_at: datetime
    last_series_id: int  # breaks a tie of starts between groups
    last_run_id: int  # the group's newest run by its id
    params: dict[str, Any] | None  # that run's

    @property
    def newest(self) -> tuple[datetime, int]:
        return self.last_started_at, self.last_series_id


def recent_groups(session: Session, query: TrendQuery) -> list[_Recent]:
    """What the history holds among its newest `CHOICES_LOOKBACK` runs (on the query's
    host): its runs counted by branch (a run naming none is the default branch's) and params
    key, with the params of each group's newest run. One index range, one statement."""
    newest = select(Series.branch, Series.params_key, Series.started_at, Series.run_id,
                    Series.id).where(*_history_filter(query))
    if query.host:
        newest = newest.where(Series.host_name == query.host)
    lately = newest.order_by(Series.started_at.desc()).limit(CHOICES_LOOKBACK).subquery()
    name = func.coalesce(lately.c.branch, DEFAULT_BRANCH)
    groups = select(name.label("branch"), lately.c.params_key, func.count().label("runs"),
                    func.max(lately.c.started_at).label("last"),
                    func.max(lately.c.id).label("series_id"),
                    func.max(lately.c.run_id).label("run_id"),
                    ).group_by(name, lately.c.params_key).subquery()
    return [_Recent(*row) for row in session.execute(
        select(groups.c.branch, groups.c.params_key, groups.c.runs, groups.c.last,
               groups.c.series_id, groups.c.run_id, Run.params)
        .join(Run, Run.id == groups.c.run_id)).all()]


def _newest_params(recent: list[_Recent], branch: str | None) -> dict[str, Any] | None:
    """The params of the branch's newest params key among the recent runs (None: it has
    none), as its newest run by id has them: runs of one key differ at most in params at
    their defaults, which the key leaves out."""
    on_branch = [r for r in recent if branch is None or r.branch == branch]
    return max(on_branch, key=lambda r: r.newest).params if on_branch else None


def choices(recent: list[_Recent], query: TrendQuery, drawn: str | None
            ) -> tuple[list[BranchRuns], list[ParamsSet]]:
    """What else the history holds among its recent runs, the most recent first: the
    branches with runs of the params drawn (key `drawn`), and the params sets with runs on
    the branch drawn (the other histories a change of params started)."""
    by_branch: dict[str, BranchRuns] = {}
    by_params: dict[str | None, list[_Recent]] = {}
    for group in recent:
        if drawn is None or group.params_key == drawn:
            seen = by_branch.get(group.branch)
            by_branch[group.branch] = BranchRuns(
                group.branch, group.runs + (seen.runs if seen else 0),
                max(group.last_started_at, seen.last_started_at) if seen
                else group.last_started_at)
        if query.branch is None or group.branch == query.branch:
            by_params.setdefault(group.params_key, []).append(group)
    params_sets = []
    for key, groups in by_params.items():
        newest = max(groups, key=lambda g: g.newest)
        params_sets.append(ParamsSet(newest.params or {}, sum(g.runs for g in groups),
                                     max(g.last_run_id for g in groups),
                                     newest.last_started_at, key == drawn))
    return (sorted(by_branch.values(), key=lambda b: b.last_started_at, reverse=True),
            sorted(params_sets, key=lambda p: (p.last_started_at, p.last_run_id),
                   reverse=True))


def latest_window(session: Session, query: TrendQuery, points: list[TrendPoint],
                  info: MetricInfo, gate_settings: dict[str, Any]) -> LatestWindow | None:
    """The window of the trend's latest run: the gate's evidence when it judged this series'
    metric against one; else the same computed on the branch drawn, for this metric alone
    (at the project's false-alarm level, where the gate takes Holm's over its metrics), and
    remembered by the run, as the gate's evidence is kept with it: a run submitted later with
    an earlier start does not join a window already judged. None for days of rollups, or a
    history too short for a window."""
    if not points or points[-1].run_id is None:
        return None
    run_id = points[-1].run_id
    found = session.execute(
        select(Run.gate_evidence, Run.suite, Run.scenario, Run.created_at, Series.labels)
        .join(Series, Series.run_id == Run.id)
        .where(Run.id == run_id, Run.project_id == query.project_id,
               Series.label_key == query.label_key)).first()
    if found is None:
        return None
    stored, suite, scenario, created_at, labels = found
    for evidence in stored or []:
        if evidence.get("metric") == query.metric and evidence.get("series") == labels:
            # Evidence stored before it named its unit names none.
            return LatestWindow(run_id, "gate", {"unit": info.unit, **evidence})
    limits = thresholds.effective(gate_settings, suite, scenario)
    branch = query.branch or DEFAULT_BRANCH
    # The run by its id and the moment it was stored: ids of another database (a test's, a
    # lab set up again beside the same Redis) are other runs.
    asked = json.dumps([run_id, created_at, query.label_key, query.metric, branch,
                        dataclasses.asdict(limits)], sort_keys=True, default=str)
    computed = memo(f"latlab:window:v1:{hashlib.sha256(asked.encode()).hexdigest()}",
                    lambda: _window(session, run_id, query, info, limits, branch))
    return None if computed is None else LatestWindow(run_id, "computed", computed)


def _window(session: Session, run_id: int, query: TrendQuery, info: MetricInfo,
            limits: thresholds.Thresholds, branch: str) -> dict[str, Any] | None:
    """The gate's evidence for one series' metric of a run, judged against its window now."""
    run = run_service.load_run(session, run_id, query.project_id)
    series = next(s for s in run.series if s.label_key == query.label_key)
    history = baselines.history_windows(
        session, run, [query.metric], limits.window, branch=branch,
        label_key=series.label_key).get((series.label_key, query.metric), [])
    stats = window_stats([item.values for item in history])
    values = tuple(compare.trial_values(series, query.metric))
    if stats is None or not values:
        return None
    judged = gate.judge_window([(series.labels, info, values)],
                               [gate.Window(branch, history, stats)], limits)
    evidence: dict[str, Any] = judged.evidence[0]
    return evidence


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
