"""Bisections: the search for the commit that made a repository's series slower, each step a
try job (`job.bisection_id`), started by a confirmed regression's alert (`alert.bisection_id`)
when its project says so (`project.bisect_regressions`).

Revision ID: 0021
Revises: 0020
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '0021'
down_revision: str | None = '0020'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    json = postgresql.JSONB(astext_type=sa.Text())
    op.create_table(
        'bisection',
        sa.Column('id', sa.BigInteger(), nullable=False),
        sa.Column('project_id', sa.BigInteger(), nullable=False),
        sa.Column('repository_id', sa.BigInteger(), nullable=True),
        sa.Column('repo', sa.String(length=64), nullable=False),
        sa.Column('suite', sa.String(length=64), nullable=False),
        sa.Column('scenario', sa.String(length=64), nullable=False),
        sa.Column('params', json, nullable=False),
        sa.Column('series', json, nullable=False),
        sa.Column('metric', sa.String(length=64), nullable=False),
        sa.Column('host_tags', json, nullable=False),
        sa.Column('repetitions', sa.BigInteger(), nullable=False),
        sa.Column('commits', json, nullable=False),
        sa.Column('good', sa.BigInteger(), nullable=False),
        sa.Column('bad', sa.BigInteger(), nullable=False),
        sa.Column('unbuildable', json, nullable=False),
        sa.Column('pending', json, nullable=True),
        sa.Column('steps', json, nullable=False),
        sa.Column('status', sa.String(length=16), nullable=False),
        sa.Column('result', json, nullable=True),
        sa.Column('message', sa.Text(), nullable=True),
        sa.Column('max_minutes', sa.BigInteger(), nullable=True),
        sa.Column('created_by_id', sa.BigInteger(), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(['project_id'], ['project.id'],
                                name=op.f('fk_bisection_project_id_project'),
                                ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['repository_id'], ['repository.id'],
                                name=op.f('fk_bisection_repository_id_repository'),
                                ondelete='SET NULL'),
        sa.ForeignKeyConstraint(['created_by_id'], ['user.id'],
                                name=op.f('fk_bisection_created_by_id_user'),
                                ondelete='SET NULL'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_bisection')),
    )
    op.create_index(op.f('ix_bisection_project_id'), 'bisection', ['project_id'])
    op.create_index(op.f('ix_bisection_status'), 'bisection', ['status'])
    for table in ('job', 'alert'):
        op.add_column(table, sa.Column('bisection_id', sa.BigInteger(), nullable=True))
        op.create_foreign_key(op.f(f'fk_{table}_bisection_id_bisection'), table, 'bisection',
                              ['bisection_id'], ['id'], ondelete='SET NULL')
    op.add_column('project', sa.Column('bisect_regressions', sa.String(length=16),
                                       server_default='off', nullable=False))


def downgrade() -> None:
    op.drop_column('project', 'bisect_regressions')
    for table in ('alert', 'job'):
        op.drop_constraint(op.f(f'fk_{table}_bisection_id_bisection'), table,
                           type_='foreignkey')
        op.drop_column(table, 'bisection_id')
    op.drop_index(op.f('ix_bisection_status'), table_name='bisection')
    op.drop_index(op.f('ix_bisection_project_id'), table_name='bisection')
    op.drop_table('bisection')
