"""The zig-http suite as a user runs it: a shortened `seed` job gives series for zig and go at
the seed's four concurrencies; memcheck jobs of the shipped and the broken build (real runner,
ingest worker, api)."""

import time

from tests.test_jobs_e2e import _finish, _online, member  # noqa: F401  (fixture)

CONCURRENCIES = [10, 100, 500, 1000]


def _build(build_cache) -> None:  # type: ignore[no-untyped-def]
    """Built in-process first (a cold Zig build takes minutes), so the jobs find it cached."""
    from latlab_workers.runner import build
    from latlab_workers.suites import SUITES_DIR, load_suite

    build(load_suite(SUITES_DIR / "zig-http"), build_cache, time.monotonic() + 1800)


def test_a_shortened_seed_job_sweeps_both_servers(member, ingest_worker, start_runner,  # noqa: F811
                                                  build_cache) -> None:
    _build(build_cache)
    start_runner("lab-zig")
    _online(member, "lab-zig")
    created = member.post("/api/v1/jobs", json={
        "suite": "zig-http", "scenario": "seed", "host_tags": [],
        "params": {"duration": 1, "warmup": 0}})
    assert created.status_code == 202, created.text
    job, _ = _finish(member, created.json()["id"], timeout=600)
    assert job["status"] == "succeeded", job
    run = member.get(f"/api/v1/runs/{job['run_id']}").json()
    labels = sorted((s["labels"]["server"], int(s["labels"]["concurrency"]), s["labels"]["load"])
                    for s in run["series"])
    assert labels == sorted((server, c, load) for server in ("zig", "go")
                            for c in CONCURRENCIES for load in ("ab", "hdr"))
    for series in run["series"]:
        assert series["summary"]["count"] > 0, series["labels"]
        assert series["summary"]["p50"] <= series["summary"]["p99"]
        metrics = series["metrics"]
        assert metrics["throughput"] > 0 and metrics["peak_rss_mb"] > 0, series["labels"]
        (trial,) = series["trials"]
        assert trial["tuning"] == {f"cpus.server-{series['labels']['server']}": "off",
                                   f"cpus.{series['labels']['load']}": "off"}


def test_memcheck_jobs_clean_and_broken_builds(member, ingest_worker, start_runner,  # noqa: F811
                                               build_cache) -> None:
    _build(build_cache)
    start_runner("lab-memcheck")
    _online(member, "lab-memcheck")
    runs = {}
    for build in ("clean", "uninit"):
        created = member.post("/api/v1/jobs", json={
            "suite": "zig-http", "scenario": "memcheck", "host_tags": [],
            "params": {"zig_build": build, "memcheck_requests": 200}})
        assert created.status_code == 202, created.text
        job, _ = _finish(member, created.json()["id"], timeout=600)
        assert job["status"] == "succeeded", job
        runs[build] = member.get(f"/api/v1/runs/{job['run_id']}").json()
    (clean,) = runs["clean"]["series"]
    assert clean["labels"] == {"server": "zig", "concurrency": "10", "load": "memcheck"}
    assert clean["metrics"]["memcheck_errors"] == 0
    assert clean["metrics"]["definitely_lost_bytes"] == 0
    assert clean["metrics"]["peak_heap_bytes"] > 0
    (broken,) = runs["uninit"]["series"]
    assert broken["metrics"]["memcheck_errors"] >= 200
