"""The harness adapters through the REST route (`POST /runs?adapter=`: the same adapters as the
CLI's, bad output refused naming where with nothing stored, idempotency over the query) and the
exports a harness's run answers: a trial as an HdrHistogram log that hdrh reads back (with its
intervals), the run's summary as CSV, a comparison as Markdown and CSV, k6's documented
summary with what was interpolated marked."""

import csv
import io
import json
import math
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hdrh.histogram import HdrHistogram
from hdrh.log import HistogramLogReader
from sqlalchemy import func, select, update

from latlab.models import Run, Scope, Trial
from tests.adapters_support import (
    GOLDEN,
    markdown_rows,
)
from tests.factories import result, samples


def _post(client, headers, body: bytes | str, **params: Any):
    return client.post("/api/v1/runs", content=body, params=params,
                       headers={**headers, "Content-Type": "text/plain"})


def test_rest_route_reads_harness_output_with_the_same_adapters(client, actors) -> None:
    headers = actors.token(Scope.runs_write, Scope.read)
    text = (GOLDEN / "jmh" / "fast.json").read_text()
    response = _post(client, headers, text, adapter="jmh", suite="jmh-demo", scenario="ci",
                     branch="main", commit="abcd1234")
    assert response.status_code == 201, response.text
    run = client.get(f"/api/v1/runs/{response.json()['id']}", headers=headers).json()
    assert run["source"]["branch"] == "main" and run["source"]["commit"] == "abcd1234"
    assert run["series_count"] == 8 and run["trial_count"] == 24
    assert run["started_at"] == "2026-11-22T12:00:00Z"  # the api's clock: "now"
    # The adapter names JMH's headlines for a suite the lab does not know.
    assert response.json()["gated_metrics"] == ["ops_per_s", "ns_per_op"]


def test_rest_route_refuses_bad_output_naming_where_and_stores_nothing(client, actors,
                                                                       db) -> None:
    headers = actors.token(Scope.runs_write)
    bad = _post(client, headers, "PASS\n", adapter="go-bench", suite="go", scenario="ci")
    assert bad.status_code == 422
    assert bad.json()["detail"][0]["message"].startswith("line 1: no benchmark results")
    unknown = _post(client, headers, "x", adapter="nope", suite="go", scenario="ci")
    assert unknown.status_code == 422 and unknown.json()["detail"][0]["path"] == "query.adapter"
    missing = _post(client, headers, "x", adapter="go-bench", scenario="ci")
    assert missing.status_code == 422 and missing.json()["detail"][0]["path"] == "query.suite"
    slug = _post(client, headers, "x", adapter="go-bench", suite="Not A Slug", scenario="ci")
    assert slug.status_code == 422 and slug.json()["detail"][0]["path"] == "query.suite"
    binary = _post(client, headers, b"\xff\xfe", adapter="go-bench", suite="go", scenario="ci")
    assert binary.status_code == 422 and "not UTF-8" in binary.json()["detail"][0]["message"]
    assert db.scalar(select(func.count()).select_from(Run)) == 0


def test_rest_route_idempotency_covers_the_query(client, actors, db) -> None:
    headers = {**actors.token(Scope.runs_write), "Idempotency-Key": "ci-7"}
    text = (GOLDEN / "go-bench" / "fast.txt").read_text()
    first = _post(client, headers, text, adapter="go-bench", suite="go", scenario="ci")
    again = _post(client, headers, text, adapter="go-bench", suite="go", scenario="ci")
    assert first.status_code == 201 and again.status_code == 200
    assert again.json()["replayed"] and again.json()["id"] == first.json()["id"]
    other = _post(client, headers, text, adapter="go-bench", suite="go", scenario="nightly")
    assert other.status_code == 409
    assert db.scalar(select(func.count()).select_from(Run)) == 1


def test_trial_exports_as_an_hlog_that_hdrh_reads_back(client, actors, tmp_path) -> None:
    headers = actors.token(Scope.runs_write, Scope.read)
    values = samples(20_000, seed=3)
    run_id = client.post("/api/v1/runs", json=result(series=[
        {"labels": {"client": "rust"}, "trials": [{"latency": {"samples_ns": values}}]}]),
        headers=headers).json()["id"]
    series_id = client.get(f"/api/v1/runs/{run_id}", headers=headers).json()["series"][0]["id"]
    response = client.get(f"/api/v1/runs/{run_id}/series/{series_id}/trials/0/hlog",
                          headers=headers)
    assert response.status_code == 200
    assert "attachment" in response.headers["content-disposition"]
    path = tmp_path / "trial.hlog"
    path.write_text(response.text)
    reader = HistogramLogReader(str(path), HdrHistogram(1, 3_600_000_000_000, 3))
    read = reader.get_next_interval_histogram()
    assert read is not None and reader.get_next_interval_histogram() is None
    assert reader.get_start_time_sec() == datetime(2026, 11, 22, 10, tzinfo=UTC).timestamp()
    original = HdrHistogram(1, 3_600_000_000_000, 3)
    for value in values:
        original.record_value(value)
    assert read.get_total_count() == original.get_total_count() == 20_000
    for q in (0, 50, 90, 99, 99.9, 99.99, 100):
        assert read.get_value_at_percentile(q) == original.get_value_at_percentile(q)
    assert client.get(f"/api/v1/runs/{run_id}/series/{series_id}/trials/1/hlog",
                      headers=headers).status_code == 404


def test_a_retired_histogram_is_gone(client, actors, db) -> None:
    headers = actors.token(Scope.runs_write, Scope.read)
    run_id = client.post("/api/v1/runs", json=result(), headers=headers).json()["id"]
    series_id = client.get(f"/api/v1/runs/{run_id}", headers=headers).json()["series"][0]["id"]
    db.execute(update(Trial).values(histogram=None))  # what the project's retention does
    answer = client.get(f"/api/v1/runs/{run_id}/series/{series_id}/trials/0/hlog",
                        headers=headers)
    assert answer.status_code == 410 and "retired" in answer.json()["detail"]
    assert client.get(f"/api/v1/runs/{run_id}/summary.csv", headers=headers).status_code == 200


def test_hlog_round_trips_with_its_intervals(client, actors, tmp_path) -> None:
    headers = actors.token(Scope.runs_write, Scope.read)
    source = GOLDEN / "hlog" / "python-fast-1.hlog"
    run_id = _post(client, headers, source.read_text(), adapter="hlog", suite="hlog-demo",
                   scenario="ci").json()["id"]
    (series,) = client.get(f"/api/v1/runs/{run_id}", headers=headers).json()["series"]
    exported = tmp_path / "export.hlog"
    exported.write_text(client.get(
        f"/api/v1/runs/{run_id}/series/{series['id']}/trials/0/hlog", headers=headers).text)

    def intervals(path: Path) -> list[tuple[float, HdrHistogram]]:
        reader = HistogramLogReader(str(path), HdrHistogram(1, 3_600_000_000_000, 3))
        found = []
        while (interval := reader.get_next_interval_histogram()) is not None:
            found.append((interval.get_start_time_stamp() / 1000, interval))
        return [(start - found[0][0], interval) for start, interval in found]

    before, after = intervals(source), intervals(exported)
    assert len(after) == len(before) == 5
    for (start_before, old), (start_after, new) in zip(before, after, strict=True):
        assert start_after == pytest.approx(start_before, abs=1e-3)
        assert new.get_total_count() == old.get_total_count()
        for q in (50, 99, 100):
            assert new.get_value_at_percentile(q) == old.get_value_at_percentile(q)


def test_run_summary_downloads_as_csv(client, actors) -> None:
    headers = actors.token(Scope.runs_write, Scope.read)
    document = result(series=[
        {"labels": {"client": "rust"},
         "trials": [{"latency": {"samples_ns": samples(seed=s)}, "metrics": {"throughput": t}}
                    for s, t in ((1, 100.0), (2, 300.0))]},
        {"labels": {"client": "go"}, "trials": [{"latency": {"samples_ns": samples(seed=9)}}]},
    ])
    run_id = client.post("/api/v1/runs", json=document, headers=headers).json()["id"]
    response = client.get(f"/api/v1/runs/{run_id}/summary.csv", headers=headers)
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert [(r["client"], r["trial"]) for r in rows] == [
        ("rust", "all"), ("rust", "0"), ("rust", "1"), ("go", "all"), ("go", "0")]
    assert rows[0]["throughput"] == "200.0" and rows[1]["throughput"] == "100.0"
    rust_trial = sorted(samples(seed=1))
    assert float(rows[1]["p99_ns"]) == rust_trial[989]  # nearest rank: the 990th of 1,000
    assert int(rows[0]["count"]) == 2000 and rows[4]["throughput"] == ""


def test_compare_answers_markdown_and_csv(client, actors) -> None:
    headers = actors.token(Scope.runs_write, Scope.read)

    def submit(scale: float) -> int:
        return client.post("/api/v1/runs", headers=headers, json=result(series=[
            {"labels": {"client": "c|ient"}, "trials": [
                {"latency": {"samples_ns": samples(seed=s, scale_ns=scale)},
                 "metrics": {"throughput": 1e9 / scale}} for s in range(5)]}])).json()["id"]

    baseline, candidate = submit(350_000), submit(700_000)
    params = {"baseline": baseline, "candidate": candidate}
    as_json = client.get("/api/v1/compare", params=params, headers=headers).json()
    metrics = as_json["series"][0]["metrics"]
    text = client.get("/api/v1/compare", params={**params, "format": "markdown"},
                      headers=headers)
    assert text.headers["content-type"].startswith("text/markdown")
    rows = markdown_rows(text.text)
    assert len(rows) - 1 == len(metrics)
    p99 = next(row for row in rows if row[1] == "p99")
    assert p99[0] == "client=c|ient"  # escaped, and read back as written
    assert p99[5].endswith("regressed")
    table = list(csv.DictReader(io.StringIO(client.get(
        "/api/v1/compare", params={**params, "format": "csv"}, headers=headers).text)))
    assert [r["metric"] for r in table] == [m["metric"] for m in metrics]
    for row, metric in zip(table, metrics, strict=True):
        assert row["client"] == "c|ient" and row["verdict"] == metric["verdict"]
        assert math.isclose(float(row["candidate"]), metric["candidate"])


def test_k6_documented_summary_keeps_k6s_p95_and_marks_what_was_interpolated(
        client, actors) -> None:
    """k6's documented `--summary-export` example (p(95) 205.28 ms, max 663.81 ms, 434
    requests): the stored p95 is k6's, not the max, and says so; the p99 k6 did not print is
    interpolated between its p(95) and max, and marked."""
    headers = actors.token(Scope.runs_write, Scope.read)
    path = GOLDEN / "k6" / "upstream" / "docs-summary-export-example.json"
    printed = json.loads(path.read_text())["metrics"]["http_req_duration"]
    response = _post(client, headers, path.read_text(), adapter="k6", suite="k6-docs",
                     scenario="ci")
    assert response.status_code == 201, response.text
    run = client.get(f"/api/v1/runs/{response.json()['id']}", headers=headers).json()
    (series,) = run["series"]
    (trial,) = series["trials"]
    for summary in (trial["summary"], series["summary"]):
        assert summary["count"] == 434
        for ours, theirs in (("p95", "p(95)"), ("p90", "p(90)"), ("p50", "med"),
                             ("min", "min"), ("max", "max"), ("mean", "avg")):
            assert summary[ours] == pytest.approx(printed[theirs] * 1e6, rel=1e-12), ours
        assert printed["p(95)"] * 1e6 < summary["p99"] < printed["max"] * 1e6
    for described in (trial, series):
        assert sorted(described["reported"]) == ["max", "mean", "min", "p50", "p90", "p95"]
        assert {"p99", "p999", "p9999", "stddev"} <= set(described["interpolated"])
    assert "p99" in trial["unreliable"]  # 434 requests: 4 beyond the p99
