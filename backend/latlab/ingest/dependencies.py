"""What `POST /runs` reads from a request: its body as bytes, and with `?adapter=` the
harness's name and the run's identity from the query."""

import zlib
from typing import Annotated

from fastapi import Depends, Query, Request

from latlab.core.errors import PayloadTooLarge, Unprocessable
from latlab.core.schemas import Moment
from latlab.core.settings import get_settings
from latlab.runs import submission
from latlab_contract.fields import SLUG
from latlab_contract.parsers.registry import GZIP_MAGIC
from latlab_contract.result import SourceIn, StartPoint

KEY = r"^[A-Za-z_][A-Za-z0-9_.-]{0,63}$"


async def get_raw_body(request: Request) -> bytes | bytearray:
    """The body as bytes: the result contract is parsed by pydantic straight from JSON. With
    a Content-Length (bounded by the body-size middleware) it is read into one buffer of that
    size rather than joined from chunks, so an 80 MB submission costs 80 MB, not twice.
    A gzipped body (`Content-Encoding: gzip`, or gzip's magic bytes) stays as it came: a
    harness's output is unzipped by its reader process, a result document by `unzipped`."""
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


def unzipped(raw: bytes | bytearray) -> bytes | bytearray:
    """A result document gzipped (gzip's magic bytes) unzipped, up to the size a submission
    may have (413 past it); any other body as it is."""
    if raw[:2] != GZIP_MAGIC:
        return raw
    limit = get_settings().max_body_bytes
    unzipper = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        document = unzipper.decompress(raw, limit + 1)
    except zlib.error as error:
        raise Unprocessable(f"the body is gzipped but cannot be unzipped: {error}") from None
    if len(document) > limit or unzipper.unconsumed_tail:
        raise PayloadTooLarge(f"the gzipped body unzips to more than {limit:,} bytes")
    if not unzipper.eof:
        raise Unprocessable("the gzipped body is cut short")
    return document


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
    gate: Annotated[list[Annotated[str, Query(pattern=KEY)]] | None, Query(
        max_length=20, description="With adapter: the metrics the gate judges in place of "
        "the harness's headline (repeat it: gate=p99&gate=throughput); a statistic the "
        "harness did not print is judged only when named here")] = None,
    errors_expected: Annotated[bool, Query(
        description="With adapter: the run is meant to fail some operations; its failures "
        "are shown but never fail the gate")] = False,
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
        started_at=started_at, latency_unit=unit, gate=tuple(gate or ()),
        errors_expected=errors_expected)


Adapted = Annotated[submission.AdapterQuery | None, Depends(get_adapter_query)]
