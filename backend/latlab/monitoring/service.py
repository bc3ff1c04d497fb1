"""What `GET /metrics` reports, read from Postgres and Redis when Prometheus scrapes: the lab's
health, and the latest results of the caller's project.

The api runs several processes, so nothing is counted in memory: every figure is a query, and
a scrape costs a fixed number of them (none per suite, host or job). Queues, hosts and the
outbox belong to the whole lab; jobs, runs, alert deliveries and results to the project of the
caller's token. Figures about recent work (job durations, ingest, deliveries) cover `WINDOW`.
"""

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import ColumnElement, Float, String, cast, extract, func, literal_column, select
from sqlalchemy.orm import Session

from latlab.core.clock import get_clock
from latlab.core.kv import REDIS_ERRORS, redis_client
from latlab.hosts import service as host_service
from latlab.hosts import trust
from latlab.models import (
    AuditEvent,
    Channel,
    DeliveryAttempt,
    Job,
    JobStatus,
    Notification,
    OutboxMessage,
    Run,
    Series,
)
from latlab.runs import overview
from latlab.runs import service as run_service
from latlab_contract import ALERTS_QUEUE, INGEST_QUEUE, LAB_QUEUE, host_queue
from latlab_contract.reports import series_name

WINDOW = timedelta(hours=1)
WINDOW_TEXT = "the last hour"
# Quantiles of recent durations; 1 is the longest.
QUANTILES = (0.5, 0.99, 1.0)
# The hard cap on result series: the series of the latest runs of the most recently run
# suites and scenarios, up to this many (each is one time series per result metric).
MAX_RESULT_SERIES = 500


@dataclass(frozen=True)
class Spread:
    """How many things `WINDOW` saw, and the `QUANTILES` of their durations in seconds (none
    when no duration is known)."""

    count: int
    quantiles: dict[float, float]


@dataclass(frozen=True)
class LabHealth:
    """The whole lab's plumbing: Celery queues (None: Redis unreachable), runner hosts
    (name: online), messages waiting in the outbox and the age of the oldest, and the runner
    messages refused (`latlab.hosts.trust`) by task, over the audit log's retention."""

    queues: dict[str, int] | None
    hosts: dict[str, bool]
    outbox_unsent: int
    outbox_oldest_s: float
    refused: dict[str, int]


@dataclass(frozen=True)
class ProjectHealth:
    """A project's work: jobs by state; in `WINDOW`, the jobs that succeeded (their
    durations), the runs it stored (each from the end of its measurement to stored) and its
    alert deliveries by outcome (True: delivered)."""

    jobs: dict[JobStatus, int]
    job_durations: Spread
    ingested: Spread
    deliveries: dict[bool, int]


@dataclass(frozen=True)
class LatestResult:
    """One series of a suite and scenario's latest run."""

    suite: str
    scenario: str
    series: str
    p50_s: float | None
    p99_s: float | None
    throughput: float | None


# The task of a refused message, as its audit event records it.
REFUSED_TASK = literal_column("audit_event.after ->> 'task'", String)


def lab_health(session: Session) -> LabHealth:
    now = get_clock().now()
    runners = [host for host in host_service.list_hosts(session, None)
               if host.heartbeat_at is not None]
    unsent, oldest = session.execute(
        select(func.count(), func.min(OutboxMessage.created_at))
        .where(OutboxMessage.sent_at.is_(None))).one()
    queues = [INGEST_QUEUE, LAB_QUEUE, ALERTS_QUEUE,
              *(host_queue(host.name) for host in runners)]
    return LabHealth(
        queues=queue_depths(queues),
        hosts={host.name: host_service.is_online(host, now) for host in runners},
        outbox_unsent=unsent,
        outbox_oldest_s=0.0 if oldest is None else (now - oldest).total_seconds(),
        refused=dict(session.execute(
            select(REFUSED_TASK, func.count())
            .where(AuditEvent.action == trust.REFUSED, AuditEvent.entity_type == "host")
            .group_by(REFUSED_TASK)).tuples().all()),
    )


def queue_depths(queues: Iterable[str]) -> dict[str, int] | None:
    """Messages waiting in each Celery queue (a Redis list each), in one round trip."""
    names = list(queues)
    try:
        pipe = redis_client().pipeline(transaction=False)
        for name in names:
            pipe.llen(name)
        lengths = pipe.execute()
    except REDIS_ERRORS:
        return None
    return dict(zip(names, (int(length) for length in lengths), strict=True))


def project_health(session: Session, project_id: int) -> ProjectHealth:
    since = get_clock().now() - WINDOW
    by_state = dict(session.execute(
        select(Job.status, func.count()).where(Job.project_id == project_id)
        .group_by(Job.status)).all())
    deliveries = dict(session.execute(
        select(DeliveryAttempt.ok, func.count())
        .join(Notification, Notification.id == DeliveryAttempt.notification_id)
        .join(Channel, Channel.id == Notification.channel_id)
        .where(Channel.project_id == project_id, DeliveryAttempt.attempted_at >= since)
        .group_by(DeliveryAttempt.ok)).all())
    return ProjectHealth(
        jobs={status: by_state.get(status, 0) for status in JobStatus},
        job_durations=_spread(
            session, _seconds(Job.finished_at - Job.started_at),
            Job.project_id == project_id, Job.status == JobStatus.succeeded,
            Job.finished_at >= since, Job.started_at.is_not(None)),
        ingested=_spread(
            session, _seconds(Run.created_at - Run.finished_at),
            Run.project_id == project_id, Run.created_at >= since),
        deliveries={ok: deliveries.get(ok, 0) for ok in (True, False)},
    )


def latest_results(session: Session, project_id: int) -> tuple[list[LatestResult], int]:
    """The series of each suite and scenario's latest run (as the overview shows them), most
    recently run first, up to `MAX_RESULT_SERIES`; and how many series there are in all."""
    latest = overview.latest_run_ids(session, project_id)
    if not latest:
        return [], 0
    rows = session.execute(
        select(Run.suite, Run.scenario, Series, func.count().over())
        .join(Series, Series.run_id == Run.id)
        .where(Run.id.in_(latest))
        .order_by(Run.started_at.desc(), Run.id.desc(), Series.id)
        .limit(MAX_RESULT_SERIES)).all()
    results = [
        LatestResult(suite=suite, scenario=scenario, series=series_name(series.labels),
                     p50_s=_seconds_of(run_service.series_value(series, "p50")),
                     p99_s=_seconds_of(run_service.series_value(series, "p99")),
                     throughput=run_service.series_value(series, "throughput"))
        for suite, scenario, series, _ in rows]
    return results, rows[0][3] if rows else 0


def _spread(session: Session, seconds: ColumnElement[float],
            *conditions: ColumnElement[bool]) -> Spread:
    count, *values = session.execute(
        select(func.count(), *(func.percentile_cont(q).within_group(seconds)
                               for q in QUANTILES))
        .where(*conditions)).one()
    return Spread(count, {q: float(value) for q, value in zip(QUANTILES, values, strict=True)
                          if value is not None})


def _seconds(interval: ColumnElement[Any]) -> ColumnElement[float]:
    """An interval (a difference of timestamps) in seconds."""
    return cast(extract("epoch", interval), Float)


def _seconds_of(nanoseconds: float | None) -> float | None:
    return None if nanoseconds is None else nanoseconds / 1e9
