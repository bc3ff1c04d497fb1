"""History at scale: series carry their history's keys (trends are index ranges), runs their
counts and what retention retired, trials are partitioned by month, projects have retention
settings, and daily rollups are kept forever.

Revision ID: 0007
Revises: 0006
"""

import hashlib
import json
from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '0007'
down_revision: str | None = '0006'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TRIAL_COLUMNS = ("id, series_id, index, histogram, histogram_uncorrected, count, min, max, "
                 "mean, stddev, p50, p90, p95, p99, p999, p9999, exact, summary_uncorrected, "
                 "metrics, intervals, tuning")


# Frozen copies of latlab.runs.keys at the time of this migration.
def _history(project_id: int, suite: str, scenario: str, label_key: str) -> str:
    return hashlib.md5(f"{project_id}|{suite}|{scenario}|{label_key}".encode()).hexdigest()


def _params_key(params: dict[str, object]) -> str:
    text = json.dumps(params, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.md5(text.encode()).hexdigest()


def upgrade() -> None:
    bind = op.get_bind()
    op.add_column('run', sa.Column('series_count', sa.BigInteger(), server_default='0',
                                   nullable=False))
    op.add_column('run', sa.Column('trial_count', sa.BigInteger(), server_default='0',
                                   nullable=False))
    op.create_index('ix_run_project_suite_started', 'run', ['project_id', 'suite', 'started_at'])
    op.create_index('ix_run_project_started', 'run', ['project_id', 'started_at'])
    op.create_index('ix_run_started', 'run', ['started_at'])
    op.add_column('run', sa.Column('rolled_up_at', sa.DateTime(timezone=True)))
    op.create_index('ix_run_not_rolled_up', 'run', ['started_at'],
                    postgresql_where=sa.text('rolled_up_at IS NULL'))
    op.add_column('run', sa.Column('intervals_retired_at', sa.DateTime(timezone=True)))
    op.add_column('run', sa.Column('histograms_retired_at', sa.DateTime(timezone=True)))
    op.execute("""
        UPDATE run SET series_count = c.series, trial_count = c.trials FROM (
            SELECT s.run_id, count(DISTINCT s.id) AS series, count(t.id) AS trials
            FROM series s LEFT JOIN trial t ON t.series_id = s.id GROUP BY s.run_id) c
        WHERE c.run_id = run.id""")

    for name, kind in (('history', sa.String(32)), ('params_key', sa.String(32)),
                       ('started_at', sa.DateTime(timezone=True)), ('branch', sa.String(200)),
                       ('host_name', sa.String(200))):
        op.add_column('series', sa.Column(name, kind, nullable=True))
    rows = bind.execute(sa.text(
        "SELECT s.id, r.project_id, r.suite, r.scenario, s.label_key, r.params, r.started_at, "
        "r.branch, r.host_name, r.confirms_run_id FROM series s JOIN run r ON r.id = s.run_id"))
    updates = [{"id": row.id, "params_key": _params_key(row.params),
                "history": None if row.confirms_run_id is not None
                else _history(row.project_id, row.suite, row.scenario, row.label_key),
                "started_at": row.started_at, "branch": row.branch, "host_name": row.host_name}
               for row in rows]
    if updates:
        bind.execute(sa.text(
            "UPDATE series SET history = :history, params_key = :params_key, "
            "started_at = :started_at, branch = :branch, host_name = :host_name "
            "WHERE id = :id"), updates)
    op.alter_column('series', 'params_key', nullable=False)
    op.alter_column('series', 'started_at', nullable=False)
    op.create_index('ix_series_history_started', 'series',
                    ['history', 'params_key', 'started_at'])
    op.create_index('ix_series_history_host_started', 'series',
                    ['history', 'params_key', 'host_name', 'started_at'])
    op.create_index('ix_series_history_any_params', 'series', ['history', 'started_at'])

    # trial: a new table partitioned by month of the run's start, the rows moved into it.
    op.execute("ALTER TABLE trial RENAME TO trial_v1")
    for old, new in (('pk_trial', 'pk_trial_v1'),
                     ('uq_trial_series_id_index', 'uq_trial_v1_series_id_index'),
                     ('fk_trial_series_id_series', 'fk_trial_v1_series_id_series'),
                     ('ck_trial_count_non_negative', 'ck_trial_v1_count_non_negative')):
        op.execute(f"ALTER TABLE trial_v1 RENAME CONSTRAINT {old} TO {new}")
    op.execute("ALTER SEQUENCE trial_id_seq OWNED BY NONE")
    op.execute("""
        CREATE TABLE trial (
            id bigint NOT NULL DEFAULT nextval('trial_id_seq'),
            started_at timestamptz NOT NULL,
            series_id bigint NOT NULL,
            index bigint NOT NULL,
            histogram bytea,
            histogram_uncorrected bytea,
            count bigint NOT NULL,
            min double precision NOT NULL,
            max double precision NOT NULL,
            mean double precision NOT NULL,
            stddev double precision NOT NULL,
            p50 double precision NOT NULL,
            p90 double precision NOT NULL,
            p95 double precision NOT NULL,
            p99 double precision NOT NULL,
            p999 double precision NOT NULL,
            p9999 double precision NOT NULL,
            exact boolean NOT NULL,
            summary_uncorrected jsonb,
            metrics jsonb NOT NULL,
            intervals jsonb,
            tuning jsonb,
            CONSTRAINT pk_trial PRIMARY KEY (id, started_at),
            CONSTRAINT uq_trial_series_id_index_started_at
                UNIQUE (series_id, index, started_at),
            CONSTRAINT fk_trial_series_id_series FOREIGN KEY (series_id)
                REFERENCES series (id) ON DELETE CASCADE,
            CONSTRAINT ck_trial_count_non_negative CHECK (count >= 0)
        ) PARTITION BY RANGE (started_at)""")
    op.execute("ALTER SEQUENCE trial_id_seq OWNED BY trial.id")
    op.execute("CREATE TABLE trial_default PARTITION OF trial DEFAULT")
    months = [row[0] for row in bind.execute(sa.text(
        "SELECT DISTINCT date_trunc('month', started_at AT TIME ZONE 'UTC') FROM series"))]
    now = datetime.now(UTC).replace(tzinfo=None)
    for month in sorted({*months, _month(now, 0), _month(now, 1), _month(now, 2)}):
        nxt = _month(month, 1)
        op.execute(f"CREATE TABLE trial_y{month:%Ym%m} PARTITION OF trial FOR VALUES FROM "
                   f"('{month:%Y-%m-%d} 00:00:00+00') TO ('{nxt:%Y-%m-%d} 00:00:00+00')")
    op.execute(f"INSERT INTO trial (started_at, {TRIAL_COLUMNS}) SELECT s.started_at, "
               + ", ".join(f"t.{c.strip()}" for c in TRIAL_COLUMNS.split(","))
               + " FROM trial_v1 t JOIN series s ON s.id = t.series_id")
    op.execute("DROP TABLE trial_v1")

    op.add_column('project', sa.Column('intervals_retention_days', sa.BigInteger()))
    op.add_column('project', sa.Column('histograms_retention_days', sa.BigInteger()))
    op.create_table(
        'rollup',
        sa.Column('id', sa.BigInteger(), nullable=False),
        sa.Column('project_id', sa.BigInteger(), nullable=False),
        sa.Column('history', sa.String(length=32), nullable=False),
        sa.Column('params_key', sa.String(length=32), nullable=False),
        sa.Column('suite', sa.String(length=64), nullable=False),
        sa.Column('scenario', sa.String(length=64), nullable=False),
        sa.Column('labels', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column('params', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column('metric', sa.String(length=64), nullable=False),
        sa.Column('day', sa.Date(), nullable=False),
        sa.Column('runs', sa.BigInteger(), nullable=False),
        sa.Column('median', sa.Double(), nullable=False),
        sa.Column('p10', sa.Double(), nullable=False),
        sa.Column('p90', sa.Double(), nullable=False),
        sa.Column('histogram', sa.LargeBinary(), nullable=True),
        sa.ForeignKeyConstraint(['project_id'], ['project.id'],
                                name=op.f('fk_rollup_project_id_project'), ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_rollup')),
        sa.UniqueConstraint('history', 'params_key', 'metric', 'day',
                            name=op.f('uq_rollup_history_params_key_metric_day')),
    )


def _month(moment: datetime, ahead: int) -> datetime:
    index = moment.year * 12 + moment.month - 1 + ahead
    return datetime(index // 12, index % 12 + 1, 1)


def downgrade() -> None:
    raise NotImplementedError("0007 moves trials into a partitioned table; restore a backup")
