"""Bodies as CI sends them over REST: gzipped (as the CLI reads `.gz` files), a Criterion
`target/criterion` directory as a tar(.gz) archive, and the query's own gate metrics and
expected errors; what cannot be unzipped or unpacked safely is refused and stores nothing."""

import gzip
import io
import json
import tarfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from latlab.core.settings import get_settings
from latlab.models import Run, Scope
from latlab_contract.parsers import adapt, read_output
from latlab_contract.result import SourceIn
from tests.factories import result

GOLDEN = Path(__file__).resolve().parents[2] / "workers" / "tests" / "golden" / "adapters"
CRITERION = GOLDEN / "criterion" / "fast-1" / "criterion"


def _post(client, headers, body: bytes, **params: Any):
    return client.post("/api/v1/runs", content=body, params=params,
                       headers={**headers, "Content-Type": "application/octet-stream"})


def _tar(folder: Path, *, gzipped: bool) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz" if gzipped else "w") as archive:
        archive.add(folder, arcname="criterion")
    return buffer.getvalue()


def test_a_gzipped_body_reads_as_the_plain_one(client, actors) -> None:
    headers = actors.token(Scope.runs_write, Scope.read)
    text = (GOLDEN / "go-bench" / "fast.txt").read_bytes()
    plain = _post(client, headers, text, adapter="go-bench", suite="go", scenario="plain")
    zipped = client.post("/api/v1/runs", content=gzip.compress(text), params={
        "adapter": "go-bench", "suite": "go", "scenario": "gz"},
        headers={**headers, "Content-Type": "text/plain", "Content-Encoding": "gzip"})
    assert plain.status_code == 201 and zipped.status_code == 201, zipped.text
    runs = [client.get(f"/api/v1/runs/{r.json()['id']}", headers=headers).json()
            for r in (plain, zipped)]
    assert [s["summary"] for s in runs[0]["series"]] == [s["summary"] for s in runs[1]["series"]]
    document = gzip.compress(json.dumps(result(suite="gz-doc")).encode())
    stored = client.post("/api/v1/runs", content=document,
                         headers={**headers, "Content-Type": "application/json",
                                  "Content-Encoding": "gzip"})
    assert stored.status_code == 201, stored.text


def test_a_criterion_directory_comes_as_a_tar_archive(client, actors) -> None:
    """The same `target/criterion` as `latlab submit --adapter criterion DIR` reads it."""
    headers = actors.token(Scope.runs_write, Scope.read)
    local = adapt("criterion", [("dir", read_output("criterion", CRITERION))], suite="c",
                  scenario="local", started_at=datetime.now(UTC), source=SourceIn())
    for gzipped in (False, True):
        response = _post(client, headers, _tar(CRITERION, gzipped=gzipped), adapter="criterion",
                         suite="criterion-demo", scenario=f"tar-{str(gzipped).lower()}")
        assert response.status_code == 201, response.text
        run = client.get(f"/api/v1/runs/{response.json()['id']}", headers=headers).json()
        assert sorted(json.dumps(s["labels"], sort_keys=True) for s in run["series"]) == sorted(
            json.dumps(s.labels, sort_keys=True) for s in local.series)
        assert run["series_count"] == len(local.series) >= 1


def test_archives_and_zips_that_cannot_be_read_safely_store_nothing(client, actors,
                                                                    db) -> None:
    headers = actors.token(Scope.runs_write)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        link = tarfile.TarInfo("criterion/escape")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        archive.addfile(link)
        outside = tarfile.TarInfo("../outside.json")
        outside.size = 2
        archive.addfile(outside, io.BytesIO(b"{}"))
    linked = _post(client, headers, buffer.getvalue(), adapter="criterion", suite="c",
                   scenario="bad")
    assert linked.status_code == 422
    assert "is not a file or folder" in linked.json()["detail"][0]["message"]
    cut = _post(client, headers, gzip.compress(b"BenchmarkX-2 10 5 ns/op\n")[:-12],
                adapter="go-bench", suite="go", scenario="cut")
    assert cut.status_code == 422 and "gzipped" in cut.json()["detail"][0]["message"]
    bomb = gzip.compress(b" " * (get_settings().max_body_bytes + 1))
    too_big = client.post("/api/v1/runs", content=bomb,
                          headers={**headers, "Content-Type": "application/json"})
    assert too_big.status_code == 413, too_big.text
    assert db.scalar(select(func.count()).select_from(Run)) == 0


def test_the_query_names_the_gate_and_expected_errors(client, actors) -> None:
    headers = actors.token(Scope.runs_write, Scope.read)
    text = (GOLDEN / "go-bench" / "fast.txt").read_bytes()
    response = client.post("/api/v1/runs", content=text, headers={
        **headers, "Content-Type": "text/plain"}, params=[
        ("adapter", "go-bench"), ("suite", "go"), ("scenario", "asked"), ("gate", "p50"),
        ("gate", "B_per_op"), ("errors_expected", "true")])
    assert response.status_code == 201, response.text
    assert response.json()["gated_metrics"] == ["p50", "B_per_op"]
    run = client.get(f"/api/v1/runs/{response.json()['id']}", headers=headers).json()
    assert run["errors_expected"] is True
    bad = client.post("/api/v1/runs", content=text, headers={
        **headers, "Content-Type": "text/plain"}, params=[
        ("adapter", "go-bench"), ("suite", "go"), ("scenario", "asked"), ("gate", "p 99")])
    assert bad.status_code == 422 and bad.json()["detail"][0]["path"].startswith("query.gate")
