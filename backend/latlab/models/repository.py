from datetime import datetime

from sqlalchemy import ForeignKey, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from latlab.models.base import Base


class Repository(Base):
    """A git repository of a project whose code the lab's hosts build and measure at a commit
    (`repos`): where it is fetched from, with which credentials (`secret`, write-only in the
    API), whether its build may use the network, and where a person reads one of its commits
    (`commit_url`, a URL template with `{sha}` in it)."""

    __tablename__ = "repository"
    __table_args__ = (UniqueConstraint("project_id", "name"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("project.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(64))
    url: Mapped[str] = mapped_column(String(2000))
    default_branch: Mapped[str] = mapped_column(String(200))
    secret: Mapped[str | None] = mapped_column(Text)
    build_network: Mapped[bool] = mapped_column(default=False)
    commit_url: Mapped[str | None] = mapped_column(String(1000))
    created_at: Mapped[datetime]
