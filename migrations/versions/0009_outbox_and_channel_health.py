"""The transactional outbox of Celery messages; channels' delivery health and mute.

Revision ID: 0009
Revises: 0008
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '0009'
down_revision: str | None = '0008'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'outbox_message',
        sa.Column('id', sa.BigInteger(), nullable=False),
        sa.Column('task', sa.String(length=200), nullable=False),
        sa.Column('queue', sa.String(length=200), nullable=True),
        sa.Column('task_id', sa.String(length=200), nullable=True),
        sa.Column('kwargs', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column('options', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('sent_at', sa.DateTime(timezone=True), nullable=True),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_outbox_message')),
    )
    op.create_index(op.f('ix_outbox_message_task_id'), 'outbox_message', ['task_id'])
    op.create_index('ix_outbox_message_unsent', 'outbox_message', ['id'],
                    postgresql_where=sa.text('sent_at is null'))
    op.add_column('channel', sa.Column('muted', sa.Boolean(), server_default=sa.text('false'),
                                       nullable=False))
    op.add_column('channel', sa.Column('consecutive_failures', sa.BigInteger(),
                                       server_default=sa.text('0'), nullable=False))
    op.add_column('channel', sa.Column('failing_since', sa.DateTime(timezone=True),
                                       nullable=True))
    op.add_column('channel', sa.Column('retry_at', sa.DateTime(timezone=True), nullable=True))
    op.add_column('channel', sa.Column('last_error', sa.Text(), nullable=True))


def downgrade() -> None:
    for column in ('last_error', 'retry_at', 'failing_since', 'consecutive_failures', 'muted'):
        op.drop_column('channel', column)
    op.drop_index('ix_outbox_message_unsent', table_name='outbox_message')
    op.drop_index(op.f('ix_outbox_message_task_id'), table_name='outbox_message')
    op.drop_table('outbox_message')
