"""jobs, schedules, host address

Revision ID: 0002
Revises: 0001
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '0002'
down_revision: str | None = '0001'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('schedule',
    sa.Column('id', sa.BigInteger(), nullable=False),
    sa.Column('project_id', sa.BigInteger(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('cron', sa.String(length=100), nullable=False),
    sa.Column('spec', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('enabled', sa.Boolean(), nullable=False),
    sa.Column('created_by_id', sa.BigInteger(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('last_run_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('next_run_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['created_by_id'], ['user.id'], name=op.f('fk_schedule_created_by_id_user'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['project_id'], ['project.id'], name=op.f('fk_schedule_project_id_project'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_schedule'))
    )
    op.add_column('host', sa.Column('address', sa.String(length=200), nullable=True))
    op.add_column('job', sa.Column('pinned_host_id', sa.BigInteger(), nullable=True))
    op.add_column('job', sa.Column('parent_id', sa.BigInteger(), nullable=True))
    op.add_column('job', sa.Column('schedule_id', sa.BigInteger(), nullable=True))
    op.add_column('job', sa.Column('programs', postgresql.JSONB(astext_type=sa.Text()), nullable=False, server_default='[]'))
    op.alter_column('job', 'programs', server_default=None)
    op.add_column('job', sa.Column('last_event_at', sa.DateTime(timezone=True), nullable=True))
    op.create_foreign_key(op.f('fk_job_parent_id_job'), 'job', 'job', ['parent_id'], ['id'], ondelete='CASCADE')
    op.create_foreign_key(op.f('fk_job_pinned_host_id_host'), 'job', 'host', ['pinned_host_id'], ['id'], ondelete='CASCADE')
    op.create_foreign_key(op.f('fk_job_schedule_id_schedule'), 'job', 'schedule', ['schedule_id'], ['id'], ondelete='SET NULL')


def downgrade() -> None:
    op.drop_constraint(op.f('fk_job_schedule_id_schedule'), 'job', type_='foreignkey')
    op.drop_constraint(op.f('fk_job_pinned_host_id_host'), 'job', type_='foreignkey')
    op.drop_constraint(op.f('fk_job_parent_id_job'), 'job', type_='foreignkey')
    op.drop_column('job', 'last_event_at')
    op.drop_column('job', 'programs')
    op.drop_column('job', 'schedule_id')
    op.drop_column('job', 'parent_id')
    op.drop_column('job', 'pinned_host_id')
    op.drop_column('host', 'address')
    op.drop_table('schedule')
