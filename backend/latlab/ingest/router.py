"""The one way a run comes in over HTTP: `POST /runs`, a result document or a harness's own
output, stored and judged by `ingest.service`."""

import hashlib
from typing import Annotated

from fastapi import APIRouter, Header, Response, status

from latlab.auth.dependencies import RunWriter, rate_limited
from latlab.core.db import DbSession
from latlab.core.errors import Conflict
from latlab.core.openapi import documented
from latlab.core.rate_limits import Use
from latlab.core.routing import ApiRoute
from latlab.core.settings import get_settings
from latlab.ingest.dependencies import Adapted, RawBody, unzipped
from latlab.ingest.service import ingest
from latlab.projects import service as projects
from latlab.runs import submission
from latlab.runs.schemas import RunCreated
from latlab.suites import service as suite_service

router = APIRouter(tags=["runs"], route_class=ApiRoute)

_SUBMIT_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {"schema": {"$ref": "#/components/schemas/RunCreate"}},
            "text/plain": {"schema": {"type": "string", "description": "With ?adapter=: the "
                                      "harness's output (text or JSON)"}},
        },
    }
}


@router.post(
    "/runs",
    status_code=status.HTTP_201_CREATED,
    openapi_extra=_SUBMIT_BODY,
    responses={200: {"model": RunCreated, "description": "Replayed: the key's earlier run"},
               **documented(Conflict)},
    dependencies=rate_limited(Use.submissions),
)
def submit_run(
    # The caller is checked before the body is read (dependencies run in this order).
    principal: RunWriter,
    raw: RawBody,
    adapted: Adapted,
    session: DbSession,
    response: Response,
    idempotency_key: Annotated[str | None, Header(
        min_length=1, max_length=200, pattern=r"^[\x21-\x7e]+$",
        description="Printable ASCII; a retry with the same key and body answers the "
                    "first run")] = None,
) -> RunCreated:
    """Submit a `latlab.result/v1` result to the caller's project, or with `?adapter=` a
    benchmark harness's own output; answers 201 with the run id and the CI verdict (200 on a
    replay)."""
    target = projects.writable(principal.project)
    if adapted is None:
        body = submission.parse_result(unzipped(raw))
        request_hash = hashlib.sha256(raw).hexdigest()
    else:
        body = submission.adapt(raw, adapted)
        request_hash = hashlib.sha256(adapted.canonical().encode() + b"\0" + raw).hexdigest()
    stored = ingest(
        session, target, body, request_hash=request_hash, idempotency_key=idempotency_key,
    )
    run = stored.run
    if stored.replayed:
        response.status_code = status.HTTP_200_OK
    response.headers["Location"] = f"/api/v1/runs/{run.id}"
    base = get_settings().public_url.rstrip("/")
    return RunCreated(
        id=run.id, url=f"{base}/runs/{run.id}", replayed=stored.replayed, verdict=run.verdict,
        reasons=run.verdict_reasons, gated_metrics=list(suite_service.gate(session, run)),
        gate_evidence=run.gate_evidence,
        baseline_run_id=run.baseline_run_id,
        compare_url=None if run.baseline_run_id is None
        else f"{base}/compare?baseline={run.baseline_run_id}&candidate={run.id}",
        notes=(run.harness or {}).get("notes", []),
    )
