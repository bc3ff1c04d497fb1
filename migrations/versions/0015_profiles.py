"""CPU profiles of a run's programs (folded stacks, compressed, per series and program), and
jobs that ask for them.

Revision ID: 0015
Revises: 0014
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0015'
down_revision: str | None = '0014'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        'profile',
        sa.Column('id', sa.BigInteger(), nullable=False),
        sa.Column('run_id', sa.BigInteger(), nullable=False),
        sa.Column('series_id', sa.BigInteger(), nullable=False),
        sa.Column('program', sa.String(length=64), nullable=False),
        sa.Column('tool', sa.String(length=64), nullable=False),
        sa.Column('frequency_hz', sa.Double(), nullable=True),
        sa.Column('samples', sa.BigInteger(), nullable=False),
        sa.Column('stacks', sa.BigInteger(), nullable=False),
        sa.Column('folded_bytes', sa.BigInteger(), nullable=False),
        sa.Column('data', sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(['run_id'], ['run.id'], name=op.f('fk_profile_run_id_run'),
                                ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['series_id'], ['series.id'],
                                name=op.f('fk_profile_series_id_series'), ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_profile')),
        sa.UniqueConstraint('series_id', 'program', name=op.f('uq_profile_series_id_program')),
    )
    op.create_index(op.f('ix_profile_run_id'), 'profile', ['run_id'], unique=False)
    op.add_column('job', sa.Column('profile', sa.Boolean(), server_default=sa.false(),
                                   nullable=False))


def downgrade() -> None:
    op.drop_column('job', 'profile')
    op.drop_index(op.f('ix_profile_run_id'), table_name='profile')
    op.drop_table('profile')
