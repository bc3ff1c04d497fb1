"""All ORM models, in one place: they reference each other and Alembic needs them all."""

from latlab.models.base import Base
from latlab.models.host import Host
from latlab.models.job import Job, JobStatus, Schedule
from latlab.models.project import Project
from latlab.models.run import Run, Series, Trial
from latlab.models.user import ApiToken, LoginSession, Role, Scope, User

__all__ = [
    "ApiToken",
    "Base",
    "Host",
    "Job",
    "JobStatus",
    "LoginSession",
    "Project",
    "Role",
    "Run",
    "Schedule",
    "Scope",
    "Series",
    "Trial",
    "User",
]
