from datetime import datetime

from sqlalchemy import String
from sqlalchemy.orm import Mapped, mapped_column

from latlab.models.base import Base


class Project(Base):
    __tablename__ = "project"

    id: Mapped[int] = mapped_column(primary_key=True)
    slug: Mapped[str] = mapped_column(String(64), unique=True)
    name: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime]
    # Confirm a suspected regression of any lab job before alerting (scheduled jobs always do).
    confirm_regressions: Mapped[bool] = mapped_column(default=False)
    # Retention: days a trial keeps its intervals and its histogram (None: forever). Run and
    # trial summaries and the daily rollups are kept forever.
    intervals_retention_days: Mapped[int | None]
    histograms_retention_days: Mapped[int | None]
