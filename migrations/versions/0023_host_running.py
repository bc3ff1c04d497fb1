"""What a host's runner said it was executing at its last heartbeat, and since when it has
said it executes nothing: dispatch and the pickup watchdog go by them as well as by the lab's
own book (a host still busy with an attempt the lab gave up on is given nothing more).

Revision ID: 0023
Revises: 0022
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '0023'
down_revision: str | None = '0022'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('host', sa.Column('running', postgresql.JSONB(astext_type=sa.Text()),
                                    nullable=True))
    op.add_column('host', sa.Column('idle_since', sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    op.drop_column('host', 'idle_since')
    op.drop_column('host', 'running')
