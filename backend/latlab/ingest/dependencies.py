"""What `POST /runs` reads from a request: its body as bytes, and with `?adapter=` the
harness's name and the run's identity from the query."""

from typing import Annotated

from fastapi import Depends, Query, Request

from latlab.core.errors import Unprocessable
from latlab.core.schemas import Moment
from latlab.runs import submission
from latlab_contract.result import SourceIn, StartPoint

SLUG = r"^[a-z0-9][a-z0-9._-]{0,63}$"


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


RawBody = Annotated[bytes | bytearray, Depends(get_raw_body)]


def get_adapter_query(
    adapter: Annotated[str | None, Query(
        description="A harness adapter (go-bench, google-benchmark, criterion, jmh, "
        "pytest-benchmark, hyperfine, k6, wrk2, wrk, vegeta, oha, ghz, hlog, ...): the body is "
        "that tool's output, not a latlab.result/v1 document")] = None,
    suite: Annotated[str | None, Query(pattern=SLUG, description="With adapter: required")]
    = None,
    scenario: Annotated[str | None, Query(pattern=SLUG, description="With adapter: required")]
    = None,
    branch: Annotated[str | None, Query(min_length=1, max_length=200, pattern=r"^[^\x00]*$")]
    = None,
    commit: Annotated[str | None, Query(pattern=r"^[0-9a-fA-F]{4,64}$")] = None,
    build_url: Annotated[str | None, Query(pattern=r"^https?://", max_length=2000)] = None,
    pull_request: Annotated[int | None, Query(gt=0, le=2**31 - 1)] = None,
    start_point: Annotated[str | None, Query(
        pattern=r"^[^@\x00]{1,200}(@[0-9a-fA-F]{4,64})?$",
        description="Where this branch started, BRANCH[@COMMIT] (main@9f1c2e7): until it has "
        "history of its own, its runs are judged against that branch's up to that commit")]
    = None,
    started_at: Annotated[Moment | None, Query(
        description="With adapter: when the benchmark ran (default: now)")] = None,
    unit: Annotated[str, Query(
        description="With adapter=hlog: the unit of the log's values (ns, us, ms, s)")] = "ns",
) -> submission.AdapterQuery | None:
    if adapter is None or adapter == "latlab":
        return None
    for name, value in (("suite", suite), ("scenario", scenario)):
        if value is None:
            raise Unprocessable(f"{name} is required with an adapter", f"query.{name}")
    assert suite is not None and scenario is not None
    return submission.AdapterQuery(
        adapter=adapter, suite=suite, scenario=scenario,
        source=SourceIn(kind="ci", commit=commit, branch=branch, build_url=build_url,
                        pull_request=pull_request,
                        start_point=None if start_point is None
                        else StartPoint.parse(start_point)),
        started_at=started_at, latency_unit=unit)


Adapted = Annotated[submission.AdapterQuery | None, Depends(get_adapter_query)]
