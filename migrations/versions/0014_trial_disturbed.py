"""A trial the host disturbed says why, and is left out of every verdict.

Revision ID: 0014
Revises: 0013
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0014'
down_revision: str | None = '0013'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('trial', sa.Column('disturbed', sa.Text(), nullable=True))


def downgrade() -> None:
    op.drop_column('trial', 'disturbed')
