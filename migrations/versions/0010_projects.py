"""Projects are real: archived projects, members, the session's current project, the
admin's choice to let channels reach private addresses.

Every existing user becomes a member of every existing project, so nobody loses access.

Revision ID: 0010
Revises: 0009
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '0010'
down_revision: str | None = '0009'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column('project', sa.Column('archived_at', sa.DateTime(timezone=True), nullable=True))
    op.add_column('project', sa.Column('allow_private_webhooks', sa.Boolean(),
                                       server_default=sa.false(), nullable=False))
    op.create_table(
        'project_member',
        sa.Column('project_id', sa.BigInteger(), nullable=False),
        sa.Column('user_id', sa.BigInteger(), nullable=False),
        sa.Column('created_at', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['project_id'], ['project.id'],
                                name=op.f('fk_project_member_project_id_project'),
                                ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['user_id'], ['user.id'],
                                name=op.f('fk_project_member_user_id_user'), ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('project_id', 'user_id', name=op.f('pk_project_member')),
    )
    op.create_index(op.f('ix_project_member_user_id'), 'project_member', ['user_id'])
    op.execute('insert into project_member (project_id, user_id, created_at) '
               'select project.id, "user".id, now() from project cross join "user"')
    op.add_column('login_session', sa.Column('project_id', sa.BigInteger(), nullable=True))
    op.create_foreign_key(op.f('fk_login_session_project_id_project'), 'login_session',
                          'project', ['project_id'], ['id'], ondelete='SET NULL')


def downgrade() -> None:
    op.drop_constraint(op.f('fk_login_session_project_id_project'), 'login_session',
                       type_='foreignkey')
    op.drop_column('login_session', 'project_id')
    op.drop_index(op.f('ix_project_member_user_id'), table_name='project_member')
    op.drop_table('project_member')
    op.drop_column('project', 'allow_private_webhooks')
    op.drop_column('project', 'archived_at')
