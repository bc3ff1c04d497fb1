"""A run's own gate metrics (an adapter's headline, for a suite the lab does not know).

Revision ID: 0008
Revises: 0007
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '0008'
down_revision: str | None = '0007'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('run', sa.Column('gate', postgresql.JSONB(astext_type=sa.Text()),
                                   nullable=True))


def downgrade() -> None:
    op.drop_column('run', 'gate')
