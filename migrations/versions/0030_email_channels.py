"""Email channels (`kind` email, their `mailto:` addresses in `url`) and their daily digest.

Revision ID: 0030
Revises: 0029
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0030'
down_revision: str | None = '0029'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('channel', sa.Column('digest', sa.Boolean(), server_default=sa.text('false'),
                                       nullable=False))


def downgrade() -> None:
    op.drop_column('channel', 'digest')
