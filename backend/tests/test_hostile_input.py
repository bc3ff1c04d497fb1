"""Hostile and broken harness output against the api as `make up` runs it (uvicorn, its own
process): each is refused with a 4xx naming where, nothing is stored, the api's process
lives on and a client submitting good output meanwhile gets 201 throughout. And the reader
processes that keep a parser's crash, memory and time out of the api (`core.isolation`)."""

import base64
import json
import math
import struct
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from sqlalchemy import func, select

from latlab.core import isolation
from latlab.models import Run, Scope
from tests.conftest import start_api
from tests.factories import Actors, result

ROOT = Path(__file__).resolve().parents[2]
GOLDEN = ROOT / "workers" / "tests" / "golden" / "adapters"
READER = [sys.executable, "-m", "latlab_contract.parsers.reader"]


@pytest.fixture(scope="module")
def api() -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """The api in a process of its own, its readers allowed 128 MiB each."""
    url, process = start_api(LATLAB_ADAPTER_MEMORY_MB="128")
    yield url, process
    process.terminate()
    process.wait(10)


def _jmh_sample(count: int) -> str:
    return json.dumps([{"benchmark": "org.example.B.x", "mode": "sample", "primaryMetric": {
        "scoreUnit": "ns/op", "rawDataHistogram": [[[[10.0, count], [20.0, 1]]]]}}])


_HLOG = (GOLDEN / "hlog" / "python-fast-1.hlog").read_text().splitlines()
_FIRST_INTERVAL = next(i for i, line in enumerate(_HLOG) if line[:1].isdigit())


def _hlog_with_a_lying_payload_length() -> str:
    """A real log whose first interval's histogram says its counts take more bytes than the
    payload holds."""
    lines, first = list(_HLOG), _FIRST_INTERVAL
    *fields, encoded = lines[first].split(",")
    raw = base64.b64decode(encoded)
    payload = bytearray(zlib.decompress(raw[8:]))
    struct.pack_into(">I", payload, 4, struct.unpack_from(">I", payload, 4)[0] + 64)
    packed = zlib.compress(bytes(payload))
    lines[first] = ",".join([*fields, base64.b64encode(
        raw[:4] + struct.pack(">I", len(packed)) + packed).decode()])
    return "\n".join(lines) + "\n"


def _wrk2(replace: tuple[str, str], *more: tuple[str, str]) -> str:
    text = (GOLDEN / "wrk2" / "latency.txt").read_text()
    for old, new in (replace, *more):
        assert old in text
        text = text.replace(old, new)
    return text


def _pytest_benchmark_with(stat: str, value: float) -> str:
    document = json.loads((GOLDEN / "pytest-benchmark" / "fast-1.json").read_text())
    document["benchmarks"][0]["stats"][stat] = value
    return json.dumps(document)  # writes NaN and Infinity, as Python's json does


HOSTILE = {
    # A count near 10^19 aborted the api (`free(): invalid pointer`) in HdrHistogram's encoder.
    "jmh-count-1e19": ("jmh", _jmh_sample(10**19),
                       "$[0].primaryMetric.rawDataHistogram[0]: the counts add up to more than"),
    "jmh-count-2to63": ("jmh", _jmh_sample(2**63 - 1),
                       "$[0].primaryMetric.rawDataHistogram[0]: the counts add up to more than"),
    "hlog-lying-length": ("hlog", _hlog_with_a_lying_payload_length(),
                          f"line {_FIRST_INTERVAL + 1}: hdr says its counts take"),
    "wrk2-negative-row": ("wrk2", _wrk2(("     4.053     0.100000", "    -4.053     0.100000")),
                          "line 22: not a spectrum row"),
    "wrk2-huge-count": ("wrk2", _wrk2(("39500          inf", f"{2**62}          inf"),
                                      ("Total count    =        39500",
                                       f"Total count    =        {2**62}")),
                        "line 101: a count of 4,611,686,018,427,387,904 values is outside"),
    "pytest-benchmark-nan": ("pytest-benchmark", _pytest_benchmark_with("stddev", math.nan),
                             "$.benchmarks[0].stats.stddev: not a finite number"),
    "pytest-benchmark-infinity": ("pytest-benchmark", _pytest_benchmark_with("max", math.inf),
                                  "$.benchmarks[0].stats.max: not a finite number"),
    "not-utf8": ("go-bench", "BenchmarkX-2  10  5 ns/op \xff", "the body is not UTF-8 text"),
}


def test_hostile_harness_output_is_refused_and_costs_nothing(api, committed_db) -> None:
    url, process = api
    token = Actors(committed_db).token(Scope.runs_write, Scope.read)
    committed_db.commit()
    good = (GOLDEN / "go-bench" / "fast.txt").read_text()
    statuses: list[int] = []
    stop = threading.Event()

    def keep_submitting() -> None:
        with httpx.Client(base_url=f"{url}/api/v1", headers=token, timeout=60) as client:
            while not stop.is_set():
                statuses.append(client.post("/runs", content=good, params={
                    "adapter": "go-bench", "suite": "steady", "scenario": "ci"}).status_code)

    neighbour = threading.Thread(target=keep_submitting)
    neighbour.start()
    try:
        with httpx.Client(base_url=f"{url}/api/v1", headers=token, timeout=60) as client:
            for name, (adapter, body, message) in HOSTILE.items():
                content = body.encode("latin-1" if name == "not-utf8" else "utf-8")
                answer = client.post("/runs", content=content, params={
                    "adapter": adapter, "suite": "hostile", "scenario": name})
                assert answer.status_code == 422, (name, answer.text)
                assert message in answer.json()["detail"][0]["message"], (name, answer.text)
            # Counts adding up past int64 in a submitted histogram used to read as "no values".
            histogram = base64.b64decode(_hdr_of(2 * 2**62))
            answer = client.post("/runs", json=_document_with(base64.b64encode(histogram)))
            assert answer.status_code == 422, answer.text
            assert "counts more than 281,474,976,710,656 values" in answer.text
            # Output that needs more memory than a reader may use: 413, the api unharmed.
            rounds = ",".join(["1.2345678901234e-06"] * 3_000_000)  # 60 MB of 64 allowed
            heavy = _pytest_benchmark_with("data", 0.0).replace('"data": 0.0',
                                                                 f'"data": [{rounds}]')
            answer = client.post("/runs", content=heavy, params={
                "adapter": "pytest-benchmark", "suite": "hostile", "scenario": "memory"})
            assert answer.status_code == 413, answer.text[:300]
            assert "more memory than a reader may use" in answer.text
    finally:
        stop.set()
        neighbour.join(120)
    assert process.poll() is None  # the same api process, alive
    assert statuses and set(statuses) == {201}, statuses
    stored = committed_db.scalars(select(Run.suite)).all()
    assert set(stored) == {"steady"} and len(stored) == len(statuses)
    assert committed_db.scalar(select(func.count()).select_from(Run)) == len(statuses)


def _hdr_of(count: int) -> str:
    """A V2 histogram (latlab's layout) holding `count` values of 1 ns in four counts, as a
    crafted submission would write it."""
    zigzag = (count // 4) << 1
    word = bytearray()
    while True:
        byte, zigzag = zigzag & 0x7F, zigzag >> 7
        word.append(byte | (0x80 if zigzag else 0))
        if not zigzag:
            break
    counts = b"\x01" + bytes(word) * 4  # a zero count at 0 ns, then four huge ones
    header = struct.pack(">IIIIQQd", 0x1C849303 | 0x10, len(counts), 0, 3, 1,
                         3_600_000_000_000, 1.0)
    packed = zlib.compress(header + counts)
    return base64.b64encode(struct.pack(">II", 0x1C849304 | 0x10, len(packed)) + packed
                            ).decode()


def _document_with(encoded: bytes) -> dict[str, object]:
    document = result()
    document["series"][0]["trials"] = [{"latency": {"hdr": encoded.decode()}}]
    return document


def test_a_reader_that_dies_costs_its_request_only() -> None:
    readers = isolation.Readers([sys.executable, "-c", "import os; os.abort()"], 30)
    with pytest.raises(isolation.Crashed, match="killed by SIGABRT"):
        readers.run({}, b"anything")
    readers.close()


def test_a_reader_past_its_deadline_is_killed() -> None:
    readers = isolation.Readers([sys.executable, "-c", "import time; time.sleep(60)"], 1.0)
    started = time.monotonic()
    with pytest.raises(isolation.TooSlow, match="more than 1 s"):
        readers.run({}, b"")
    assert time.monotonic() - started < 30
    readers.close()


def test_the_reader_stops_at_its_memory_limit() -> None:
    readers = isolation.Readers([*READER, "--memory-mb", "32"], 60)
    text = (GOLDEN / "pytest-benchmark" / "fast-1.json").read_text()
    request = {"adapter": "pytest-benchmark", "suite": "s", "scenario": "c",
               "started_at": "2026-11-24T00:00:00+00:00", "source": {}, "unit": "ns"}
    assert "document" in readers.run(request, text.encode())
    heavy = text.replace('"data": [', '"data": [' + "1e-06," * 4_000_000)
    with pytest.raises(isolation.OutOfMemory):
        readers.run(request, heavy.encode())
    readers.close()
