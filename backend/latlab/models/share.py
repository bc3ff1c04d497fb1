from datetime import datetime
from typing import Any

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from latlab.models.base import Base


class ShareLink(Base):
    """A read-only link to one view of a project (`sharing`): a run, a comparison of two runs
    or a trend, opened without a login by whoever holds its token. Only the token's SHA-256
    is kept; a link is revoked, or expires, and then shows nothing."""

    __tablename__ = "share_link"

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("project.id", ondelete="CASCADE"),
                                            index=True)
    kind: Mapped[str] = mapped_column(String(16))  # run, compare, trend
    target: Mapped[dict[str, Any]]
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    prefix: Mapped[str] = mapped_column(String(16))
    created_by: Mapped[str] = mapped_column(String(200))
    created_at: Mapped[datetime]
    expires_at: Mapped[datetime | None]
    revoked_at: Mapped[datetime | None]
