"""History that stays fast as it grows, and retention that keeps what matters.

- The reads behind compare, run detail, trends and the runs list are index lookups: captured
  from the real service calls on a history of thousands of runs and EXPLAINed, none scans a
  results table.
- Retention with a frozen clock: old runs lose intervals and histograms, keep summaries and
  rollups, say what was retired; trends across the boundary are one line.
- Trials live in monthly partitions created ahead; the migration moved existing trials.
"""

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
from sqlalchemy import event, select, text
from sqlalchemy.orm import Session

from latlab.analysis import baselines, compare, trends
from latlab.models import Profile, Project, Rollup, Run, Scope, Trial
from latlab.runs import keys, maintenance
from latlab.runs import service as run_service
from latlab_stack import history as synthetic
from tests.factories import one_series, result, submit, trial

RESULTS_TABLES = ("run", "series", "trial")


@contextmanager
def captured(session: Session) -> Iterator[list[tuple[str, Any]]]:
    statements: list[tuple[str, Any]] = []

    def remember(conn, cursor, statement, parameters, context, executemany) -> None:
        if statement.lstrip().upper().startswith("SELECT"):
            statements.append((statement, parameters))

    engine = session.get_bind()
    event.listen(engine, "before_cursor_execute", remember)
    try:
        yield statements
    finally:
        event.remove(engine, "before_cursor_execute", remember)


def _scans(session: Session, statement: str, parameters: Any) -> list[str]:
    """Tables a statement's plan reads with a sequential scan."""
    cursor = session.connection().connection.driver_connection.cursor()
    cursor.execute("EXPLAIN (FORMAT JSON) " + statement, parameters)
    found: list[str] = []

    def walk(node: dict[str, Any]) -> None:
        if node.get("Node Type") == "Seq Scan":
            found.append(node.get("Relation Name", "?"))
        for child in node.get("Plans", []):
            walk(child)

    walk(cursor.fetchone()[0][0]["Plan"])
    # An empty partition (a month ahead) is read by a scan of nothing: not a finding.
    return [name for name in found if session.scalar(text(
        f'SELECT EXISTS (SELECT 1 FROM "{name}")'))]


def test_history_reads_are_index_lookups(db: Session) -> None:
    maintenance.ensure_partitions(db, synthetic.START)
    first = synthetic.load(db, 8_000, trials=2, batch=4_000)
    project_id = db.scalar(select(Project.id).where(Project.slug == "default"))
    with captured(db) as statements:
        baseline = run_service.load_run(db, first + 4_000)
        candidate = run_service.load_run(db, first + 7_996)
        compare.compare_runs(baseline, candidate, analysis_vocabulary())
        run_service.get_run(db, first + 5_000, project_id)
        for host in (None, "lab-00"):
            query = trends.TrendQuery(
                suite="http-order", scenario="large", label_key=keys.label_key(
                    {"client": "rust"}), metric="p99", project_id=project_id,
                params=synthetic.PARAMS, branch="main", host=host)
            trends.trend(db, query)
            trends.recent_groups(db, query)  # what the branches and params sets read
        # A run's windows, as the gate and the trends page read them: one range per history.
        baselines.history_windows(db, candidate, ["p99", "p50"], 30)
        baselines.history_windows(db, candidate, ["p99"], 30,
                                  label_key=candidate.series[0].label_key)
        run_service.list_runs(db, run_service.RunFilters(project_id=project_id), 50, 0)
        run_service.list_runs(db, run_service.RunFilters(project_id=project_id,
                                                         suite="http-order"), 50, 0)
    assert len(statements) >= 8
    for statement, parameters in statements:
        scanned = [t for t in _scans(db, statement, parameters)
                   if t in RESULTS_TABLES or t.startswith("trial_")]
        assert scanned == [], f"{scanned} scanned by: {statement}"


def analysis_vocabulary():  # type: ignore[no-untyped-def]
    from latlab_contract.vocabulary import Vocabulary

    return Vocabulary()


def _submit(client, headers, day: int, level: float, clock) -> int:
    clock.moment = datetime(2026, 6, 1, 12, tzinfo=UTC) + timedelta(days=day)
    rng = np.random.default_rng(day)
    trials = [trial(rng, 350_000 * level, sigma=0.1, n=3000,
                    intervals=[{"t_s": 0, "count": 3000, "p50": 350_000.0}]) for _ in range(2)]
    document = result(series=one_series(trials, client="go"),
                      started_at=clock.moment.isoformat(), commit=f"{day:04x}beef",
                      profiles=[{"labels": {"client": "go"}, "program": "server",
                                 "tool": "perf", "folded": "main;serve 9\nmain;parse 1\n"}])
    return int(submit(client, document, headers)["id"])


def test_retention_retires_old_raw_data_and_keeps_summaries_and_rollups(
        db: Session, client, actors, clock) -> None:
    headers = actors.token(Scope.runs_write, Scope.read)
    runs = [_submit(client, headers, day, 1.0, clock) for day in range(40)]
    project = db.scalar(select(Project).where(Project.slug == "default"))
    project.intervals_retention_days = 7
    project.histograms_retention_days = 30
    clock.moment = datetime(2026, 7, 11, 12, tzinfo=UTC)  # run 39 is a day old
    db.flush()
    # The maintenance task's own loop, each step a savepoint of the test's transaction. Its
    # trials sit in the default partition (no July one yet): making July moves them into it.
    done = maintenance.apply(lambda: Session(bind=db.connection(),
                                             join_transaction_mode="create_savepoint"),
                             budget_s=120)
    # 40 finished days; intervals of the runs over 7 days old, histograms over 30.
    assert done == {"partitions": 3, "rolled_up_days": 40, "intervals": 33, "histograms": 10}
    assert db.scalar(text("SELECT count(*) FROM trial_y2026m07")) == 2 * 10  # runs 30-39
    db.expire_all()
    # Run 20 is 20 days old: past the intervals window (7), inside the histograms one (30).
    old, middle, new = (db.get(Run, runs[0]), db.get(Run, runs[20]), db.get(Run, runs[39]))
    assert old.histograms_retired_at is not None and old.intervals_retired_at is not None
    assert middle.histograms_retired_at is None and middle.intervals_retired_at is not None
    assert new.histograms_retired_at is None and new.intervals_retired_at is None
    old_trials = db.scalars(select(Trial).where(Trial.series_id.in_(
        [s.id for s in run_service.get_run(db, runs[0], old.project_id).series]))).all()
    assert old_trials and all(t.histogram is None and t.intervals is None for t in old_trials)
    assert all(t.p99 > 0 and t.count == 3000 for t in old_trials)  # summaries stay
    # CPU profiles go with the histograms: the 10 oldest runs lost theirs.
    profiled = set(db.scalars(select(Profile.run_id)))
    assert profiled == set(runs[10:])

    detail = client.get(f"/api/v1/runs/{runs[0]}", headers=headers).json()
    assert detail["histograms_retired_at"] and detail["series"][0]["summary"]["p99"] > 0
    series_id = detail["series"][0]["id"]
    spectrum = client.get(f"/api/v1/runs/{runs[0]}/series/{series_id}/spectrum",
                          headers=headers)
    assert spectrum.status_code == 410 and "retired" in spectrum.json()["detail"]

    # Every finished day has its rollups, histograms merged before they were retired.
    days = db.scalars(select(Rollup.day).where(Rollup.metric == "p99")).all()
    assert len(days) == 40
    merged = db.scalars(select(Rollup).where(Rollup.metric == maintenance.HISTOGRAM)).all()
    assert len(merged) == 40 and all(r.histogram is not None for r in merged)

    # Trends across the boundary: one line of runs, or of days from the rollups.
    query = {"suite": "http-order", "scenario": "medium", "labels": '{"client": "go"}'}
    line = client.get("/api/v1/trends", params=query, headers=headers).json()
    assert line["resolution"] == "run" and len(line["points"]) == 40
    daily = client.get("/api/v1/trends", headers=headers, params={
        **query, "since": "2026-05-01T00:00:00Z", "limit": 10}).json()
    assert daily["resolution"] == "day" and len(daily["points"]) == 40
    assert [p["started_at"][:10] for p in daily["points"]] == sorted(
        p["started_at"][:10] for p in daily["points"])
    assert all(p["run_id"] is None and p["runs"] == 1 for p in daily["points"])


def test_partitions_are_created_ahead_and_trials_land_in_them(db: Session) -> None:
    created = maintenance.ensure_partitions(db, datetime(2031, 3, 5, tzinfo=UTC))
    assert created == ["trial_y2031m03", "trial_y2031m04", "trial_y2031m05"]
    assert maintenance.ensure_partitions(db, datetime(2031, 3, 5, tzinfo=UTC)) == []
    synthetic.load(db, 4, start=datetime(2031, 4, 2, tzinfo=UTC))
    counts = dict(db.execute(text(
        "SELECT tableoid::regclass::text, count(*) FROM trial GROUP BY 1")).all())
    assert counts.get("trial_y2031m04") == 8


def test_the_migration_moves_existing_trials_into_partitions(engine) -> None:
    """A database at 0006 with runs in it, upgraded: every trial is kept, in its month's
    partition, and every series has its history keys."""
    from latlab.core.migrate import upgrade

    url = engine.url.set(database="latlab_migrate_test")
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.execute(text("DROP DATABASE IF EXISTS latlab_migrate_test"))
        connection.execute(text("CREATE DATABASE latlab_migrate_test"))
    plain = url.render_as_string(hide_password=False)
    upgrade(plain, "0006")
    from sqlalchemy import create_engine

    old = create_engine(plain)
    with old.begin() as connection:
        connection.execute(text(
            "INSERT INTO project (id, slug, name, created_at, confirm_regressions) "
            "VALUES (1, 'default', 'Default', now(), false)"))
        for run_id, month in ((1, 3), (2, 9)):
            connection.execute(text(
                "INSERT INTO run (id, project_id, suite, scenario, params, started_at, "
                "created_at, source_kind, host_tags, host_fingerprint, verdict_reasons, "
                "metric_info) VALUES (:id, 1, 'echo', 'default', '{\"count\": 5}', "
                ":started, now(), 'ci', '{}', '{}', '[]', '{}')"),
                {"id": run_id, "started": datetime(2026, month, 2, tzinfo=UTC)})
            connection.execute(text(
                "INSERT INTO series (id, run_id, labels, label_key, summary, metrics) VALUES "
                "(:id, :id, '{\"transport\": \"tcp\"}', '{\"transport\":\"tcp\"}', '{}', '{}')"),
                {"id": run_id})
            for index in range(3):
                connection.execute(text(
                    "INSERT INTO trial (series_id, index, histogram, count, min, max, mean, "
                    "stddev, p50, p90, p95, p99, p999, p9999, exact, metrics) VALUES "
                    "(:s, :i, '\\x00', 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, false, '{}')"),
                    {"s": run_id, "i": index})
    old.dispose()
    upgrade(plain)
    new = create_engine(plain)
    with new.connect() as connection:
        rows = connection.execute(text(
            "SELECT tableoid::regclass::text, count(*) FROM trial GROUP BY 1")).all()
        assert dict(rows) == {"trial_y2026m03": 3, "trial_y2026m09": 3}
        series = connection.execute(text(
            "SELECT history, params_key FROM series ORDER BY id")).all()
        assert series[0] == (keys.history(1, "echo", "default", '{"transport":"tcp"}'),
                             keys.params_key({"count": 5}))
        assert connection.execute(text("SELECT series_count, trial_count FROM run WHERE id = 1")
                                  ).one() == (1, 3)
    new.dispose()
    with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.execute(text("DROP DATABASE latlab_migrate_test"))
