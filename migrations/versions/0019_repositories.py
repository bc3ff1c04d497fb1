"""A project's git repositories, whose code jobs build and measure at a commit: a job's
repository and resolved source, and the repository a run measured.

Revision ID: 0019
Revises: 0018
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '0019'
down_revision: str | None = '0018'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'repository',
        sa.Column('id', sa.BigInteger(), nullable=False),
        sa.Column('project_id', sa.BigInteger(), nullable=False),
        sa.Column('name', sa.String(length=64), nullable=False),
        sa.Column('url', sa.String(length=2000), nullable=False),
        sa.Column('default_branch', sa.String(length=200), nullable=False),
        sa.Column('secret', sa.Text(), nullable=True),
        sa.Column('build_network', sa.Boolean(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['project_id'], ['project.id'], ondelete='CASCADE',
                                name=op.f('fk_repository_project_id_project')),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_repository')),
        sa.UniqueConstraint('project_id', 'name', name=op.f('uq_repository_project_id_name')),
    )
    op.add_column('job', sa.Column('repository_id', sa.BigInteger(), nullable=True))
    op.create_foreign_key(op.f('fk_job_repository_id_repository'), 'job', 'repository', ['repository_id'],
                          ['id'], ondelete='SET NULL')
    op.add_column('job', sa.Column('source', postgresql.JSONB(astext_type=sa.Text()),
                                   nullable=True))
    op.add_column('run', sa.Column('repo', sa.String(length=64), nullable=True))


def downgrade() -> None:
    op.drop_column('run', 'repo')
    op.drop_column('job', 'source')
    op.drop_constraint(op.f('fk_job_repository_id_repository'), 'job', type_='foreignkey')
    op.drop_column('job', 'repository_id')
    op.drop_table('repository')
