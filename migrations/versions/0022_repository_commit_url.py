"""A repository's commit URL: a template with {sha} in it, where a person reads one of its
commits (the dashboard links commits to it).

Revision ID: 0022
Revises: 0021
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0022'
down_revision: str | None = '0021'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('repository', sa.Column('commit_url', sa.String(length=1000), nullable=True))


def downgrade() -> None:
    op.drop_column('repository', 'commit_url')
