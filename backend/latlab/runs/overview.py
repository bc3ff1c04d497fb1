"""The lab at a glance: every suite and scenario with its latest run, and a run's headline
(the series it failed on, else the one furthest above its window, else its first: P99,
throughput and the change against its window) for lists and sparklines.

The pairs are found by skipping through the `(project, suite, scenario, started)` index (a
recursive query that jumps from one pair to the next), so the overview costs one index probe
per pair, not a scan of the project's runs: a year of history has a million runs and a few
hundred pairs.
"""

from dataclasses import dataclass
from typing import Any

from sqlalchemy import bindparam, select, text, tuple_
from sqlalchemy.dialects.postgresql import distinct_on
from sqlalchemy.orm import Session

from latlab.models import Alert, AlertState, Run, Series, Severity, Suite
from latlab.runs.keys import label_key

# Points in each pair's sparkline: its latest runs, oldest first.
SPARK_RUNS = 20
# The verdict reasons that name the series a list shows for a run.
FAILING_REASONS = ("regression", "suspected-regression", "sla")

_LATEST_PER_PAIR = text("""
    WITH RECURSIVE pairs(suite, scenario) AS (
        (SELECT suite, scenario FROM run WHERE project_id = :project
         ORDER BY suite, scenario LIMIT 1)
        UNION ALL
        SELECT next.suite, next.scenario FROM pairs, LATERAL (
            SELECT suite, scenario FROM run
            WHERE project_id = :project AND (suite, scenario) > (pairs.suite, pairs.scenario)
            ORDER BY suite, scenario LIMIT 1) AS next
    )
    SELECT latest.id FROM pairs, LATERAL (
        SELECT id FROM run
        WHERE project_id = :project AND suite = pairs.suite AND scenario = pairs.scenario
        ORDER BY started_at DESC, id DESC LIMIT 1) AS latest
""")

# The latest SPARK_RUNS runs of each given run's pair (the run itself first), newest first:
# one index probe per pair.
_RECENT_OF_PAIRS = text("""
    SELECT latest.id, recent.id FROM run AS latest CROSS JOIN LATERAL (
        SELECT id, started_at FROM run
        WHERE project_id = :project AND suite = latest.suite AND scenario = latest.scenario
        ORDER BY started_at DESC, id DESC LIMIT :limit) AS recent
    WHERE latest.id IN :runs
    ORDER BY latest.id, recent.started_at DESC, recent.id DESC
""").bindparams(bindparam("runs", expanding=True))


@dataclass(frozen=True)
class Headline:
    """The series a list shows for a run (`headline_key`): its labels, P99 in ns, throughput
    when the harness reported one, and its P99's change against its history's window."""

    series: dict[str, Any]
    label_key: str
    p99: float | None
    throughput: float | None
    # Its P99 was not printed by the harness: interpolated in a rebuilt histogram (shown ~).
    p99_interpolated: bool = False
    # % of the P99 over the window's centre, as the gate judged it (None: not judged so).
    window_delta_pct: float | None = None


@dataclass(frozen=True)
class PairRow:
    run: Run
    open_alerts: int
    critical_alerts: int
    # (run id, P99 of the latest run's headline series in it), oldest first
    spark: list[tuple[int, float | None]]
    headline: Headline | None

    @property
    def failing(self) -> bool:
        return self.run.verdict == "fail" or self.critical_alerts > 0


def window_changes(run: Run) -> dict[str, float]:
    """Per series (label key): its P99's change in % against its window's centre, as the
    gate judged it (`gate_evidence`)."""
    return {label_key(e["series"]): (e["value"] / e["centre"] - 1) * 100
            for e in run.gate_evidence or [] if e.get("metric") == "p99"
            and isinstance(e.get("series"), dict) and number(e.get("value")) is not None
            and (number(e.get("centre")) or 0) > 0}


def headline_key(run: Run, changes: dict[str, float]) -> str | None:
    """The label key of the series a list shows for `run`: the first its verdict failed on (a
    regression, a suspected one, an SLA breach), else the one whose P99 rose furthest above
    its window's centre (`changes`); None: neither, its first series."""
    for reason in run.verdict_reasons or []:
        if reason.get("kind") in FAILING_REASONS and isinstance(reason.get("series"), dict):
            return label_key(reason["series"])
    return max(changes, key=changes.__getitem__, default=None)


def headlines(session: Session, runs: list[Run]) -> dict[int, Headline]:
    """Each run's headline, in at most two queries."""
    changes = {run.id: window_changes(run) for run in runs}
    chosen = {run.id: key for run in runs
              if (key := headline_key(run, changes[run.id])) is not None}
    columns = (Series.run_id, Series.labels, Series.label_key, Series.summary, Series.metrics,
               Series.summary_origin)
    rows = list(session.execute(select(*columns).where(
        tuple_(Series.run_id, Series.label_key).in_(list(chosen.items()))))) if chosen else []
    found = {row[0] for row in rows}
    first = [run.id for run in runs if run.id not in found]
    if first:
        rows += session.execute(select(*columns).where(Series.run_id.in_(first))
                                .order_by(Series.run_id, Series.id)
                                .ext(distinct_on(Series.run_id))).all()
    return {run_id: Headline(series=labels, label_key=key, p99=number(summary.get("p99")),
                             throughput=number(metrics.get("throughput")),
                             p99_interpolated="p99" in (origin or {}).get("interpolated", []),
                             window_delta_pct=changes[run_id].get(key))
            for run_id, labels, key, summary, metrics, origin in rows}


def remember_headline(session: Session, run: Run) -> None:
    """Keeps the P99 of the run's headline on the run (`Run.headline_p99`), the runs list's
    sort key: called whenever the run is judged, as that may change which series it is."""
    line = headlines(session, [run]).get(run.id)
    run.headline_p99 = None if line is None else line.p99


def latest_run_ids(session: Session, project_id: int) -> list[int]:
    """The id of each suite and scenario pair's latest run (also what `/metrics` reports)."""
    return list(session.scalars(_LATEST_PER_PAIR, {"project": project_id}))


def latest_per_pair(session: Session, project_id: int, limit: int, offset: int
                    ) -> tuple[list[PairRow], int, list[str]]:
    """A page of the project's suite and scenario pairs with their latest runs, failing ones
    first (the latest run failed its gate, or the pair has an open critical alert), then by
    suite and scenario; how many pairs there are; and the catalogue's suites with no run yet."""
    latest_ids = latest_run_ids(session, project_id)
    runs = list(session.scalars(select(Run).where(Run.id.in_(latest_ids)))) if latest_ids else []
    alerts = _open_alerts(session, project_id)
    rows = sorted(
        (PairRow(run=run, open_alerts=alerts.get((run.suite, run.scenario), (0, 0))[0],
                 critical_alerts=alerts.get((run.suite, run.scenario), (0, 0))[1],
                 spark=[], headline=None) for run in runs),
        key=lambda row: (not row.failing, row.run.suite, row.run.scenario))
    page = rows[offset:offset + limit]
    lines = headlines(session, [row.run for row in page])
    recent = _recent_ids(session, project_id, [row.run.id for row in page])
    # Each sparkline follows the latest run's headline series through the earlier runs.
    wanted = [(run_id, lines[row.run.id].label_key) for row in page if row.run.id in lines
              for run_id in recent[row.run.id]]
    p99s = {(run_id, key): number(summary.get("p99")) for run_id, key, summary in session.execute(
        select(Series.run_id, Series.label_key, Series.summary)
        .where(tuple_(Series.run_id, Series.label_key).in_(wanted)))} if wanted else {}
    page = [
        PairRow(run=row.run, open_alerts=row.open_alerts, critical_alerts=row.critical_alerts,
                spark=[(run_id, p99s.get((run_id, lines[row.run.id].label_key)))
                       for run_id in reversed(recent[row.run.id])] if row.run.id in lines else [],
                headline=lines.get(row.run.id))
        for row in page
    ]
    with_runs = {run.suite for run in runs}
    idle = sorted(set(session.scalars(select(Suite.id))) - with_runs)
    return page, len(rows), idle


def _recent_ids(session: Session, project_id: int, run_ids: list[int]) -> dict[int, list[int]]:
    """For each of these runs, the ids of its pair's latest runs, newest first, in one
    query."""
    recent: dict[int, list[int]] = {run_id: [] for run_id in run_ids}
    if run_ids:
        for run_id, recent_id in session.execute(_RECENT_OF_PAIRS, {
                "project": project_id, "runs": run_ids, "limit": SPARK_RUNS}):
            recent[run_id].append(recent_id)
    return recent


def _open_alerts(session: Session, project_id: int) -> dict[tuple[str, str], tuple[int, int]]:
    """Per suite and scenario: alerts not resolved, and how many of them are critical."""
    counts: dict[tuple[str, str], tuple[int, int]] = {}
    for suite, scenario, severity, count in session.execute(
        select(Alert.suite, Alert.scenario, Alert.severity, text("count(*)"))
        .where(Alert.project_id == project_id, Alert.state != AlertState.resolved)
        .group_by(Alert.suite, Alert.scenario, Alert.severity)
    ).all():
        total, critical = counts.get((suite, scenario), (0, 0))
        counts[(suite, scenario)] = (total + count,
                                     critical + (count if severity == Severity.critical else 0))
    return counts


def number(value: Any) -> float | None:
    """A JSON summary or metric value as a float (None: absent or not a number)."""
    return float(value) if isinstance(value, int | float) else None
