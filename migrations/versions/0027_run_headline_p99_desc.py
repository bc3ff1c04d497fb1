"""The runs list sorted by P99 from the highest: an index in that order, runs without a P99
last. The index of 0026 serves the lowest first; read backwards it puts the runs without a P99
first, so the highest-first list sorted every run of the project.

Revision ID: 0027
Revises: 0026
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0027'
down_revision: str | None = '0026'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index('ix_run_project_headline_p99_desc', 'run',
                    ['project_id', sa.text('headline_p99 DESC NULLS LAST')])


def downgrade() -> None:
    op.drop_index('ix_run_project_headline_p99_desc', 'run')
