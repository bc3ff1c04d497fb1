from datetime import date
from typing import Any

from sqlalchemy import Date, Double, ForeignKey, LargeBinary, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from latlab.models.base import Base


class Rollup(Base):
    """One day of a history and metric, kept forever: how many runs, the median and the
    p10/p90 of their values, and (latency) the day's trials merged into one histogram."""

    __tablename__ = "rollup"
    __table_args__ = (UniqueConstraint("history", "params_key", "metric", "day"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("project.id", ondelete="CASCADE"))
    history: Mapped[str] = mapped_column(String(32))
    params_key: Mapped[str] = mapped_column(String(32))
    suite: Mapped[str] = mapped_column(String(64))
    scenario: Mapped[str] = mapped_column(String(64))
    labels: Mapped[dict[str, Any]]
    params: Mapped[dict[str, Any]]
    metric: Mapped[str] = mapped_column(String(64))
    day: Mapped[date] = mapped_column(Date)
    runs: Mapped[int]
    median: Mapped[float] = mapped_column(Double)
    p10: Mapped[float] = mapped_column(Double)
    p90: Mapped[float] = mapped_column(Double)
    histogram: Mapped[bytes | None] = mapped_column(LargeBinary)
