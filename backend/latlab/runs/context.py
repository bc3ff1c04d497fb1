"""What a run page shows around a run: each series' recent history (P99 and throughput of the
runs before it on its branch with its params), its value in the run's baseline, and the alerts
the run opened with the bisections searching for their commit.

A series' history is an index range (`history`, `params_key`, `started_at`), so the histories
of all of a run's series are one query of one index probe per series.
"""

from dataclasses import dataclass

from sqlalchemy import select, text
from sqlalchemy.orm import Session

from latlab.models import Alert, Bisection, Run, Series
from latlab.runs.overview import number
from latlab.runs.service import DEFAULT_BRANCH

# Points in each series' history: the run and the ones before it.
HISTORY_RUNS = 20

_HISTORIES = text("""
    SELECT s.id, past.run_id, past.p99, past.throughput
    FROM series AS s CROSS JOIN LATERAL (
        SELECT h.run_id, h.started_at, (h.summary ->> 'p99')::float AS p99,
               (h.metrics ->> 'throughput')::float AS throughput
        FROM series AS h
        WHERE h.history = s.history AND h.params_key = s.params_key
          AND h.started_at <= s.started_at
          AND coalesce(h.branch, :default) = coalesce(s.branch, :default)
        ORDER BY h.started_at DESC, h.run_id DESC LIMIT :limit) AS past
    WHERE s.run_id = :run
    ORDER BY s.id, past.started_at, past.run_id
""")


@dataclass(frozen=True)
class Point:
    run_id: int
    p99: float | None
    throughput: float | None


@dataclass(frozen=True)
class Context:
    histories: dict[int, list[Point]]  # series id -> oldest first, ending at this run
    baseline: dict[int, Point]  # series id -> the same labels in the baseline run
    alerts: list[Alert]
    bisections: dict[int, Bisection]  # bisection id -> the one an alert links to


def of_run(session: Session, run: Run) -> Context:
    histories: dict[int, list[Point]] = {}
    for series_id, run_id, p99, throughput in session.execute(
            _HISTORIES, {"run": run.id, "limit": HISTORY_RUNS, "default": DEFAULT_BRANCH}):
        histories.setdefault(series_id, []).append(Point(run_id, p99, throughput))
    alerts = list(session.scalars(
        select(Alert).where(Alert.run_id == run.id).order_by(Alert.id)))
    linked = {a.bisection_id for a in alerts if a.bisection_id is not None}
    bisections = {} if not linked else {b.id: b for b in session.scalars(
        select(Bisection).where(Bisection.id.in_(linked)))}
    return Context(histories=histories, baseline=_baseline(session, run), alerts=alerts,
                   bisections=bisections)


def _baseline(session: Session, run: Run) -> dict[int, Point]:
    if run.baseline_run_id is None:
        return {}
    own = {s.label_key: s.id for s in run.series}
    return {own[label]: Point(run.baseline_run_id, number(summary.get("p99")),
                              number(metrics.get("throughput")))
            for label, summary, metrics in session.execute(
                select(Series.label_key, Series.summary, Series.metrics)
                .where(Series.run_id == run.baseline_run_id))
            if label in own}
