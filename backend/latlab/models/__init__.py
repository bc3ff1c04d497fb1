"""All ORM models, in one place: they reference each other and Alembic needs them all."""

from latlab.models.alert import (
    Alert,
    AlertState,
    Baseline,
    Channel,
    DeliveryAttempt,
    Notification,
    Severity,
    SlaRule,
)
from latlab.models.annotation import Annotation
from latlab.models.audit import AuditEvent
from latlab.models.base import Base
from latlab.models.bisection import Bisection
from latlab.models.experiment import Experiment, ExperimentRun
from latlab.models.host import Host, HostInvitation
from latlab.models.job import Job, JobStatus, Schedule
from latlab.models.outbox import OutboxMessage
from latlab.models.project import Project, ProjectMember
from latlab.models.repository import Repository
from latlab.models.rollup import Rollup
from latlab.models.run import Profile, Run, Series, Trial
from latlab.models.share import ShareLink
from latlab.models.suite import Suite
from latlab.models.user import ApiToken, LoginSession, Role, Scope, User

__all__ = [
    "Alert",
    "AlertState",
    "Annotation",
    "ApiToken",
    "AuditEvent",
    "Base",
    "Baseline",
    "Bisection",
    "Channel",
    "DeliveryAttempt",
    "Experiment",
    "ExperimentRun",
    "Host",
    "HostInvitation",
    "Job",
    "JobStatus",
    "LoginSession",
    "Notification",
    "OutboxMessage",
    "Profile",
    "Project",
    "ProjectMember",
    "Repository",
    "Role",
    "Rollup",
    "Run",
    "Schedule",
    "Scope",
    "Series",
    "Severity",
    "ShareLink",
    "SlaRule",
    "Suite",
    "Trial",
    "User",
]
