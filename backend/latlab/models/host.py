from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, Integer, String
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Mapped, mapped_column

from latlab.models.base import Base


class Host(Base):
    """A machine that runs benchmarks: announced by its runner, or named by a CI submission."""

    __tablename__ = "host"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    address: Mapped[str | None] = mapped_column(String(200))
    tags: Mapped[list[str]] = mapped_column(ARRAY(String(64)), default=list)
    fingerprint: Mapped[dict[str, Any]] = mapped_column(default=dict)
    # What the runner can execute: suites, scenarios, parameter schemas, program versions.
    capabilities: Mapped[dict[str, Any]] = mapped_column(default=dict)
    created_at: Mapped[datetime]
    last_seen_at: Mapped[datetime | None]
    # Set only by runner heartbeats; a CI-named host is never "online".
    heartbeat_at: Mapped[datetime | None]
    # The attempt ({job_id, attempt}) its runner said it was executing at its last heartbeat,
    # whatever the lab's book says; and since when it has said it executes nothing.
    running: Mapped[dict[str, Any] | None]
    idle_since: Mapped[datetime | None]
    # The projects (ids) whose jobs it runs and whose members see it; None: every project.
    serves: Mapped[list[int] | None] = mapped_column(ARRAY(Integer))
    # The key its runner signs its messages with (`latlab_contract.signing`): set when it
    # enrolls, cleared when it is revoked. None: the lab believes no message in its name.
    secret: Mapped[str | None] = mapped_column(String(64))
    enrolled_at: Mapped[datetime | None]


class HostInvitation(Base):
    """A one-time code with which a machine joins the lab as the host `name`
    (`latlab-runner join`); only the code's hash is kept."""

    __tablename__ = "host_invitation"

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(200))
    tags: Mapped[list[str]] = mapped_column(ARRAY(String(64)), default=list)
    # The projects (ids) the host will serve; None: every project.
    serves: Mapped[list[int] | None] = mapped_column(ARRAY(Integer))
    code_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_by_id: Mapped[int | None] = mapped_column(ForeignKey("user.id", ondelete="SET NULL"))
    created_at: Mapped[datetime]
    expires_at: Mapped[datetime]
    used_at: Mapped[datetime | None]
