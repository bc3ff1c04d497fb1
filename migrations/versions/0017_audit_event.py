"""Audit log: every change of users, projects, tokens, rules, channels, baselines and
schedules, with who made it and the values before and after.

Revision ID: 0017
Revises: 0016
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '0017'
down_revision: str | None = '0016'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'audit_event',
        sa.Column('id', sa.BigInteger(), nullable=False),
        sa.Column('at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('project_id', sa.BigInteger(), nullable=True),
        sa.Column('actor_user_id', sa.BigInteger(), nullable=True),
        sa.Column('actor_token_id', sa.BigInteger(), nullable=True),
        sa.Column('actor', sa.String(length=400), nullable=False),
        sa.Column('entity_type', sa.String(length=32), nullable=False),
        sa.Column('entity_id', sa.BigInteger(), nullable=False),
        sa.Column('action', sa.String(length=16), nullable=False),
        sa.Column('before', postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.Column('after', postgresql.JSONB(astext_type=sa.Text()), nullable=True),
        sa.ForeignKeyConstraint(['actor_token_id'], ['api_token.id'],
                                name=op.f('fk_audit_event_actor_token_id_api_token'),
                                ondelete='SET NULL'),
        sa.ForeignKeyConstraint(['actor_user_id'], ['user.id'],
                                name=op.f('fk_audit_event_actor_user_id_user'),
                                ondelete='SET NULL'),
        sa.ForeignKeyConstraint(['project_id'], ['project.id'],
                                name=op.f('fk_audit_event_project_id_project'),
                                ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_audit_event')),
    )
    op.create_index('ix_audit_event_project_id_at', 'audit_event', ['project_id', 'at'])
    op.create_index('ix_audit_event_entity', 'audit_event', ['entity_type', 'entity_id'])
    op.create_index('ix_audit_event_at', 'audit_event', ['at'])


def downgrade() -> None:
    op.drop_table('audit_event')
