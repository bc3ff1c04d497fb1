from fastapi import APIRouter, Depends
from fastapi.responses import Response
from prometheus_client import CONTENT_TYPE_PLAIN_0_0_4

from latlab.auth.dependencies import MetricsReader
from latlab.core.db import DbSession
from latlab.core.params import plain_query
from latlab.core.routing import ApiRoute
from latlab.monitoring import exposition

router = APIRouter(tags=["monitoring"], route_class=ApiRoute, dependencies=[Depends(plain_query)])


@router.get("/metrics", response_class=Response, responses={200: {
    "description": "Prometheus' text exposition format (version 0.0.4)",
    "content": {"text/plain": {"schema": {"type": "string"}}}}})
def prometheus_metrics(principal: MetricsReader, session: DbSession) -> Response:
    """The lab's health and the project's latest results for Prometheus (scope
    `metrics:read`)."""
    return Response(exposition.exposition(session, principal.project),
                    media_type=CONTENT_TYPE_PLAIN_0_0_4)
