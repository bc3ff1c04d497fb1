from typing import Annotated

from fastapi import Depends, Path, Request

from latlab.auth.dependencies import Reader
from latlab.core.db import DbSession
from latlab.models import Run
from latlab.runs import service


def get_run(
    run_id: Annotated[int, Path(ge=1)], principal: Reader, session: DbSession
) -> Run:
    return service.get_run(session, run_id, principal.token_project_id)


async def get_raw_body(request: Request) -> bytes:
    """The body as bytes: the result contract is parsed by pydantic straight from JSON."""
    return await request.body()


RunFromPath = Annotated[Run, Depends(get_run)]
RawBody = Annotated[bytes, Depends(get_raw_body)]
