"""Path and query parameters shared by the routers, bounded so that no value reaches the
database that it cannot hold."""

from typing import Annotated

from fastapi import Path, Query, Request
from pydantic import Field

from latlab.core.errors import Unprocessable
from latlab_contract.fields import INT64_MAX

Id = Annotated[int, Path(ge=1, le=INT64_MAX)]
IdQuery = Annotated[int, Query(ge=1, le=INT64_MAX)]
# An id among several in one query parameter (`?series_id=1&series_id=2`).
IdItem = Annotated[int, Field(ge=1, le=INT64_MAX)]
Limit = Annotated[int, Query(ge=1, le=500, description="Items per page")]
Offset = Annotated[int, Query(ge=0, le=1_000_000_000, description="Items to skip")]


def plain_query(request: Request) -> None:
    """No query parameter may hold a NUL character (Postgres stores none)."""
    for name, value in request.query_params.multi_items():
        if "\x00" in name or "\x00" in value:
            raise Unprocessable("NUL characters are not allowed", f"query.{name}")
