from datetime import datetime
from typing import Any

from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from latlab.models.base import Base


class Suite(Base):
    """What the lab knows of a suite: its latest definition as a runner advertised it
    (metrics, gate metrics, SLA templates, params), kept when its hosts go offline."""

    __tablename__ = "suite"

    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    version: Mapped[str] = mapped_column(String(64))
    definition: Mapped[dict[str, Any]]
    advertised_at: Mapped[datetime]
