from datetime import datetime
from typing import Any

from sqlalchemy import String
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
