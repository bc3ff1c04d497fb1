from typing import Annotated

from fastapi import APIRouter, Query

from latlab.audit import service
from latlab.audit.schemas import Action, AuditEventRead, AuditPage, EntityType
from latlab.auth.dependencies import Admin
from latlab.core.db import DbSession
from latlab.core.params import IdQuery, Limit, Offset
from latlab.core.routing import ApiRoute
from latlab.core.schemas import Moment

router = APIRouter(tags=["audit"], route_class=ApiRoute)


@router.get("/audit")
def list_audit_events(
    admin: Admin, session: DbSession,
    entity_type: EntityType | None = None, entity_id: IdQuery | None = None,
    action: Action | None = None,
    actor_user_id: IdQuery | None = None,
    since: Annotated[Moment | None, Query(description="ISO 8601, inclusive")] = None,
    until: Annotated[Moment | None, Query(description="ISO 8601, exclusive")] = None,
    limit: Limit = 50, offset: Offset = 0,
) -> AuditPage:
    """Who changed what and when (admins): the current project's users, tokens, rules,
    channels, baselines, schedules and settings, and the lab's users; newest first."""
    events, total = service.list_events(session, service.AuditFilters(
        project_id=admin.project_id, entity_type=entity_type, entity_id=entity_id,
        action=action, actor_user_id=actor_user_id, since=since, until=until), limit, offset)
    return AuditPage(items=[AuditEventRead.model_validate(e) for e in events], total=total,
                     limit=limit, offset=offset)
