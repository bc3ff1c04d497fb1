"""Alert triage: the acknowledgement's note and the alert's assignee (a user of the project).

Revision ID: 0016
Revises: 0015
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0016'
down_revision: str | None = '0015'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('alert', sa.Column('note', sa.Text(), nullable=True))
    op.add_column('alert', sa.Column('assignee_id', sa.BigInteger(), nullable=True))
    op.create_foreign_key(op.f('fk_alert_assignee_id_user'), 'alert', 'user',
                          ['assignee_id'], ['id'], ondelete='SET NULL')
    op.create_index(op.f('ix_alert_assignee_id'), 'alert', ['assignee_id'], unique=False)


def downgrade() -> None:
    op.drop_index(op.f('ix_alert_assignee_id'), table_name='alert')
    op.drop_constraint(op.f('fk_alert_assignee_id_user'), 'alert', type_='foreignkey')
    op.drop_column('alert', 'assignee_id')
    op.drop_column('alert', 'note')
