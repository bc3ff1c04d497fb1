"""Confirm-on-suspect: confirmation runs and jobs, the project setting, the alert's link.

Revision ID: 0006
Revises: 0005
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0006'
down_revision: str | None = '0005'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('run', sa.Column('confirms_run_id', sa.BigInteger(), nullable=True))
    op.add_column('run', sa.Column('confirmation', sa.String(length=16), nullable=True))
    op.create_foreign_key(op.f('fk_run_confirms_run_id_run'), 'run', 'run',
                          ['confirms_run_id'], ['id'], ondelete='SET NULL')
    op.create_index(op.f('ix_run_confirms_run_id'), 'run', ['confirms_run_id'])
    op.add_column('job', sa.Column('confirms_run_id', sa.BigInteger(), nullable=True))
    op.add_column('job', sa.Column('baseline_version', sa.String(length=64), nullable=True))
    op.create_foreign_key(op.f('fk_job_confirms_run_id_run'), 'job', 'run',
                          ['confirms_run_id'], ['id'], ondelete='SET NULL')
    op.add_column('project', sa.Column('confirm_regressions', sa.Boolean(),
                                       server_default=sa.false(), nullable=False))
    op.add_column('alert', sa.Column('confirmation_run_id', sa.BigInteger(), nullable=True))
    op.create_foreign_key(op.f('fk_alert_confirmation_run_id_run'), 'alert', 'run',
                          ['confirmation_run_id'], ['id'], ondelete='SET NULL')


def downgrade() -> None:
    op.drop_constraint(op.f('fk_alert_confirmation_run_id_run'), 'alert', type_='foreignkey')
    op.drop_column('alert', 'confirmation_run_id')
    op.drop_column('project', 'confirm_regressions')
    op.drop_constraint(op.f('fk_job_confirms_run_id_run'), 'job', type_='foreignkey')
    op.drop_column('job', 'baseline_version')
    op.drop_column('job', 'confirms_run_id')
    op.drop_index(op.f('ix_run_confirms_run_id'), table_name='run')
    op.drop_constraint(op.f('fk_run_confirms_run_id_run'), 'run', type_='foreignkey')
    op.drop_column('run', 'confirmation')
    op.drop_column('run', 'confirms_run_id')
