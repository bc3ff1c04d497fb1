"""Suites v2: suite definitions kept from heartbeats; a run's sweep and declared metrics.

Revision ID: 0005
Revises: 0004
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '0005'
down_revision: str | None = '0004'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'suite',
        sa.Column('id', sa.String(length=64), nullable=False),
        sa.Column('version', sa.String(length=64), nullable=False),
        sa.Column('definition', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column('advertised_at', sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_suite')),
    )
    op.add_column('run', sa.Column('sweep', postgresql.JSONB(astext_type=sa.Text()),
                                   nullable=True))
    op.add_column('run', sa.Column('metric_info', postgresql.JSONB(astext_type=sa.Text()),
                                   server_default='{}', nullable=False))


def downgrade() -> None:
    op.drop_column('run', 'metric_info')
    op.drop_column('run', 'sweep')
    op.drop_table('suite')
