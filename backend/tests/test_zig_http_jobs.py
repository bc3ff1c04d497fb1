"""The zig-http suite as a user runs it (real runner, ingest worker, api, Chromium): a
shortened `seed` job sweeps zig and go over the seed's four concurrencies, the run page draws
the curves and compares zig with go point by point; a shortened `seed-zco` job adds the seed's
ZCO design (io_uring, 8 KB stacks, time slices, batches) as a third server; memcheck jobs of
the shipped build and of the broken one, the second regressing against the first."""

import json
import time
from pathlib import Path

from tests.browser import run_browser
from tests.factories import Actors
from tests.test_jobs_e2e import _finish, _online

CONCURRENCIES = [10, 100, 500, 1000]


def _build(build_cache: Path) -> None:
    """Built in-process first (a cold Zig build takes minutes), so the jobs find it cached."""
    from latlab_workers.builds import build
    from latlab_workers.suites import SUITES_DIR, load_suite

    build(load_suite(SUITES_DIR / "zig-http"), build_cache, time.monotonic() + 1800)


def _job(member, **request: object) -> dict:  # type: ignore[no-untyped-def]
    created = member.post("/api/v1/jobs", json={"suite": "zig-http", "host_tags": [], **request})
    assert created.status_code == 202, created.text
    job, seen = _finish(member, created.json()["id"], timeout=600)
    assert job["status"] == "succeeded", (job["error"], seen)
    return member.get(f"/api/v1/runs/{job['run_id']}").json()


def test_a_shortened_seed_job_sweeps_both_servers(member, ingest_worker, start_runner,
                                                  build_cache, committed_db) -> None:
    _build(build_cache)
    start_runner("lab-zig")
    _online(member, "lab-zig")
    run = _job(member, scenario="seed", repetitions=1, params={"duration": 1, "warmup": 0})
    labels = sorted((s["labels"]["server"], int(s["labels"]["concurrency"]), s["labels"]["load"])
                    for s in run["series"])
    assert labels == sorted((server, c, load) for server in ("zig", "go")
                            for c in CONCURRENCIES for load in ("ab", "hdr"))
    assert run["sweep"] == {"axis": "concurrency", "values": [float(c) for c in CONCURRENCIES]}
    for series in run["series"]:
        assert series["summary"]["count"] > 0, series["labels"]
        assert series["summary"]["p50"] <= series["summary"]["p99"]
        assert series["metrics"]["throughput"] > 0 and series["metrics"]["peak_rss_mb"] > 0
        (trial,) = series["trials"]
        assert trial["tuning"] == {f"cpus.server-{series['labels']['server']}": "off",
                                   f"cpus.{series['labels']['load']}": "off"}
    assert run["metric_info"]["ab_p99_ms"]["unit"] == "ms"
    assert run["metric_info"]["throughput"]["label"] == "requests answered"  # the suite's

    # zig against go inside the run: one point per concurrency and load generator.
    compared = member.get("/api/v1/compare", params={
        "baseline": run["id"], "candidate": run["id"],
        "baseline_labels": json.dumps({"server": "go"}),
        "candidate_labels": json.dumps({"server": "zig"})})
    assert compared.status_code == 200, compared.text
    points = sorted((int(s["labels"]["concurrency"]), s["labels"]["load"])
                    for s in compared.json()["series"])
    assert points == sorted((c, load) for c in CONCURRENCIES for load in ("ab", "hdr"))
    for point in compared.json()["series"]:
        verdicts = {m["metric"]: m["verdict"] for m in point["metrics"]}
        assert {"p99", "throughput", "peak_rss_mb"} <= set(verdicts), point["labels"]

    user = Actors(committed_db).user()
    committed_db.commit()
    run_browser("zig-http", str(member.base_url).rstrip("/"), email=user.email,
                LATLAB_ZIG_HTTP_RUN_ID=str(run["id"]))


def test_a_shortened_seed_zco_job_sweeps_zco_beside_zig_and_go(member, ingest_worker,
                                                                start_runner,
                                                                build_cache) -> None:
    _build(build_cache)
    start_runner("lab-zco")
    _online(member, "lab-zco")
    run = _job(member, scenario="seed-zco", repetitions=1,
               params={"duration": 1, "warmup": 0, "loads": "hdr"})
    labels = sorted((s["labels"]["server"], int(s["labels"]["concurrency"]))
                    for s in run["series"])
    assert labels == sorted((server, c) for server in ("zig", "zco", "go") for c in CONCURRENCIES)
    for series in run["series"]:
        assert series["metrics"]["throughput"] > 0 and series["metrics"]["errors"] == 0, \
            series["labels"]
    assert run["params"]["zco_io"] == "uring" and run["params"]["zco_stack_kb"] == 8

    compared = member.get("/api/v1/compare", params={
        "baseline": run["id"], "candidate": run["id"],
        "baseline_labels": json.dumps({"server": "go"}),
        "candidate_labels": json.dumps({"server": "zco"})})
    assert compared.status_code == 200, compared.text
    assert sorted(int(s["labels"]["concurrency"]) for s in compared.json()["series"]) == \
        CONCURRENCIES


def test_the_broken_build_regresses_against_the_shipped_one_under_memcheck(
        member, ingest_worker, start_runner, build_cache) -> None:
    _build(build_cache)
    start_runner("lab-memcheck")
    _online(member, "lab-memcheck")
    # Four trials a side: the fewest with which the comparison's test can decide.
    clean = _job(member, scenario="memcheck", repetitions=4, params={"memcheck_requests": 100})
    broken = _job(member, scenario="memcheck", repetitions=4,
                  params={"memcheck_requests": 100, "zig_build": "uninit"})
    (series,) = clean["series"]
    assert series["labels"] == {"server": "zig", "concurrency": "10", "load": "memcheck"}
    for trial in series["trials"]:
        assert trial["metrics"]["memcheck_errors"] == 0
        assert trial["metrics"]["definitely_lost_bytes"] == 0
        assert trial["metrics"]["peak_heap_bytes"] > 0
    for trial in broken["series"][0]["trials"]:
        assert trial["metrics"]["memcheck_errors"] >= 100
    # Where memcheck found them, kept from the first trial as the series' error stacks.
    assert member.get(f"/api/v1/runs/{clean['id']}/profiles").json() == []
    (stacks,) = member.get(f"/api/v1/runs/{broken['id']}/profiles").json()
    assert (stacks["program"], stacks["tool"]) == ("server-zig", "memcheck")
    assert stacks["samples"] == broken["series"][0]["trials"][0]["metrics"]["memcheck_errors"]
    folded = member.get(f"/api/v1/runs/{broken['id']}/profiles/{stacks['id']}",
                        params={"format": "folded"}).text
    assert "parseHead (src/http.zig:" in folded and ";UninitCondition " in folded, folded

    compared = member.get("/api/v1/compare", params={"baseline": clean["id"],
                                                     "candidate": broken["id"]}).json()
    (point,) = compared["series"]
    by_metric = {m["metric"]: m for m in point["metrics"]}
    assert by_metric["memcheck_errors"]["direction"] == "lower"  # the suite's declaration
    assert by_metric["memcheck_errors"]["verdict"] == "regressed", by_metric["memcheck_errors"]
    assert by_metric["memcheck_errors"]["confidence"] == "high"
    assert by_metric["definitely_lost_bytes"]["verdict"] == "unchanged"
    assert ("the two runs used different parameters: zig_build 'clean' vs 'uninit'"
            in compared["warnings"]), compared["warnings"]
