import enum
from datetime import datetime

from sqlalchemy import Enum, ForeignKey, String, Text
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Mapped, mapped_column, relationship

from latlab.models.base import Base
from latlab.models.project import Project


class Role(enum.StrEnum):
    admin = "admin"
    member = "member"
    viewer = "viewer"


class Scope(enum.StrEnum):
    runs_write = "runs:write"
    jobs_write = "jobs:write"
    read = "read"
    # Prometheus scrapes GET /metrics with it; it reads nothing else.
    metrics_read = "metrics:read"


class User(Base):
    __tablename__ = "user"

    id: Mapped[int] = mapped_column(primary_key=True)
    email: Mapped[str] = mapped_column(String(320), unique=True)
    name: Mapped[str | None] = mapped_column(String(200))
    password_hash: Mapped[str] = mapped_column(Text)
    role: Mapped[Role] = mapped_column(Enum(Role, name="role", native_enum=False, length=16))
    is_active: Mapped[bool] = mapped_column(default=True)
    created_at: Mapped[datetime]


class LoginSession(Base):
    """A dashboard session; the cookie holds a random id, the table holds its hash."""

    __tablename__ = "login_session"

    id: Mapped[int] = mapped_column(primary_key=True)
    user_id: Mapped[int] = mapped_column(ForeignKey("user.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime]
    expires_at: Mapped[datetime]
    revoked_at: Mapped[datetime | None]
    # The project the dashboard shows; switched with PUT /auth/project.
    project_id: Mapped[int | None] = mapped_column(
        ForeignKey("project.id", ondelete="SET NULL"))

    user: Mapped[User] = relationship(lazy="raise")


class ApiToken(Base):
    """A CI token: random, shown once, stored hashed, scoped to one project."""

    __tablename__ = "api_token"

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("project.id", ondelete="CASCADE"))
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    name: Mapped[str] = mapped_column(String(200))
    prefix: Mapped[str] = mapped_column(String(16))
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    scopes: Mapped[list[str]] = mapped_column(ARRAY(String(32)))
    created_at: Mapped[datetime]
    expires_at: Mapped[datetime | None]
    revoked_at: Mapped[datetime | None]
    last_used_at: Mapped[datetime | None]

    project: Mapped[Project] = relationship(lazy="raise")
    created_by: Mapped[User | None] = relationship(lazy="raise")
