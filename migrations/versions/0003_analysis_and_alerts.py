"""analysis and alerts

Revision ID: 0003
Revises: 0002
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '0003'
down_revision: str | None = '0002'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table('channel',
    sa.Column('id', sa.BigInteger(), nullable=False),
    sa.Column('project_id', sa.BigInteger(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('url', sa.Text(), nullable=False),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['project_id'], ['project.id'], name=op.f('fk_channel_project_id_project'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_channel'))
    )
    op.create_table('sla_rule',
    sa.Column('id', sa.BigInteger(), nullable=False),
    sa.Column('project_id', sa.BigInteger(), nullable=False),
    sa.Column('name', sa.String(length=200), nullable=False),
    sa.Column('suite', sa.String(length=64), nullable=False),
    sa.Column('scenario', sa.String(length=64), nullable=True),
    sa.Column('series_selector', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('metric', sa.String(length=64), nullable=False),
    sa.Column('op', sa.String(length=2), nullable=False),
    sa.Column('threshold', sa.Double(), nullable=False),
    sa.Column('unit', sa.String(length=16), nullable=False),
    sa.Column('severity', sa.Enum('warning', 'critical', name='severity', native_enum=False, length=16), nullable=False),
    sa.Column('kind', sa.String(length=16), nullable=False),
    sa.Column('enabled', sa.Boolean(), nullable=False),
    sa.Column('channel_ids', postgresql.ARRAY(sa.BigInteger()), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['project_id'], ['project.id'], name=op.f('fk_sla_rule_project_id_project'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_sla_rule'))
    )
    op.create_table('alert',
    sa.Column('id', sa.BigInteger(), nullable=False),
    sa.Column('project_id', sa.BigInteger(), nullable=False),
    sa.Column('source', sa.String(length=64), nullable=False),
    sa.Column('rule_id', sa.BigInteger(), nullable=True),
    sa.Column('history_key', sa.Text(), nullable=False),
    sa.Column('kind', sa.String(length=32), nullable=False),
    sa.Column('severity', sa.Enum('warning', 'critical', name='severity', native_enum=False, length=16), nullable=False),
    sa.Column('state', sa.Enum('open', 'acknowledged', 'resolved', name='alert_state', native_enum=False, length=16), nullable=False),
    sa.Column('suite', sa.String(length=64), nullable=False),
    sa.Column('scenario', sa.String(length=64), nullable=False),
    sa.Column('series_labels', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('metric', sa.String(length=64), nullable=False),
    sa.Column('value', sa.Double(), nullable=True),
    sa.Column('threshold', sa.Double(), nullable=True),
    sa.Column('baseline_value', sa.Double(), nullable=True),
    sa.Column('unit', sa.String(length=16), nullable=False),
    sa.Column('message', sa.Text(), nullable=False),
    sa.Column('run_id', sa.BigInteger(), nullable=True),
    sa.Column('baseline_run_id', sa.BigInteger(), nullable=True),
    sa.Column('channel_ids', postgresql.ARRAY(sa.BigInteger()), nullable=True),
    sa.Column('occurrences', sa.BigInteger(), nullable=False),
    sa.Column('opened_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('acknowledged_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('acknowledged_by_id', sa.BigInteger(), nullable=True),
    sa.Column('resolved_at', sa.DateTime(timezone=True), nullable=True),
    sa.Column('resolved_by_id', sa.BigInteger(), nullable=True),
    sa.Column('resolution', sa.Text(), nullable=True),
    sa.ForeignKeyConstraint(['acknowledged_by_id'], ['user.id'], name=op.f('fk_alert_acknowledged_by_id_user'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['baseline_run_id'], ['run.id'], name=op.f('fk_alert_baseline_run_id_run'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['project_id'], ['project.id'], name=op.f('fk_alert_project_id_project'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['resolved_by_id'], ['user.id'], name=op.f('fk_alert_resolved_by_id_user'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['rule_id'], ['sla_rule.id'], name=op.f('fk_alert_rule_id_sla_rule'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['run_id'], ['run.id'], name=op.f('fk_alert_run_id_run'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_alert'))
    )
    op.create_index(op.f('ix_alert_state'), 'alert', ['state'], unique=False)
    op.create_index('uq_alert_open_source_history', 'alert', ['source', 'history_key'], unique=True, postgresql_where=sa.text("state <> 'resolved'"))
    op.create_table('baseline',
    sa.Column('id', sa.BigInteger(), nullable=False),
    sa.Column('project_id', sa.BigInteger(), nullable=False),
    sa.Column('suite', sa.String(length=64), nullable=False),
    sa.Column('scenario', sa.String(length=64), nullable=False),
    sa.Column('branch', sa.String(length=200), nullable=False),
    sa.Column('run_id', sa.BigInteger(), nullable=False),
    sa.Column('pinned_by_id', sa.BigInteger(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['pinned_by_id'], ['user.id'], name=op.f('fk_baseline_pinned_by_id_user'), ondelete='SET NULL'),
    sa.ForeignKeyConstraint(['project_id'], ['project.id'], name=op.f('fk_baseline_project_id_project'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['run_id'], ['run.id'], name=op.f('fk_baseline_run_id_run'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_baseline')),
    sa.UniqueConstraint('project_id', 'suite', 'scenario', 'branch', name=op.f('uq_baseline_project_id_suite_scenario_branch'))
    )
    op.create_table('notification',
    sa.Column('id', sa.BigInteger(), nullable=False),
    sa.Column('alert_id', sa.BigInteger(), nullable=False),
    sa.Column('channel_id', sa.BigInteger(), nullable=False),
    sa.Column('event', sa.String(length=16), nullable=False),
    sa.Column('payload', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
    sa.Column('status', sa.String(length=16), nullable=False),
    sa.Column('attempts', sa.BigInteger(), nullable=False),
    sa.Column('last_error', sa.Text(), nullable=True),
    sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('next_attempt_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('sent_at', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['alert_id'], ['alert.id'], name=op.f('fk_notification_alert_id_alert'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['channel_id'], ['channel.id'], name=op.f('fk_notification_channel_id_channel'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_notification'))
    )
    op.create_index(op.f('ix_notification_alert_id'), 'notification', ['alert_id'], unique=False)
    op.create_index(op.f('ix_notification_status'), 'notification', ['status'], unique=False)
    op.create_table('delivery_attempt',
    sa.Column('id', sa.BigInteger(), nullable=False),
    sa.Column('notification_id', sa.BigInteger(), nullable=False),
    sa.Column('attempted_at', sa.DateTime(timezone=True), nullable=False),
    sa.Column('status_code', sa.BigInteger(), nullable=True),
    sa.Column('error', sa.Text(), nullable=True),
    sa.Column('ok', sa.Boolean(), nullable=False),
    sa.ForeignKeyConstraint(['notification_id'], ['notification.id'], name=op.f('fk_delivery_attempt_notification_id_notification'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_delivery_attempt'))
    )
    op.create_index(op.f('ix_delivery_attempt_notification_id'), 'delivery_attempt', ['notification_id'], unique=False)
    op.add_column('run', sa.Column('verdict', sa.String(length=16), nullable=True))
    op.add_column('run', sa.Column('verdict_reasons', postgresql.JSONB(astext_type=sa.Text()), nullable=False, server_default='[]'))
    op.add_column('run', sa.Column('baseline_run_id', sa.BigInteger(), nullable=True))
    op.create_foreign_key(op.f('fk_run_baseline_run_id_run'), 'run', 'run', ['baseline_run_id'], ['id'], ondelete='SET NULL')


def downgrade() -> None:
    op.drop_constraint(op.f('fk_run_baseline_run_id_run'), 'run', type_='foreignkey')
    op.drop_column('run', 'baseline_run_id')
    op.drop_column('run', 'verdict_reasons')
    op.drop_column('run', 'verdict')
    op.drop_index(op.f('ix_delivery_attempt_notification_id'), table_name='delivery_attempt')
    op.drop_table('delivery_attempt')
    op.drop_index(op.f('ix_notification_status'), table_name='notification')
    op.drop_index(op.f('ix_notification_alert_id'), table_name='notification')
    op.drop_table('notification')
    op.drop_table('baseline')
    op.drop_index('uq_alert_open_source_history', table_name='alert', postgresql_where=sa.text("state <> 'resolved'"))
    op.drop_index(op.f('ix_alert_state'), table_name='alert')
    op.drop_table('alert')
    op.drop_table('sla_rule')
    op.drop_table('channel')
