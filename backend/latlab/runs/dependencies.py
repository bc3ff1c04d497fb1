from typing import Annotated

from fastapi import Depends

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


RunFromPath = Annotated[Run, Depends(get_run)]
