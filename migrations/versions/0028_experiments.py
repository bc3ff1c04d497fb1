"""Experiments: a project's named, versioned studies (jobs, named series, expectations,
reference figures) and their runs with each expectation as the lab judged it and the lab's
figure beside each reference.

Revision ID: 0028
Revises: 0027
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '0028'
down_revision: str | None = '0027'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'experiment',
        sa.Column('id', sa.BigInteger(), nullable=False),
        sa.Column('project_id', sa.BigInteger(), nullable=False),
        sa.Column('name', sa.String(length=64), nullable=False),
        sa.Column('version', sa.BigInteger(), nullable=False),
        sa.Column('document', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column('created_by_id', sa.BigInteger(), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['created_by_id'], ['user.id'],
                                name=op.f('fk_experiment_created_by_id_user'),
                                ondelete='SET NULL'),
        sa.ForeignKeyConstraint(['project_id'], ['project.id'],
                                name=op.f('fk_experiment_project_id_project'),
                                ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_experiment')),
        sa.UniqueConstraint('project_id', 'name', 'version',
                            name=op.f('uq_experiment_project_id_name_version')),
    )
    op.create_index(op.f('ix_experiment_project_id'), 'experiment', ['project_id'])
    op.create_table(
        'experiment_run',
        sa.Column('id', sa.BigInteger(), nullable=False),
        sa.Column('project_id', sa.BigInteger(), nullable=False),
        sa.Column('experiment_id', sa.BigInteger(), nullable=False),
        sa.Column('host_tags', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column('jobs', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column('status', sa.String(length=16), nullable=False),
        sa.Column('judgements', postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.Column('figures', postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.Column('message', sa.Text(), nullable=True),
        sa.Column('created_by_id', sa.BigInteger(), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(['created_by_id'], ['user.id'],
                                name=op.f('fk_experiment_run_created_by_id_user'),
                                ondelete='SET NULL'),
        sa.ForeignKeyConstraint(['experiment_id'], ['experiment.id'],
                                name=op.f('fk_experiment_run_experiment_id_experiment'),
                                ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['project_id'], ['project.id'],
                                name=op.f('fk_experiment_run_project_id_project'),
                                ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_experiment_run')),
    )
    op.create_index(op.f('ix_experiment_run_project_id'), 'experiment_run', ['project_id'])
    op.create_index(op.f('ix_experiment_run_experiment_id'), 'experiment_run',
                    ['experiment_id'])
    op.create_index(op.f('ix_experiment_run_status'), 'experiment_run', ['status'])


def downgrade() -> None:
    op.drop_table('experiment_run')
    op.drop_table('experiment')
