"""What a harness told beside its measurements: a trial's and a series' failures (failed of
attempted, in the harness's words) and a run's harness context and notes, and whether its submission expects errors.

Revision ID: 0018
Revises: 0017
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = '0018'
down_revision: str | None = '0017'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('run', sa.Column('harness', postgresql.JSONB(astext_type=sa.Text()),
                                   nullable=True))
    op.add_column('run', sa.Column('errors_expected', sa.Boolean(), nullable=False,
                                   server_default=sa.text('false')))
    op.add_column('series', sa.Column('failures', postgresql.JSONB(astext_type=sa.Text()),
                                      nullable=True))
    op.add_column('trial', sa.Column('failures', postgresql.JSONB(astext_type=sa.Text()),
                                     nullable=True))


def downgrade() -> None:
    op.drop_column('trial', 'failures')
    op.drop_column('series', 'failures')
    op.drop_column('run', 'errors_expected')
    op.drop_column('run', 'harness')
