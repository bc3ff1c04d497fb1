from datetime import datetime
from typing import Any, Literal

from latlab.core.schemas import ReadSchema

EntityType = Literal["user", "project", "project_member", "api_token", "sla_rule", "channel",
                     "baseline", "schedule", "repository", "annotation", "share_link", "host"]
Action = Literal["create", "update", "delete", "refused"]


class AuditEventRead(ReadSchema):
    id: int
    at: datetime
    actor: str
    actor_user_id: int | None
    actor_token_id: int | None
    entity_type: EntityType
    entity_id: int
    action: Action
    # Create: every column; delete: every column; update: the columns that changed.
    before: dict[str, Any] | None
    after: dict[str, Any] | None


class AuditPage(ReadSchema):
    items: list[AuditEventRead]
    total: int
    limit: int
    offset: int
