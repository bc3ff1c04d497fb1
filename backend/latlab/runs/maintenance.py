"""Keeping a year of history cheap, run by beat:

- partitions: `trial` is partitioned by month of its run's start; the months ahead are
  created before they are needed (a run dated outside them lands in the default partition);
- rollups: each finished day of each history gets, per metric, the count of runs, the median
  and p10/p90 of their values, and for latency the day's trials merged into one histogram,
  kept forever (a run arriving later for a rolled-up day rolls its day again);
- retention: per project, trials older than its windows lose their intervals and then their
  histograms (and the runs their CPU profiles), in small batches (row locks on old rows only:
  ingest of new runs never waits); run and trial summaries and the rollups stay.

`apply` runs the three in short transactions and paces itself: after each step it rests
`PACE` times as long as the step took, so on a small host it leaves most of the CPU (its own
and its Postgres backend's) to the submissions arriving meanwhile.
"""

import statistics
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from time import monotonic, sleep
from typing import Any

from sqlalchemy import delete, func, select, text, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.orm import Session

from latlab.core.clock import get_clock
from latlab.models import Profile, Project, Rollup, Run, Series, Trial
from latlab.runs.histogram import Histogram, nearest_rank
from latlab.runs.service import on_default_branch, series_value
from latlab_contract.vocabulary import LATENCY_KEYS

MONTHS_AHEAD = 2
PACE = 2.0  # rest this many times a step's duration after it
RETIRE_BATCH = 500  # runs per retention transaction
HISTOGRAM = "histogram"  # the rollup row holding the day's merged latency histogram


@dataclass(frozen=True)
class Retired:
    intervals: int  # runs whose trials lost their intervals
    histograms: int  # runs whose trials lost their histograms


def apply(make_session: Callable[[], Session], budget_s: float, now: datetime | None = None,
          pace: float = PACE) -> dict[str, int]:
    """Partitions ahead, then rollups of finished days, then retention, one short transaction
    a step, until nothing is left or `budget_s` has passed (the next call goes on)."""
    deadline = monotonic() + budget_s
    done = {"partitions": 0, "rolled_up_days": 0, "intervals": 0, "histograms": 0}

    def step(work: Callable[[Session], Any]) -> Any:
        started = monotonic()
        with make_session() as session, session.begin():
            result = work(session)
        sleep(min(pace * (monotonic() - started), max(deadline - monotonic(), 0.0)))
        return result

    done["partitions"] = len(step(lambda session: ensure_partitions(session, now)))
    while monotonic() < deadline:
        days = step(lambda session: roll_up(session, now, limit_days=1))
        done["rolled_up_days"] += days
        if not days:
            break
    while monotonic() < deadline:
        retired = step(lambda session: retire(session, now))
        done["intervals"] += retired.intervals
        done["histograms"] += retired.histograms
        if not (retired.intervals or retired.histograms):
            break
    return done


def ensure_partitions(session: Session, now: datetime | None = None) -> list[str]:
    """Creates the trial partitions of this month and the next `MONTHS_AHEAD`. Trials of
    such a month already in the default partition (a run dated ahead of its partition) move
    into the new one, which is attached after: Postgres refuses a partition whose rows the
    default one holds, and that would stop every maintenance call from then on."""
    now = now or get_clock().now()
    created = []
    for ahead in range(MONTHS_AHEAD + 1):
        start, end = _month(now, ahead), _month(now, ahead + 1)
        name = f"trial_y{start:%Ym%m}"
        exists = session.scalar(text("SELECT to_regclass(:name) IS NOT NULL"), {"name": name})
        if not exists:
            lower, upper = f"'{start:%Y-%m-%d}T00:00:00+00'", f"'{end:%Y-%m-%d}T00:00:00+00'"
            session.execute(text(
                f"CREATE TABLE {name} (LIKE trial INCLUDING DEFAULTS INCLUDING CONSTRAINTS)"))
            session.execute(text(
                f"WITH moved AS (DELETE FROM trial_default WHERE started_at >= {lower} "
                f"AND started_at < {upper} RETURNING *) INSERT INTO {name} SELECT * FROM moved"))
            session.execute(text(
                f"ALTER TABLE trial ATTACH PARTITION {name} FOR VALUES FROM ({lower}) TO "
                f"({upper})"))
            created.append(name)
    return created


def roll_up(session: Session, now: datetime | None = None, limit_days: int = 31) -> int:
    """Rolls up the finished days that have runs not yet in a rollup, oldest first, up to
    `limit_days` (project, day) pairs a call; returns how many were done."""
    today = datetime.combine((now or get_clock().now()).date(), time(), tzinfo=UTC)
    pending = session.execute(
        select(Run.project_id, func.date_trunc("day", Run.started_at, "UTC").label("day"))
        .where(Run.rolled_up_at.is_(None), Run.started_at < today)
        .group_by(Run.project_id, "day").order_by("day").limit(limit_days)).all()
    for project_id, day in pending:
        roll_up_day(session, project_id, day.date())
    return len(pending)


def roll_up_day(session: Session, project_id: int, day: date) -> None:
    """The rollups of one project's day, recomputed from all of that day's runs of the
    default branch (the histories trends and change points watch)."""
    start = datetime.combine(day, time(), tzinfo=UTC)
    rows = session.execute(
        select(Series, Run.suite, Run.scenario, Run.params)
        .join(Run, Run.id == Series.run_id)
        .where(Run.project_id == project_id, Series.history.is_not(None),
               on_default_branch(Series.branch),
               Series.started_at >= start, Series.started_at < start + timedelta(days=1))
    ).all()
    groups: dict[tuple[str, str], list[tuple[Series, str, str, dict[str, Any]]]] = (
        defaultdict(list))
    for series, suite, scenario, params in rows:
        assert series.history is not None
        groups[(series.history, series.params_key)].append((series, suite, scenario, params))
    for (history, params_key), members in groups.items():
        first, suite, scenario, params = members[0]
        base = {"project_id": project_id, "history": history, "params_key": params_key,
                "suite": suite, "scenario": scenario, "labels": first.labels,
                "params": params, "day": day}
        names = {*LATENCY_KEYS, *(name for s, *_ in members for name in s.metrics)}
        for metric in sorted(names):
            values = [v for s, *_ in members if (v := series_value(s, metric)) is not None]
            if values:
                _upsert(session, {**base, "metric": metric, **_stats(values),
                                  "histogram": None})
        merged = _merged_histogram(session, [s.id for s, *_ in members], start)
        if merged is not None:
            p50, p10, p90 = merged.percentiles([50.0, 10.0, 90.0])
            _upsert(session, {**base, "metric": HISTOGRAM, "runs": len(members),
                              "median": p50, "p10": p10, "p90": p90,
                              "histogram": merged.to_blob()})
    session.execute(update(Run).where(
        Run.project_id == project_id, Run.started_at >= start,
        Run.started_at < start + timedelta(days=1)).values(rolled_up_at=get_clock().now()))


def retire(session: Session, now: datetime | None = None) -> Retired:
    """Applies every project's retention to one batch of runs per kind; beat calls it until
    there is nothing left (each call is its own short transaction)."""
    now = now or get_clock().now()
    counts = {"intervals": 0, "histograms": 0}
    for project in session.scalars(select(Project)):
        for kind, days in (("intervals", project.intervals_retention_days),
                           ("histograms", project.histograms_retention_days)):
            if days is not None:
                counts[kind] += _retire_batch(session, project.id, kind,
                                              now - timedelta(days=days), now)
    return Retired(counts["intervals"], counts["histograms"])


def _retire_batch(session: Session, project_id: int, kind: str, cutoff: datetime,
                  now: datetime) -> int:
    stamp = Run.intervals_retired_at if kind == "intervals" else Run.histograms_retired_at
    runs = session.execute(
        select(Run.id, Run.started_at).where(
            Run.project_id == project_id, Run.started_at < cutoff, stamp.is_(None),
            Run.rolled_up_at.is_not(None))
        .order_by(Run.started_at).limit(RETIRE_BATCH)).all()
    if not runs:
        return 0
    ids = [run_id for run_id, _ in runs]
    cleared: dict[str, None] = (
        {"intervals": None} if kind == "intervals"
        else {"histogram": None, "histogram_uncorrected": None})
    # The started_at bounds let Postgres touch only the partitions of these runs.
    session.execute(
        update(Trial).where(
            Trial.series_id.in_(select(Series.id).where(Series.run_id.in_(ids))),
            Trial.started_at >= runs[0][1], Trial.started_at <= runs[-1][1])
        .values(**cleared))
    if kind == "histograms":  # CPU profiles go with the histograms
        session.execute(delete(Profile).where(Profile.run_id.in_(ids)))
    session.execute(update(Run).where(Run.id.in_(ids)).values({stamp: now}))
    return len(ids)


def _merged_histogram(session: Session, series_ids: list[int],
                      day: datetime) -> Histogram | None:
    blobs = session.scalars(
        select(Trial.histogram).where(
            Trial.series_id.in_(series_ids), Trial.histogram.is_not(None),
            Trial.started_at >= day, Trial.started_at < day + timedelta(days=1)))
    histograms = [Histogram.from_blob(blob) for blob in blobs if blob is not None]
    try:
        return Histogram.merge(histograms) if histograms else None
    except ValueError:  # more values than int64 holds: the day keeps its statistics only
        return None


def _stats(values: list[float]) -> dict[str, Any]:
    ordered = sorted(values)
    return {"runs": len(values), "median": float(statistics.median(ordered)),
            "p10": ordered[nearest_rank(10.0, len(ordered)) - 1],
            "p90": ordered[nearest_rank(90.0, len(ordered)) - 1]}


def _upsert(session: Session, row: dict[str, Any]) -> None:
    statement = insert(Rollup).values(**row)
    session.execute(statement.on_conflict_do_update(
        index_elements=[Rollup.history, Rollup.params_key, Rollup.metric, Rollup.day],
        set_={k: statement.excluded[k] for k in ("runs", "median", "p10", "p90", "histogram",
                                                 "labels", "params")}))


def _month(moment: datetime, ahead: int) -> date:
    index = moment.year * 12 + moment.month - 1 + ahead
    return date(index // 12, index % 12 + 1, 1)
