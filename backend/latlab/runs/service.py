"""The runs' queries: lists, a run with its series and trials, spectra, what a run's metrics
mean."""

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Select, func, or_, select
from sqlalchemy.orm import Session, selectinload

from latlab.core.errors import (
    Gone,
    NotFound,
)
from latlab.models import Project, Run, Series, User
from latlab.projects import service as projects
from latlab.runs.histogram import Histogram
from latlab.suites import service as suite_service
from latlab_contract.vocabulary import LATENCY_KEYS, SUMMARY_PERCENTILES, MetricInfo, tail_reliable


@dataclass(frozen=True)
class RunFilters:
    project_id: int
    suite: str | None = None
    scenario: str | None = None
    branch: str | None = None
    commit: str | None = None
    host: str | None = None
    source: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    verdict: str | None = None  # a verdict, or "none": runs not judged
    suite_prefix: str | None = None


# The runs list counts matching runs up to this many: a count over a year of history would
# cost more than the page itself.
COUNT_LIMIT = 10_000


# The orders the runs list offers: newest first (the default), oldest first, by suite and
# scenario (newest first within each), or by the P99 of each run's headline series (runs with
# none last).
ORDERS = {
    "-started_at": (Run.started_at.desc(), Run.id.desc()),
    "started_at": (Run.started_at.asc(), Run.id.asc()),
    "suite": (Run.suite.asc(), Run.scenario.asc(), Run.started_at.desc(), Run.id.desc()),
    "-suite": (Run.suite.desc(), Run.scenario.desc(), Run.started_at.desc(), Run.id.desc()),
    "-p99": (Run.headline_p99.desc().nulls_last(), Run.id.desc()),
    "p99": (Run.headline_p99.asc().nulls_last(), Run.id.desc()),
}


def list_runs(
    session: Session, filters: RunFilters, limit: int, offset: int, order: str = "-started_at"
) -> tuple[list[tuple[Run, str]], int, bool]:
    """A page of runs in `order` (one of `ORDERS`), and how many match (counted up to
    `COUNT_LIMIT`; the flag says there are more)."""
    query = _filtered(select(Run), filters)
    # Newest first, as the default page: the count walks the same index and stops at the limit.
    counted = session.scalar(select(func.count()).select_from(
        query.with_only_columns(Run.id).order_by(Run.started_at.desc())
        .limit(COUNT_LIMIT + 1).subquery())) or 0
    rows = session.execute(
        query.add_columns(Project.slug)
        .join(Project, Project.id == Run.project_id)
        .order_by(*ORDERS[order])
        .limit(limit)
        .offset(offset)
    ).all()
    return ([(row[0], row[1]) for row in rows], min(counted, COUNT_LIMIT),
            counted > COUNT_LIMIT)


def get_run(session: Session, run_id: int, project_id: int) -> Run:
    run = session.scalar(
        select(Run)
        .options(
            selectinload(Run.project),
            selectinload(Run.series).selectinload(Series.trials),
        )
        .where(Run.id == run_id, Run.project_id == project_id)
    )
    if run is None:
        raise NotFound(f"no run {run_id}")
    return run


def get_series(session: Session, run: Run, series_id: int) -> Series:
    # Its own query, not `get_series_of(run, [series_id])`: with that, a run of 400 series
    # took bench.pages' run page from 1.9 s to 3.8-4.8 s (measured three times each way).
    series = session.scalar(
        select(Series)
        .options(selectinload(Series.trials))
        .where(Series.id == series_id, Series.run_id == run.id)
    )
    if series is None:
        raise NotFound(f"run {run.id} has no series {series_id}")
    return series


def get_series_of(session: Session, run: Run, series_ids: list[int]) -> list[Series]:
    """Series of `run` in the order asked; a series the run does not have is an error."""
    found = {s.id: s for s in session.scalars(
        select(Series).options(selectinload(Series.trials))
        .where(Series.id.in_(series_ids), Series.run_id == run.id))}
    missing = [i for i in series_ids if i not in found]
    if missing:
        raise NotFound(f"run {run.id} has no series {', '.join(map(str, missing))}")
    return [found[i] for i in dict.fromkeys(series_ids)]


def spectrum(series: Series) -> tuple[list[dict[str, float]], list[dict[str, float]] | None]:
    kept = [t.histogram for t in series.trials if t.histogram is not None]
    if len(kept) < len(series.trials):
        raise Gone(f"the histograms of series {series.id} were retired by the project's "
                   f"retention; its summaries remain")
    corrected = Histogram.merge([Histogram.from_blob(blob) for blob in kept])
    blobs = [t.histogram_uncorrected for t in series.trials]
    uncorrected = (
        Histogram.merge([Histogram.from_blob(b) for b in blobs if b is not None])
        if all(b is not None for b in blobs)
        else None
    )
    return corrected.spectrum(), None if uncorrected is None else uncorrected.spectrum()


def metric_info(session: Session, run: Run) -> dict[str, MetricInfo]:
    """Unit and direction of every summary key and metric of the run."""
    vocabulary = suite_service.run_vocabulary(session, run)
    names = set(LATENCY_KEYS) | {"count"}
    for series in run.series:
        names.update(series.metrics)
    return {name: vocabulary.info(name) for name in sorted(names)}


def unreliable_tails(count: int) -> list[str]:
    """Summary percentiles with too few samples beyond them to be trusted (P99.9 of 5,000
    samples rests on 5 values)."""
    return [key for key, percentile in SUMMARY_PERCENTILES.items()
            if not tail_reliable(count, percentile)]


def _filtered(query: Select[tuple[Run]], filters: RunFilters) -> Select[tuple[Run]]:
    conditions = [Run.project_id == filters.project_id]
    if filters.suite:
        conditions.append(Run.suite == filters.suite)
    if filters.suite_prefix:
        conditions.append(Run.suite.startswith(filters.suite_prefix.lower(), autoescape=True))
    if filters.scenario:
        conditions.append(Run.scenario == filters.scenario)
    if filters.verdict == "none":
        conditions.append(Run.verdict.is_(None))
    elif filters.verdict:
        conditions.append(Run.verdict == filters.verdict)
    if filters.branch:
        conditions.append(Run.branch == filters.branch)
    if filters.commit:
        conditions.append(Run.commit.startswith(filters.commit, autoescape=True))
    if filters.host:
        conditions.append(Run.host_name == filters.host)
    if filters.source:
        conditions.append(Run.source_kind == filters.source)
    if filters.since:
        conditions.append(Run.started_at >= filters.since)
    if filters.until:
        conditions.append(Run.started_at < filters.until)
    return query.where(*conditions)


DEFAULT_BRANCH = "main"


def project_of_run(session: Session, run_id: int, user: User) -> str:
    """The slug of the project run `run_id` belongs to, when `user` may use that project."""
    run = session.get(Run, run_id)
    if run is None or not projects.may_use(session, user, run.project_id):
        raise NotFound(f"no run {run_id}")
    return session.get_one(Project, run.project_id).slug


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


def series_value(series: Series, metric: str) -> float | None:
    """The series' value of a metric: merged-histogram summary, or the trials' median."""
    if metric in LATENCY_KEYS or metric == "count":
        value = series.summary.get(metric)
    else:
        value = series.metrics.get(metric)
    return None if value is None else float(value)


def series_value_column(metric: str) -> ColumnElement[float]:
    """`series_value` read by Postgres: the one value instead of the series' JSON columns."""
    column = Series.summary if metric in LATENCY_KEYS or metric == "count" else Series.metrics
    value: ColumnElement[float] = column[metric].as_float()
    return value


def on_default_branch(branch: Any = Run.branch) -> ColumnElement[bool]:
    """Runs of the default branch; a lab job's run names no branch and counts as one."""
    return or_(branch == DEFAULT_BRANCH, branch.is_(None))


def run_at_commit(session: Session, run: Run, branch: str, commit: str | None
                  ) -> datetime | None:
    """When the latest run of `run`'s suite and scenario on `branch` at `commit` (a prefix)
    started: a start point's place in its branch's history (None: no commit given, or no such
    run, so the whole history up to now)."""
    if not commit:
        return None
    branches = on_default_branch() if branch == DEFAULT_BRANCH else Run.branch == branch
    return session.scalar(
        select(Run.started_at).where(
            Run.project_id == run.project_id, Run.suite == run.suite,
            Run.scenario == run.scenario, branches,
            Run.commit.startswith(commit.lower(), autoescape=True))
        .order_by(Run.started_at.desc()).limit(1))
