"""The gate against windows of history: the evidence of each judged metric, and a CI
branch's start point.

Revision ID: 0012
Revises: 0011
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '0012'
down_revision: str | None = '0011'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('run', sa.Column('gate_evidence', postgresql.JSONB(),
                                   server_default=sa.text("'[]'::jsonb"), nullable=False))
    op.add_column('run', sa.Column('start_branch', sa.String(length=200), nullable=True))
    op.add_column('run', sa.Column('start_commit', sa.String(length=64), nullable=True))


def downgrade() -> None:
    for column in ('start_commit', 'start_branch', 'gate_evidence'):
        op.drop_column('run', column)
