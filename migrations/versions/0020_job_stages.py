"""A try job measured in stages (`jobs.stages`): its looks, its cap of lab time and the stages
it has measured.

Revision ID: 0020
Revises: 0019
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '0020'
down_revision: str | None = '0019'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('job', sa.Column('stages', postgresql.JSONB(astext_type=sa.Text()),
                                   nullable=True))


def downgrade() -> None:
    op.drop_column('job', 'stages')
