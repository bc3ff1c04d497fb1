"""The P99 of each run's headline series, kept so that the runs list sorts by it; existing
runs filled in by the rule `runs.overview.headline_key` follows, as it stands at this
revision: the first series a failing reason names, else the one whose P99 rose furthest above
its window, else the first series.

Revision ID: 0026
Revises: 0025
"""

import json
from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = '0026'
down_revision: str | None = '0025'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BATCH = 1000
FAILING = ("regression", "suspected-regression", "sla")


def upgrade() -> None:
    op.add_column('run', sa.Column('headline_p99', sa.Float(), nullable=True))
    op.create_index('ix_run_project_headline_p99', 'run', ['project_id', 'headline_p99'])
    connection = op.get_bind()
    last = 0
    while True:
        runs = connection.execute(sa.text(
            "select id, verdict_reasons, gate_evidence from run where id > :last "
            "order by id limit :batch"), {"last": last, "batch": BATCH}).all()
        if not runs:
            return
        last = runs[-1][0]
        keys = {run_id: _key(reasons or [], evidence or []) for run_id, reasons, evidence in runs}
        p99 = {(run_id, key): value for run_id, key, value in connection.execute(sa.text(
            "select run_id, label_key, (summary->>'p99')::float from series "
            "where run_id = any(:ids)"), {"ids": list(keys)})}
        first = dict(connection.execute(sa.text(
            "select distinct on (run_id) run_id, (summary->>'p99')::float from series "
            "where run_id = any(:ids) order by run_id, id"), {"ids": list(keys)}).all())
        values = [{"id": run_id, "p99": p99.get((run_id, key)) if (run_id, key) in p99
                   else first.get(run_id)} for run_id, key in keys.items()]
        known = [v for v in values if v["p99"] is not None]
        if known:  # (an empty list of parameters would run the statement once, with none)
            connection.execute(sa.text("update run set headline_p99 = :p99 where id = :id"),
                               known)


def _key(reasons: list[dict[str, Any]], evidence: list[dict[str, Any]]) -> str | None:
    for reason in reasons:
        if reason.get("kind") in FAILING and isinstance(reason.get("series"), dict):
            return _label_key(reason["series"])
    changes = {_label_key(e["series"]): e["value"] / e["centre"] - 1 for e in evidence
               if e.get("metric") == "p99" and isinstance(e.get("series"), dict)
               and isinstance(e.get("value"), int | float)
               and isinstance(e.get("centre"), int | float) and e["centre"] > 0}
    return max(changes, key=changes.__getitem__, default=None)


def _label_key(labels: dict[str, Any]) -> str:
    return json.dumps(labels, sort_keys=True, separators=(",", ":"))


def downgrade() -> None:
    op.drop_index('ix_run_project_headline_p99', 'run')
    op.drop_column('run', 'headline_p99')
