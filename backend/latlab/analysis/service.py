"""Comparisons between runs, baselines, and metric histories.

A verdict rests on trial-level values (each trial's p99, throughput, ...), never on pooled
raw samples of two runs: pooling calls ordinary run-to-run noise a regression.
"""

import dataclasses
import hashlib
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, time
from typing import Any

from sqlalchemy import ColumnElement, func, or_, select
from sqlalchemy.orm import Session, selectinload

from latlab.analysis import changepoints
from latlab.analysis.stats import Comparison, compare
from latlab.core.cache import memo
from latlab.core.clock import get_clock
from latlab.core.errors import NotFound, Unprocessable
from latlab.models import Baseline, Rollup, Run, Series
from latlab.runs import keys
from latlab.runs.keys import label_key
from latlab_contract.vocabulary import (
    LATENCY_KEYS,
    SUMMARY_PERCENTILES,
    Direction,
    Vocabulary,
    tail_reliable,
)

DEFAULT_BRANCH = "main"
# Summary columns compared per trial (the min, one sample and often the timer's floor, is
# shown, not judged), and the percentile each tail key stands for.
COMPARED = tuple(key for key in LATENCY_KEYS if key != "min")
TAIL_PERCENTILES = {key: q for key, q in SUMMARY_PERCENTILES.items() if key != "p50"}
# Fingerprint keys whose difference makes two hosts' numbers hard to compare.
COMPARABILITY_KEYS = ("cpu_model", "cores", "kernel", "governor", "thp", "isolcpus",
                      "nohz_full", "rcu_nocbs", "hugepages", "swappiness", "clocksource",
                      "virtualization")


@dataclass(frozen=True)
class MetricComparison:
    metric: str
    label: str
    unit: str
    direction: Direction
    comparison: Comparison
    baseline_values: tuple[float, ...]  # the metric's value in each trial
    candidate_values: tuple[float, ...]
    reliable: bool = True

    @property
    def baseline_trials(self) -> int:
        return len(self.baseline_values)

    @property
    def candidate_trials(self) -> int:
        return len(self.candidate_values)


@dataclass
class SeriesComparison:
    labels: dict[str, Any]  # the labels the two series were matched on
    baseline_series_id: int
    candidate_series_id: int
    baseline_labels: dict[str, Any]
    candidate_labels: dict[str, Any]
    metrics: list[MetricComparison] = field(default_factory=list)


@dataclass
class RunComparison:
    baseline: Run
    candidate: Run
    series: list[SeriesComparison]
    unmatched_baseline: list[dict[str, Any]]
    unmatched_candidate: list[dict[str, Any]]
    warnings: list[str]


class AmbiguousSelection(Unprocessable):
    pass


def load_run(session: Session, run_id: int, project_id: int | None = None) -> Run:
    """A run with its series and trials; callers on behalf of a project name it (the ingest
    side, which follows a run's own links, does not)."""
    query = (select(Run).options(selectinload(Run.series).selectinload(Series.trials))
             .where(Run.id == run_id))
    if project_id is not None:
        query = query.where(Run.project_id == project_id)
    run = session.scalar(query)
    if run is None:
        raise NotFound(f"no run {run_id}")
    return run


def trial_values(series: Series, metric: str) -> list[float]:
    if metric in COMPARED:
        return [float(getattr(trial, metric)) for trial in series.trials]
    return [float(t.metrics[metric]) for t in series.trials if metric in t.metrics]


def series_value(series: Series, metric: str) -> float | None:
    """The series' value of a metric: merged-histogram summary, or the trials' median."""
    if metric in LATENCY_KEYS or metric == "count":
        value = series.summary.get(metric)
    else:
        value = series.metrics.get(metric)
    return None if value is None else float(value)


def compare_runs(baseline: Run, candidate: Run, vocabulary: Vocabulary, *,
                 baseline_labels: dict[str, str] | None = None,
                 candidate_labels: dict[str, str] | None = None,
                 min_effect: float = 0.05) -> RunComparison:
    """Series of the baseline against series of the candidate, matched by labels.

    Without selectors, series with equal labels are compared. With them, each side keeps the
    series carrying its selector's labels ({"profile": "baseline"} vs {"profile": "tuned"},
    possibly of one run), matched on their other labels: the seeds' "baseline vs tuned" and
    "zig vs go" tables, point by point."""
    selectors = (baseline_labels or {}, candidate_labels or {})
    ignored = set(selectors[0]) | set(selectors[1])
    before = _matchable(baseline, selectors[0], ignored, "baseline")
    after = _matchable(candidate, selectors[1], ignored, "candidate")
    matched: list[SeriesComparison] = []
    for key, series in after.items():
        other = before.get(key)
        if other is None:
            continue
        result = SeriesComparison(json.loads(key), other.id, series.id, other.labels,
                                  series.labels)
        names = [*COMPARED, *sorted(set(other.metrics) & set(series.metrics))]
        for name in names:
            old, new = trial_values(other, name), trial_values(series, name)
            if not old or not new:
                continue
            info = vocabulary.info(name)
            reliable = name not in TAIL_PERCENTILES or all(
                tail_reliable(t.count, TAIL_PERCENTILES[name])
                for t in [*other.trials, *series.trials])
            result.metrics.append(MetricComparison(
                metric=name, label=info.label, unit=info.unit, direction=info.direction,
                comparison=compare(old, new, info.direction, min_effect=min_effect),
                baseline_values=tuple(old), candidate_values=tuple(new), reliable=reliable,
            ))
        matched.append(result)
    return RunComparison(
        baseline=baseline, candidate=candidate, series=matched,
        unmatched_baseline=[s.labels for k, s in before.items() if k not in after],
        unmatched_candidate=[s.labels for k, s in after.items() if k not in before],
        warnings=comparability_warnings(baseline, candidate),
    )


def _matchable(run: Run, selector: dict[str, str], ignored: set[str],
               side: str) -> dict[str, Series]:
    """The run's series carrying the selector's labels, by their labels outside `ignored`."""
    chosen: dict[str, Series] = {}
    for series in run.series:
        if any(series.labels.get(k) != v for k, v in selector.items()):
            continue
        key = label_key({k: v for k, v in series.labels.items() if k not in ignored})
        if key in chosen:
            raise AmbiguousSelection(
                f"the {side} selector {selector} picks several series of run {run.id} with "
                f"the other labels {json.loads(key)}: name more labels",
                f"query.{side}_labels")
        chosen[key] = series
    return chosen


def comparability_warnings(baseline: Run, candidate: Run) -> list[str]:
    warnings = []
    if baseline.suite != candidate.suite or baseline.scenario != candidate.scenario:
        warnings.append(f"different benchmarks: {baseline.suite}/{baseline.scenario} vs "
                        f"{candidate.suite}/{candidate.scenario}")
    if baseline.params != candidate.params:
        warnings.append("the two runs used different parameters")
    for key in COMPARABILITY_KEYS:
        before = baseline.host_fingerprint.get(key)
        after = candidate.host_fingerprint.get(key)
        if before != after and (before is not None or after is not None):
            warnings.append(f"host {key} differs: {before} vs {after}")
    return warnings


def host_class(run: Run) -> str:
    fingerprint = run.host_fingerprint
    return "|".join([str(fingerprint.get("cpu_model", "")), str(fingerprint.get("cores", "")),
                     ",".join(sorted(run.host_tags))])


def history_key(run: Run, labels: dict[str, Any]) -> str:
    """What must match for two series to be comparable over time."""
    parts = [run.project_id, run.suite, run.scenario, run.params, labels, host_class(run)]
    text = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def resolve_baseline(session: Session, run: Run) -> Run | None:
    """The pinned baseline of the run's branch (else of main); else the latest run of main
    the gate did not fail or doubt, with the same params, on a host of the same class."""
    for branch in dict.fromkeys([run.branch or DEFAULT_BRANCH, DEFAULT_BRANCH]):
        pinned = session.scalar(select(Baseline.run_id).where(
            Baseline.project_id == run.project_id, Baseline.suite == run.suite,
            Baseline.scenario == run.scenario, Baseline.branch == branch))
        if pinned is not None and pinned != run.id:
            return load_run(session, pinned)
    candidates = session.scalars(
        select(Run).where(
            Run.project_id == run.project_id, Run.suite == run.suite,
            Run.scenario == run.scenario, on_default_branch(), Run.id < run.id,
            # Not a run that failed or is suspected: a baseline is a run the gate passed.
            or_(Run.verdict.is_(None), Run.verdict.not_in(("fail", "inconclusive"))),
            Run.confirms_run_id.is_(None),
        ).order_by(Run.id.desc()).limit(50)
    )
    for candidate in candidates:
        if host_class(candidate) == host_class(run) and candidate.params == run.params:
            return load_run(session, candidate.id)
    return None


def on_default_branch(branch: Any = Run.branch) -> ColumnElement[bool]:
    """Runs of the default branch; a lab job's run names no branch and counts as one."""
    return or_(branch == DEFAULT_BRANCH, branch.is_(None))


def pin_baseline(session: Session, run: Run, branch: str | None,
                 pinned_by_id: int | None) -> Baseline:
    branch = branch or run.branch or DEFAULT_BRANCH
    pinned = session.scalar(select(Baseline).where(
        Baseline.project_id == run.project_id, Baseline.suite == run.suite,
        Baseline.scenario == run.scenario, Baseline.branch == branch))
    if pinned is None:
        pinned = Baseline(project_id=run.project_id, suite=run.suite, scenario=run.scenario,
                          branch=branch, run_id=run.id, pinned_by_id=pinned_by_id,
                          created_at=get_clock().now())
        session.add(pinned)
    else:
        pinned.run_id = run.id
        pinned.pinned_by_id = pinned_by_id
        pinned.created_at = get_clock().now()
    session.flush()
    return pinned


def list_baselines(session: Session, project_id: int) -> list[Baseline]:
    return list(session.scalars(select(Baseline).where(Baseline.project_id == project_id)
                                .order_by(Baseline.id)))


def get_baseline(session: Session, project_id: int, baseline_id: int) -> Baseline:
    pinned = session.scalar(select(Baseline).where(Baseline.id == baseline_id,
                                                   Baseline.project_id == project_id))
    if pinned is None:
        raise NotFound(f"no baseline {baseline_id}")
    return pinned


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
