"""Submitting and reading runs through the REST API."""

import threading

import httpx
import numpy as np
import pytest
from sqlalchemy import func, select

from latlab.models import Run, Scope, Series, Trial
from latlab.runs.histogram import Histogram
from tests.factories import result, samples


def test_submission_stores_summaries_not_sample_rows(client, actors, db) -> None:
    values = samples(5000)
    document = result(series=[{"labels": {"client": "rust"},
                               "trials": [{"latency": {"samples_ns": values},
                                           "metrics": {"throughput": 115554.0}}]}])
    response = client.post("/api/v1/runs", json=document, headers=actors.token(Scope.runs_write))
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["url"] == f"http://lab.test/runs/{body['id']}"
    assert db.scalar(select(func.count()).select_from(Trial)) == 1
    trial = db.scalar(select(Trial))
    assert trial.count == 5000 and trial.exact
    assert trial.p99 == np.percentile(values, 99, method="inverted_cdf")  # 4950: a rank
    assert Histogram.from_blob(trial.histogram).count == 5000


def test_run_detail_has_series_trials_host_and_source(client, actors) -> None:
    document = result(series=[
        {"labels": {"client": "rust"},
         "trials": [{"latency": {"samples_ns": samples(seed=s)}, "metrics": {"throughput": t}}
                    for s, t in ((1, 100.0), (2, 300.0), (3, 200.0))]},
        {"labels": {"client": "go"},
         "trials": [{"latency": {"hdr": Histogram.from_samples(np.array(samples(seed=9)))
                                 .to_hdr()}}]},
    ])
    headers = actors.token(Scope.runs_write, Scope.read)
    run_id = client.post("/api/v1/runs", json=document, headers=headers).json()["id"]
    run = client.get(f"/api/v1/runs/{run_id}", headers=headers).json()
    assert run["suite"] == "http-order" and run["scenario"] == "medium"
    assert run["host_name"] == "lab-07" and run["host_fingerprint"]["governor"] == "performance"
    assert run["source"] == {"kind": "ci", "repo": None, "commit": "9f1c2e7", "branch": "main",
                             "build_url": "https://ci.example/builds/1", "pull_request": 42,
                             "start_point": None}
    assert run["series_count"] == 2 and run["trial_count"] == 4
    rust, go = run["series"]
    assert rust["labels"] == {"client": "rust"} and len(rust["trials"]) == 3
    assert set(rust["trials"][0]["summary"]) == {
        "p50", "p90", "p95", "p99", "p999", "p9999", "min", "max", "mean", "stddev", "count"}
    assert rust["metrics"] == {"throughput": 200.0}  # median of the trials
    assert rust["summary"]["count"] == 3000
    assert go["trials"][0]["exact"] is False
    assert run["metric_info"]["p99"] == {"name": "p99", "label": "P99", "unit": "ns",
                                         "direction": "lower"}
    assert run["metric_info"]["throughput"]["direction"] == "higher"


def test_spectrum_points_come_from_the_histogram(client, actors) -> None:
    headers = actors.token(Scope.runs_write, Scope.read)
    run_id = client.post("/api/v1/runs", json=result(), headers=headers).json()["id"]
    series_id = client.get(f"/api/v1/runs/{run_id}", headers=headers).json()["series"][0]["id"]
    spectrum = client.get(f"/api/v1/runs/{run_id}/series/{series_id}/spectrum",
                          headers=headers).json()
    assert spectrum["unit"] == "ns" and spectrum["uncorrected"] is None
    values = [p["value"] for p in spectrum["corrected"]]
    assert values == sorted(values)
    assert max(samples()) <= values[-1] <= max(samples()) * 1.001
    assert client.get(f"/api/v1/runs/{run_id}/series/999999/spectrum",
                      headers=headers).status_code == 404


def test_spectra_of_several_series_in_one_request(client, actors) -> None:
    """A big run's chart asks its series' spectra in one request, in the order it wants, at
    most 40 at a time; a series of another run is not found."""
    headers = actors.token(Scope.runs_write, Scope.read)
    document = result(series=[{"labels": {"client": name}, "trials": [
        {"latency": {"samples_ns": samples(500, seed=seed, scale_ns=scale)}}]}
        for name, seed, scale in (("a", 1, 100_000), ("b", 2, 400_000))])
    run_id = client.post("/api/v1/runs", json=document, headers=headers).json()["id"]
    other = client.post("/api/v1/runs", json=result(), headers=headers).json()["id"]
    a, b = (s["id"] for s in client.get(f"/api/v1/runs/{run_id}", headers=headers).json()["series"])
    answer = client.get(f"/api/v1/runs/{run_id}/spectra", params={"series_id": [b, a]},
                        headers=headers)
    assert answer.status_code == 200
    assert [s["series_id"] for s in answer.json()] == [b, a]
    for spectrum, seed, scale in zip(answer.json(), (2, 1), (400_000, 100_000), strict=True):
        top = max(samples(500, seed=seed, scale_ns=scale))
        assert top <= spectrum["corrected"][-1]["value"] <= top * 1.001
        single = client.get(f"/api/v1/runs/{run_id}/series/{spectrum['series_id']}/spectrum",
                            headers=headers).json()
        assert spectrum == single
    foreign = client.get(f"/api/v1/runs/{other}", headers=headers).json()["series"][0]["id"]
    missing = client.get(f"/api/v1/runs/{run_id}/spectra", params={"series_id": [a, foreign]},
                         headers=headers)
    assert missing.status_code == 404 and str(foreign) in missing.json()["detail"]
    for params in ({}, {"series_id": list(range(1, 42))}, {"series_id": [0]}):
        assert client.get(f"/api/v1/runs/{run_id}/spectra", params=params,
                          headers=headers).status_code == 422


def test_open_loop_runs_keep_both_views(client, actors) -> None:
    corrected = samples(2000, seed=1, scale_ns=900_000)
    uncorrected = samples(2000, seed=1, scale_ns=300_000)
    document = result(series=[{"labels": {"client": "c"}, "trials": [{
        "latency": {"samples_ns": corrected}, "latency_uncorrected": {"samples_ns": uncorrected},
        "intervals": [{"t_s": 0, "count": 1000, "p50": 340000, "p99": 500000, "max": 750000}]}]}])
    headers = actors.token(Scope.runs_write, Scope.read)
    run_id = client.post("/api/v1/runs", json=document, headers=headers).json()["id"]
    series = client.get(f"/api/v1/runs/{run_id}", headers=headers).json()["series"][0]
    assert series["summary_uncorrected"]["p99"] < series["summary"]["p99"]
    assert series["trials"][0]["intervals"][0]["p99"] == 500000
    spectrum = client.get(f"/api/v1/runs/{run_id}/series/{series['id']}/spectrum",
                          headers=headers).json()
    assert spectrum["uncorrected"][-1]["value"] == pytest.approx(max(uncorrected), rel=0.001)


def test_list_filters_and_pages_newest_first(client, actors) -> None:
    headers = actors.token(Scope.runs_write, Scope.read)
    ids = []
    for day, branch in enumerate(["main", "feature", "main"], start=1):
        document = result(branch=branch, started_at=f"2026-11-{day:02d}T10:00:00Z",
                          finished_at=None, host=f"host-{day}")
        ids.append(client.post("/api/v1/runs", json=document, headers=headers).json()["id"])
    page = client.get("/api/v1/runs", params={"limit": 2}, headers=headers).json()
    assert page["total"] == 3 and [r["id"] for r in page["items"]] == [ids[2], ids[1]]
    second = client.get("/api/v1/runs", params={"limit": 2, "offset": 2}, headers=headers).json()
    assert [r["id"] for r in second["items"]] == [ids[0]]
    mains = client.get("/api/v1/runs", params={"branch": "main"}, headers=headers).json()
    assert {r["id"] for r in mains["items"]} == {ids[0], ids[2]}
    hosts = client.get("/api/v1/runs", params={"host": "host-2"}, headers=headers).json()
    assert [r["id"] for r in hosts["items"]] == [ids[1]]
    window = client.get("/api/v1/runs", params={"since": "2026-11-02T00:00:00Z",
                                                "until": "2026-11-03T00:00:00Z"},
                        headers=headers).json()
    assert [r["id"] for r in window["items"]] == [ids[1]]
    for name, value in (("suite", "zmq"), ("scenario", "small"), ("commit", "abcd"),
                        ("source", "job")):
        assert client.get("/api/v1/runs", params={name: value},
                          headers=headers).json()["total"] == 0
    assert client.get("/api/v1/runs", params={"commit": "9f1c"},
                      headers=headers).json()["total"] == 3
    assert client.get("/api/v1/runs", params={"limit": 0}, headers=headers).status_code == 422
    actors.login(client)  # a signed-in user sees every project's runs
    assert client.get("/api/v1/runs").json()["total"] == 3


def test_retried_submission_returns_the_first_run(client, actors, db) -> None:
    headers = {**actors.token(Scope.runs_write), "Idempotency-Key": "build-1"}
    first = client.post("/api/v1/runs", json=result(), headers=headers)
    again = client.post("/api/v1/runs", json=result(), headers=headers)
    assert first.status_code == 201 and again.status_code == 200
    assert again.json()["id"] == first.json()["id"] and again.json()["replayed"] is True
    assert db.scalar(select(func.count()).select_from(Run)) == 1


def test_same_key_with_another_body_is_a_conflict(client, actors, db) -> None:
    headers = {**actors.token(Scope.runs_write), "Idempotency-Key": "build-2"}
    client.post("/api/v1/runs", json=result(), headers=headers)
    response = client.post("/api/v1/runs", json=result(branch="other"), headers=headers)
    assert response.status_code == 409
    assert "different body" in response.json()["detail"]
    assert db.scalar(select(func.count()).select_from(Run)) == 1


def test_concurrent_submissions_with_one_key_store_once(committed_db, live_server) -> None:
    from tests.factories import Actors

    headers = Actors(committed_db).token(Scope.runs_write)
    committed_db.commit()
    headers["Idempotency-Key"] = "concurrent-1"
    barrier = threading.Barrier(4)
    responses: list[httpx.Response] = []

    def submit() -> None:
        barrier.wait()
        responses.append(httpx.post(f"{live_server}/api/v1/runs", json=result(),
                                    headers=headers, timeout=60))

    threads = [threading.Thread(target=submit) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(r.status_code for r in responses) == [200, 200, 200, 201]
    assert len({r.json()["id"] for r in responses}) == 1
    committed_db.expire_all()
    assert committed_db.scalar(select(func.count()).select_from(Run)) == 1
    assert committed_db.scalar(select(func.count()).select_from(Series)) == 1


def test_openapi_publishes_the_result_contract(client) -> None:
    spec = client.get("/api/v1/openapi.json").json()
    body = spec["paths"]["/api/v1/runs"]["post"]["requestBody"]
    assert body["content"]["application/json"]["schema"]["$ref"].endswith("/RunCreate")
    assert "samples_ns" in spec["components"]["schemas"]["Latency"]["properties"]


def test_a_harness_resolution_is_kept_for_the_series_and_its_trials(client, actors) -> None:
    """ApacheBench prints whole milliseconds: its 0 means under 1 ms, and the run says so."""
    whole_ms = [0] * 600 + [1_000_000] * 400
    document = result(series=[{"labels": {"load": "ab"}, "trials": [
        {"latency": {"samples_ns": whole_ms, "resolution_ns": 1_000_000}},
        {"latency": {"samples_ns": whole_ms}}]}])
    headers = actors.token(Scope.runs_write, Scope.read)
    run_id = client.post("/api/v1/runs", json=document, headers=headers).json()["id"]
    series = client.get(f"/api/v1/runs/{run_id}", headers=headers).json()["series"][0]
    assert series["summary"]["p50"] == 0
    assert series["resolution_ns"] == 1_000_000
    assert [t["resolution_ns"] for t in series["trials"]] == [1_000_000, None]
    bad = result(series=[{"labels": {}, "trials": [
        {"latency": {"samples_ns": whole_ms, "resolution_ns": 0}}]}])
    response = client.post("/api/v1/runs", json=bad, headers=headers)
    assert response.status_code == 422 and "resolution_ns" in response.text
