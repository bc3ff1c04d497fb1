from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, String, text
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import Mapped, mapped_column

from latlab.models.base import Base


class Project(Base):
    """A tenant: its runs, jobs, alerts, rules, channels, baselines, schedules and tokens are
    seen by its members only (admins see every project)."""

    __tablename__ = "project"

    id: Mapped[int] = mapped_column(primary_key=True)
    slug: Mapped[str] = mapped_column(String(64), unique=True)
    name: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime]
    # Confirm a suspected regression of any lab job before alerting (scheduled jobs always do).
    confirm_regressions: Mapped[bool] = mapped_column(default=False)
    # A confirmed regression of a repository's series between two commits: "automatic" starts
    # its bisection, "ask" says how to start one, "off" neither.
    bisect_regressions: Mapped[str] = mapped_column(String(16), default="off",
                                                    server_default="off")
    # Channels may reach loopback, private and link-local addresses (an admin's choice).
    allow_private_webhooks: Mapped[bool] = mapped_column(default=False)
    # An archived project keeps its data for reading and takes nothing new.
    archived_at: Mapped[datetime | None]
    # Retention: days a trial keeps its intervals and its histogram (None: forever). Run and
    # trial summaries and the daily rollups are kept forever.
    intervals_retention_days: Mapped[int | None]
    histograms_retention_days: Mapped[int | None]
    # The CI gate's thresholds: {"default": {...}, "suites": {"suite[/scenario]": {...}}}
    # (`analysis.thresholds`); empty: the lab's defaults.
    gate_settings: Mapped[dict[str, Any]] = mapped_column(JSONB, default=dict)
    # Origins whose pages may frame the project's shared links (CSP frame-ancestors).
    embed_origins: Mapped[list[str]] = mapped_column(JSONB, default=list,
                                                     server_default=text("'[]'::jsonb"))


class ProjectMember(Base):
    __tablename__ = "project_member"

    project_id: Mapped[int] = mapped_column(
        ForeignKey("project.id", ondelete="CASCADE"), primary_key=True)
    user_id: Mapped[int] = mapped_column(
        ForeignKey("user.id", ondelete="CASCADE"), primary_key=True, index=True)
    created_at: Mapped[datetime]
