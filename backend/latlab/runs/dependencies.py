from typing import Annotated

from fastapi import Depends, Request

from latlab.auth.dependencies import Reader
from latlab.core.db import DbSession
from latlab.core.errors import NotFound
from latlab.core.openapi import raises
from latlab.core.params import Id
from latlab.models import Run
from latlab.runs import service


@raises(NotFound)
def get_run(run_id: Id, principal: Reader, session: DbSession) -> Run:
    return service.get_run(session, run_id, principal.project_id)


async def get_raw_body(request: Request) -> bytes | bytearray:
    """The body as bytes: the result contract is parsed by pydantic straight from JSON. With
    a Content-Length (bounded by the body-size middleware) it is read into one buffer of that
    size rather than joined from chunks, so an 80 MB submission costs 80 MB, not twice."""
    declared = request.headers.get("content-length", "")
    if not declared.isdigit():
        return await request.body()
    buffer = bytearray(int(declared))
    filled = 0
    async for chunk in request.stream():
        buffer[filled:filled + len(chunk)] = chunk
        filled += len(chunk)
    del buffer[filled:]
    return buffer


RunFromPath = Annotated[Run, Depends(get_run)]
RawBody = Annotated[bytes | bytearray, Depends(get_raw_body)]
