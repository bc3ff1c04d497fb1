"""Annotations: a moment or a range marked on a project's trends (a person's or a CI step's
note, or the lab's own when a host's tuning, a suite's version or the gate settings change),
and an index to find a host's previous run.

Revision ID: 0029
Revises: 0028
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0029'
down_revision: str | None = '0028'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'annotation',
        sa.Column('id', sa.BigInteger(), nullable=False),
        sa.Column('project_id', sa.BigInteger(), nullable=False),
        sa.Column('at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('until', sa.DateTime(timezone=True), nullable=True),
        sa.Column('kind', sa.String(length=16), nullable=False),
        sa.Column('text', sa.String(length=500), nullable=False),
        sa.Column('link', sa.String(length=2000), nullable=True),
        sa.Column('suite', sa.String(length=64), nullable=True),
        sa.Column('host_name', sa.String(length=200), nullable=True),
        sa.Column('run_id', sa.BigInteger(), nullable=True),
        sa.Column('created_by', sa.String(length=200), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['project_id'], ['project.id'],
                                name=op.f('fk_annotation_project_id_project'),
                                ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['run_id'], ['run.id'], name=op.f('fk_annotation_run_id_run'),
                                ondelete='SET NULL'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_annotation')),
    )
    op.create_index('ix_annotation_project_at', 'annotation', ['project_id', 'at'])
    op.create_index('ix_run_project_host_started', 'run',
                    ['project_id', 'host_name', 'started_at'])


def downgrade() -> None:
    op.drop_index('ix_run_project_host_started', 'run')
    op.drop_table('annotation')
