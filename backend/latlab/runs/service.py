"""The one ingest path (CI submissions and runner outcomes) and the run queries."""

import json
import statistics
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
from sqlalchemy import Select, func, select
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, selectinload

from latlab.analysis.stats import tail_reliable
from latlab.core.clock import get_clock
from latlab.core.errors import Conflict, NotFound
from latlab.models import Host, Project, Run, Series, Trial
from latlab.runs import metrics as metric_registry
from latlab.runs.histogram import SUMMARY_PERCENTILES, Histogram, Summary
from latlab.suites import service as suite_service
from latlab_contract.result import Latency, RunCreate, SeriesIn


@dataclass(frozen=True)
class Submission:
    run: Run
    replayed: bool


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


@dataclass(frozen=True)
class _TrialData:
    histogram: Histogram
    uncorrected: Histogram | None
    metrics: dict[str, float]
    intervals: list[dict[str, Any]] | None
    tuning: dict[str, str] | None


def submit(
    session: Session,
    project: Project,
    body: RunCreate,
    *,
    request_hash: str,
    idempotency_key: str | None = None,
    job_id: int | None = None,
) -> Submission:
    """Stores a `latlab.result/v1` document; a retried submission returns the first run."""
    if idempotency_key is not None:
        earlier = _find_by_key(session, project.id, idempotency_key)
        if earlier is not None:
            return _replay(earlier, request_hash)
    # Every histogram is built before anything is written, so bad content stores nothing.
    trials = [
        [_trial_data(trial, f"$.series[{s}].trials[{t}]") for t, trial in enumerate(item.trials)]
        for s, item in enumerate(body.series)
    ]
    host = _upsert_host(session, body) if body.host is not None else None
    run = Run(
        project_id=project.id,
        suite=body.suite,
        scenario=body.scenario,
        params=body.params,
        started_at=body.started_at,
        finished_at=body.finished_at,
        created_at=get_clock().now(),
        source_kind=body.source.kind,
        commit=body.source.commit,
        branch=body.source.branch,
        build_url=body.source.build_url,
        pull_request=body.source.pull_request,
        host_id=None if host is None else host.id,
        host_name=None if body.host is None else body.host.name,
        host_tags=[] if body.host is None else body.host.tags,
        host_fingerprint={} if body.host is None else body.host.fingerprint,
        job_id=job_id,
        idempotency_key=idempotency_key,
        request_hash=request_hash,
        sweep=None if body.sweep is None else body.sweep.model_dump(),
        metric_info={name: spec.model_dump() for name, spec in body.metric_info.items()},
    )
    try:
        with session.begin_nested():
            session.add(run)
            session.flush()
    except IntegrityError:
        # Another submission with the same key committed first: answer with its run.
        earlier = _find_by_key(session, project.id, idempotency_key or "")
        if earlier is None:
            raise
        return _replay(earlier, request_hash)
    for item, item_trials in zip(body.series, trials, strict=True):
        session.add(_series(run.id, item, item_trials))
    session.flush()
    return Submission(run, replayed=False)


def list_runs(
    session: Session, filters: RunFilters, limit: int, offset: int
) -> tuple[list[tuple[Run, str, int, int]], int]:
    query = _filtered(select(Run), filters)
    total = session.scalar(select(func.count()).select_from(query.subquery())) or 0
    series_count = (
        select(func.count()).where(Series.run_id == Run.id).correlate(Run).scalar_subquery()
    )
    trial_count = (
        select(func.count())
        .select_from(Trial)
        .join(Series, Series.id == Trial.series_id)
        .where(Series.run_id == Run.id)
        .correlate(Run)
        .scalar_subquery()
    )
    rows = session.execute(
        query.add_columns(Project.slug, series_count, trial_count)
        .join(Project, Project.id == Run.project_id)
        .order_by(Run.started_at.desc(), Run.id.desc())
        .limit(limit)
        .offset(offset)
    ).all()
    return [(row[0], row[1], row[2], row[3]) for row in rows], total


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
    series = session.scalar(
        select(Series)
        .options(selectinload(Series.trials))
        .where(Series.id == series_id, Series.run_id == run.id)
    )
    if series is None:
        raise NotFound(f"run {run.id} has no series {series_id}")
    return series


def spectrum(series: Series) -> tuple[list[dict[str, float]], list[dict[str, float]] | None]:
    corrected = Histogram.merge([Histogram.from_blob(t.histogram) for t in series.trials])
    blobs = [t.histogram_uncorrected for t in series.trials]
    uncorrected = (
        Histogram.merge([Histogram.from_blob(b) for b in blobs if b is not None])
        if all(b is not None for b in blobs)
        else None
    )
    return corrected.spectrum(), None if uncorrected is None else uncorrected.spectrum()


def metric_info(session: Session, run: Run) -> dict[str, metric_registry.MetricInfo]:
    """Unit and direction of every summary key and metric of the run."""
    vocabulary = suite_service.run_vocabulary(session, run)
    names = set(metric_registry.LATENCY_KEYS) | {"count"}
    for series in run.series:
        names.update(series.metrics)
    return {name: vocabulary.info(name) for name in sorted(names)}


def unreliable_tails(count: int) -> list[str]:
    """Summary percentiles with too few samples beyond them to be trusted (P99.9 of 5,000
    samples rests on 5 values)."""
    return [key for key, percentile in SUMMARY_PERCENTILES.items()
            if not tail_reliable(count, percentile)]


def _find_by_key(session: Session, project_id: int, key: str) -> Run | None:
    return session.scalar(
        select(Run).where(Run.project_id == project_id, Run.idempotency_key == key)
    )


def _replay(earlier: Run, request_hash: str) -> Submission:
    if earlier.request_hash != request_hash:
        raise Conflict(
            f"Idempotency-Key was used for run {earlier.id} with a different body"
        )
    return Submission(earlier, replayed=True)


def _trial_data(trial: Any, path: str) -> _TrialData:
    return _TrialData(
        histogram=_histogram(trial.latency, f"{path}.latency"),
        uncorrected=None
        if trial.latency_uncorrected is None
        else _histogram(trial.latency_uncorrected, f"{path}.latency_uncorrected"),
        metrics=dict(trial.metrics),
        intervals=None
        if trial.intervals is None
        else [i.model_dump(exclude_none=True) for i in trial.intervals],
        tuning=trial.tuning,
    )


def _histogram(latency: Latency, path: str) -> Histogram:
    if latency.samples_ns is not None:
        return Histogram.from_samples(
            np.asarray(latency.samples_ns, dtype=np.int64), f"{path}.samples_ns"
        )
    assert latency.hdr is not None
    return Histogram.from_hdr(latency.hdr, f"{path}.hdr")


def _series(run_id: int, item: SeriesIn, trials: list[_TrialData]) -> Series:
    merged = Histogram.merge([t.histogram for t in trials])
    uncorrected = [t.uncorrected for t in trials if t.uncorrected is not None]
    merged_uncorrected = (
        Histogram.merge(uncorrected) if len(uncorrected) == len(trials) else None
    )
    names = {name for t in trials for name in t.metrics}
    return Series(
        run_id=run_id,
        labels=item.labels,
        label_key=label_key(item.labels),
        summary=_merged_summary(trials, merged),
        summary_uncorrected=None
        if merged_uncorrected is None
        else merged_uncorrected.summary().as_dict(),
        metrics={
            name: statistics.median(t.metrics[name] for t in trials if name in t.metrics)
            for name in sorted(names)
        },
        trials=[_trial(index, data) for index, data in enumerate(trials)],
    )


def _merged_summary(trials: list[_TrialData], merged: Histogram) -> dict[str, Any]:
    if len(trials) == 1:
        return trials[0].histogram.summary().as_dict()
    return merged.summary().as_dict()


def _trial(index: int, data: _TrialData) -> Trial:
    summary: Summary = data.histogram.summary()
    return Trial(
        index=index,
        histogram=data.histogram.to_blob(),
        histogram_uncorrected=None if data.uncorrected is None else data.uncorrected.to_blob(),
        exact=data.histogram.samples is not None,
        summary_uncorrected=None
        if data.uncorrected is None
        else data.uncorrected.summary().as_dict(),
        metrics=data.metrics,
        intervals=data.intervals,
        tuning=data.tuning,
        **summary.as_dict(),
    )


def label_key(labels: dict[str, str]) -> str:
    return json.dumps(labels, sort_keys=True, separators=(",", ":"))


def _upsert_host(session: Session, body: RunCreate) -> Host:
    assert body.host is not None
    now = get_clock().now()
    values: dict[str, Any] = {"last_seen_at": now}
    if body.host.tags:
        values["tags"] = body.host.tags
    if body.host.fingerprint:
        values["fingerprint"] = body.host.fingerprint
    statement = (
        insert(Host)
        .values(name=body.host.name, tags=body.host.tags, fingerprint=body.host.fingerprint,
                capabilities={}, created_at=now, last_seen_at=now)
        .on_conflict_do_update(index_elements=[Host.name], set_=values)
        .returning(Host.id)
    )
    host_id = session.execute(statement).scalar_one()
    host = session.get(Host, host_id)
    assert host is not None
    return host


def _filtered(query: Select[tuple[Run]], filters: RunFilters) -> Select[tuple[Run]]:
    conditions = [Run.project_id == filters.project_id]
    if filters.suite:
        conditions.append(Run.suite == filters.suite)
    if filters.scenario:
        conditions.append(Run.scenario == filters.scenario)
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
