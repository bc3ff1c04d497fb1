"""Enrolled hosts: the key a host's runner signs its messages with, when it enrolled, and the
one-time invitations hosts join with.

Revision ID: 0025
Revises: 0024
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '0025'
down_revision: str | None = '0024'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('host', sa.Column('secret', sa.String(length=64), nullable=True))
    op.add_column('host', sa.Column('enrolled_at', sa.DateTime(timezone=True), nullable=True))
    op.create_table(
        'host_invitation',
        sa.Column('id', sa.BigInteger(), nullable=False),
        sa.Column('name', sa.String(length=200), nullable=False),
        sa.Column('tags', postgresql.ARRAY(sa.String(length=64)), nullable=False),
        sa.Column('serves', postgresql.ARRAY(sa.Integer()), nullable=True),
        sa.Column('code_hash', sa.String(length=64), nullable=False),
        sa.Column('created_by_id', sa.BigInteger(), nullable=True),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('expires_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('used_at', sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(['created_by_id'], ['user.id'],
                                name=op.f('fk_host_invitation_created_by_id_user'),
                                ondelete='SET NULL'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_host_invitation')),
        sa.UniqueConstraint('code_hash', name=op.f('uq_host_invitation_code_hash')),
    )


def downgrade() -> None:
    op.drop_table('host_invitation')
    op.drop_column('host', 'enrolled_at')
    op.drop_column('host', 'secret')
