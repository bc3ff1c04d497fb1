"""Where a summary's statistics came from: printed by the harness (k6's p(95), wrk2's
99.000%) or interpolated in a histogram rebuilt from its spectrum.

Revision ID: 0011
Revises: 0010
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '0011'
down_revision: str | None = '0010'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    for table in ('series', 'trial'):
        op.add_column(table, sa.Column('summary_origin', postgresql.JSONB(), nullable=True))


def downgrade() -> None:
    for table in ('series', 'trial'):
        op.drop_column(table, 'summary_origin')
