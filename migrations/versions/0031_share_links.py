"""Share links: read-only views of a run, a comparison or a trend opened without a login
(their tokens' SHA-256 only), and the origins whose pages may frame them.

Revision ID: 0031
Revises: 0030
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '0031'
down_revision: str | None = '0030'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'share_link',
        sa.Column('id', sa.BigInteger(), nullable=False),
        sa.Column('project_id', sa.BigInteger(), nullable=False),
        sa.Column('kind', sa.String(length=16), nullable=False),
        sa.Column('target', postgresql.JSONB(astext_type=sa.Text()), nullable=False),
        sa.Column('token_hash', sa.String(length=64), nullable=False),
        sa.Column('prefix', sa.String(length=16), nullable=False),
        sa.Column('created_by', sa.String(length=200), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.Column('expires_at', sa.DateTime(timezone=True), nullable=True),
        sa.Column('revoked_at', sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(['project_id'], ['project.id'],
                                name=op.f('fk_share_link_project_id_project'),
                                ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_share_link')),
        sa.UniqueConstraint('token_hash', name=op.f('uq_share_link_token_hash')),
    )
    op.create_index(op.f('ix_share_link_project_id'), 'share_link', ['project_id'])
    op.add_column('project', sa.Column('embed_origins', postgresql.JSONB(astext_type=sa.Text()),
                                       server_default=sa.text("'[]'::jsonb"), nullable=False))


def downgrade() -> None:
    op.drop_column('project', 'embed_origins')
    op.drop_table('share_link')
