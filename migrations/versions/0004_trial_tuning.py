"""What a load program applied or the host refused, per trial.

Revision ID: 0004
Revises: 0003
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '0004'
down_revision: str | None = '0003'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('trial', sa.Column('tuning', postgresql.JSONB(astext_type=sa.Text()),
                                     nullable=True))


def downgrade() -> None:
    op.drop_column('trial', 'tuning')
