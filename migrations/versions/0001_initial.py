"""initial

Revision ID: 0001
Revises:
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '0001'
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('host',
    sa.Column('id', sa.BigInteger(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('tags', postgresql.ARRAY(sa.String(length=64)), nullable=False),
    sa.Column('fingerprint', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('capabilities', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('last_seen_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('heartbeat_at', sa.DateTime(timezone=True), nullable=True),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_host')),
    sa.UniqueConstraint('name', name=op.f('uq_host_name'))
    )
    op.create_table('project',
    sa.Column('id', sa.BigInteger(), nullable=False),
    sa.Column('slug', sa.String(length=64), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_project')),
    sa.UniqueConstraint('slug', name=op.f('uq_project_slug'))
    )
    op.create_table('user',
    sa.Column('id', sa.BigInteger(), nullable=False),
    sa.Column('email', sa.String(length=320), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=True),
    sa.Column('password_hash', sa.Text(), nullable=False),
    sa.Column('role', sa.Enum('admin', 'member', 'viewer', name='role', native_enum=False, length=16), nullable=False),
    sa.Column('is_active', sa.Boolean(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_user')),
    sa.UniqueConstraint('email', name=op.f('uq_user_email'))
    )
    op.create_table('api_token',
    sa.Column('id', sa.BigInteger(), nullable=False),
    sa.Column('project_id', sa.BigInteger(), nullable=False),
    sa.Column('created_by_id', sa.BigInteger(), nullable=True),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('prefix', sa.String(length=16), nullable=False),
    sa.Column('token_hash', sa.String(length=64), nullable=False),
    sa.Column('scopes', postgresql.ARRAY(sa.String(length=32)), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('revoked_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('last_used_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['created_by_id'], ['user.id'], name=op.f('fk_api_token_created_by_id_user'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['project_id'], ['project.id'], name=op.f('fk_api_token_project_id_project'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_api_token')),
    sa.UniqueConstraint('token_hash', name=op.f('uq_api_token_token_hash'))
    )
    op.create_table('job',
    sa.Column('id', sa.BigInteger(), nullable=False),
    sa.Column('project_id', sa.BigInteger(), nullable=False),
    sa.Column('suite', sa.String(length=64), nullable=False),
    sa.Column('scenario', sa.String(length=64), nullable=False),
    sa.Column('params', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('host_tags', postgresql.ARRAY(sa.String(length=64)), nullable=False),
    sa.Column('repetitions', sa.BigInteger(), nullable=False),
    sa.Column('status', sa.Enum('queued', 'dispatched', 'running', 'succeeded', 'failed', 'cancelled', 'timed_out', name='job_status', native_enum=False, length=16), nullable=False),
    sa.Column('phase', sa.String(length=32), nullable=True),
    sa.Column('progress', sa.Double(), nullable=False),
    sa.Column('host_id', sa.BigInteger(), nullable=True),
    sa.Column('run_id', sa.BigInteger(), nullable=True),
    sa.Column('attempts', sa.BigInteger(), nullable=False),
    sa.Column('error', sa.Text(), nullable=True),
    sa.Column('timeout_s', sa.BigInteger(), nullable=False),
    sa.Column('created_by_id', sa.BigInteger(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('dispatched_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('started_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['created_by_id'], ['user.id'], name=op.f('fk_job_created_by_id_user'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['host_id'], ['host.id'], name=op.f('fk_job_host_id_host'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['project_id'], ['project.id'], name=op.f('fk_job_project_id_project'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_job'))
    )
    op.create_index(op.f('ix_job_status'), 'job', ['status'], unique=False)
    op.create_table('login_session',
    sa.Column('id', sa.BigInteger(), nullable=False),
    sa.Column('user_id', sa.BigInteger(), nullable=False),
    sa.Column('token_hash', sa.String(length=64), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('revoked_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['user_id'], ['user.id'], name=op.f('fk_login_session_user_id_user'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_login_session')),
    sa.UniqueConstraint('token_hash', name=op.f('uq_login_session_token_hash'))
    )
    op.create_index(op.f('ix_login_session_user_id'), 'login_session', ['user_id'], unique=False)
    op.create_table('run',
    sa.Column('id', sa.BigInteger(), nullable=False),
    sa.Column('project_id', sa.BigInteger(), nullable=False),
    sa.Column('suite', sa.String(length=64), nullable=False),
    sa.Column('scenario', sa.String(length=64), nullable=False),
    sa.Column('params', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('started_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('finished_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('source_kind', sa.String(length=16), nullable=False),
    sa.Column('commit', sa.String(length=64), nullable=True),
    sa.Column('branch', sa.String(length=200), nullable=True),
    sa.Column('build_url', sa.Text(), nullable=True),
    sa.Column('pull_request', sa.BigInteger(), nullable=True),
    sa.Column('host_id', sa.BigInteger(), nullable=True),
    sa.Column('host_name', sa.String(length=200), nullable=True),
    sa.Column('host_tags', postgresql.ARRAY(sa.String(length=64)), nullable=False),
    sa.Column('host_fingerprint', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('job_id', sa.BigInteger(), nullable=True),
    sa.Column('idempotency_key', sa.String(length=200), nullable=True),
    sa.Column('request_hash', sa.String(length=64), nullable=True),
    sa.ForeignKeyConstraint(['host_id'], ['host.id'], name=op.f('fk_run_host_id_host'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['job_id'], ['job.id'], name=op.f('fk_run_job_id_job'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['project_id'], ['project.id'], name=op.f('fk_run_project_id_project'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_run')),
    sa.UniqueConstraint('project_id', 'idempotency_key', name=op.f('uq_run_project_id_idempotency_key'))
    )
    op.create_index(op.f('ix_run_branch'), 'run', ['branch'], unique=False)
    op.create_index(op.f('ix_run_commit'), 'run', ['commit'], unique=False)
    op.create_index('ix_run_created_at', 'run', ['created_at'], unique=False)
    op.create_index(op.f('ix_run_host_id'), 'run', ['host_id'], unique=False)
    op.create_index('ix_run_project_suite_scenario_started', 'run', ['project_id', 'suite', 'scenario', 'started_at'], unique=False)
    # job and run reference each other: this key is added once both exist.
    op.create_foreign_key(op.f('fk_job_run_id_run'), 'job', 'run', ['run_id'], ['id'],
                          ondelete='SET NULL')
    op.create_table('series',
    sa.Column('id', sa.BigInteger(), nullable=False),
    sa.Column('run_id', sa.BigInteger(), nullable=False),
    sa.Column('labels', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('label_key', sa.Text(), nullable=False),
    sa.Column('summary', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('summary_uncorrected', postgresql.JSONB(astext_type=sa.Text()), nullable=True),
    sa.Column('metrics', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.ForeignKeyConstraint(['run_id'], ['run.id'], name=op.f('fk_series_run_id_run'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_series')),
    sa.UniqueConstraint('run_id', 'label_key', name=op.f('uq_series_run_id_label_key'))
    )
    op.create_index(op.f('ix_series_run_id'), 'series', ['run_id'], unique=False)
    op.create_table('trial',
    sa.Column('id', sa.BigInteger(), nullable=False),
    sa.Column('series_id', sa.BigInteger(), nullable=False),
    sa.Column('index', sa.BigInteger(), nullable=False),
    sa.Column('histogram', sa.LargeBinary(), nullable=False),
    sa.Column('histogram_uncorrected', sa.LargeBinary(), nullable=True),
    sa.Column('count', sa.BigInteger(), nullable=False),
    sa.Column('min', sa.Double(), nullable=False),
    sa.Column('max', sa.Double(), nullable=False),
    sa.Column('mean', sa.Double(), nullable=False),
    sa.Column('stddev', sa.Double(), nullable=False),
    sa.Column('p50', sa.Double(), nullable=False),
    sa.Column('p90', sa.Double(), nullable=False),
    sa.Column('p95', sa.Double(), nullable=False),
    sa.Column('p99', sa.Double(), nullable=False),
    sa.Column('p999', sa.Double(), nullable=False),
    sa.Column('p9999', sa.Double(), nullable=False),
    sa.Column('exact', sa.Boolean(), nullable=False),
    sa.Column('summary_uncorrected', postgresql.JSONB(astext_type=sa.Text()), nullable=True),
    sa.Column('metrics', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('intervals', postgresql.JSONB(astext_type=sa.Text()), nullable=True),
    sa.CheckConstraint('count >= 0', name=op.f('ck_trial_count_non_negative')),
    sa.ForeignKeyConstraint(['series_id'], ['series.id'], name=op.f('fk_trial_series_id_series'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_trial')),
    sa.UniqueConstraint('series_id', 'index', name=op.f('uq_trial_series_id_index'))
    )


def downgrade() -> None:
    op.drop_constraint(op.f('fk_job_run_id_run'), 'job', type_='foreignkey')
    op.drop_table('trial')
    op.drop_index(op.f('ix_series_run_id'), table_name='series')
    op.drop_table('series')
    op.drop_index('ix_run_project_suite_scenario_started', table_name='run')
    op.drop_index(op.f('ix_run_host_id'), table_name='run')
    op.drop_index('ix_run_created_at', table_name='run')
    op.drop_index(op.f('ix_run_commit'), table_name='run')
    op.drop_index(op.f('ix_run_branch'), table_name='run')
    op.drop_table('run')
    op.drop_index(op.f('ix_login_session_user_id'), table_name='login_session')
    op.drop_table('login_session')
    op.drop_index(op.f('ix_job_status'), table_name='job')
    op.drop_table('job')
    op.drop_table('api_token')
    op.drop_table('user')
    op.drop_table('project')
    op.drop_table('host')
