"""The projects a host serves: their jobs may run on it, and only their members see it
(NULL: every project, as before).

Revision ID: 0024
Revises: 0023
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '0024'
down_revision: str | None = '0023'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('host', sa.Column('serves', postgresql.ARRAY(sa.Integer()), nullable=True))


def downgrade() -> None:
    op.drop_column('host', 'serves')
