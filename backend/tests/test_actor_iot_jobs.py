"""The actor-iot suite as a new user meets it, through the whole stack (api -> Redis -> a real
runner -> ingest -> Postgres): a shortened `multi` sweep, the alert check failing a job with a
wrong rule, JVM flags refused before anything runs, and a second job reusing the build."""

import httpx

from tests.conftest import RunnerProcess
from tests.test_jobs_e2e import _finish, _online, member  # noqa: F401

# The seed's sweep, shortened: 1, 10, 50 devices x 200 messages per mode.
SHORT_MULTI = {"devices": [1, 10, 50], "messages": 200, "warmup": 200, "heap_mb": 128}
TINY = {"mode": "sync", "devices": 1, "messages": 50, "warmup": 0, "heap_mb": 64}


def test_a_shortened_multi_job_gives_one_series_per_mode_and_device_count(
        member, ingest_worker, start_runner) -> None:  # noqa: F811
    start_runner("lab-iot")
    _online(member, "lab-iot")
    created = member.post("/api/v1/jobs", json={
        "suite": "actor-iot", "scenario": "multi", "params": SHORT_MULTI})
    assert created.status_code == 202, created.text
    job, _ = _finish(member, created.json()["id"])
    assert job["status"] == "succeeded", job
    assert job["params"]["mode"] == ["actor", "sync"]  # the default: both modes
    run = member.get(f"/api/v1/runs/{job['run_id']}").json()
    labels = sorted((s["labels"]["mode"], int(s["labels"]["devices"])) for s in run["series"])
    assert labels == [(mode, n) for mode in ("actor", "sync") for n in (1, 10, 50)]
    for series in run["series"]:
        assert set(series["labels"]) == {"mode", "devices"}
        (trial,) = series["trials"]
        metrics = trial["metrics"]
        devices = int(series["labels"]["devices"])
        assert metrics["messages"] == devices * 200 == series["summary"]["count"]
        assert metrics["alerts_fired"] == metrics["alerts_expected"] > 0, series
        assert metrics["success_rate"] == 1 and metrics["messages_per_s"] > 0
        assert 0 < series["summary"]["p50"] <= series["summary"]["p99"]
        assert trial["tuning"]["heap"].startswith("applied: max "), trial["tuning"]
    # The data depends on the seed only: each device count expects the same alerts per mode.
    expected = {(s["labels"]["devices"], s["trials"][0]["metrics"]["alerts_expected"])
                for s in run["series"]}
    assert len(expected) == 3


def test_a_wrong_rule_fails_the_job_saying_why(
        member, ingest_worker, start_runner) -> None:  # noqa: F811
    start_runner("lab-iot-rule")
    _online(member, "lab-iot-rule")
    created = member.post("/api/v1/jobs", json={
        "suite": "actor-iot", "scenario": "single",
        "params": {"mode": "actor", "devices": 10, "messages": 300, "warmup": 0,
                   "wrong_rule": True, "heap_mb": 128}})
    assert created.status_code == 202, created.text
    job, _ = _finish(member, created.json()["id"])
    assert job["status"] == "failed" and job["run_id"] is None, job
    assert "minitb exited with 3" in job["error"], job["error"]
    assert "alerts_fired" in job["error"] and "!= alerts_expected" in job["error"], job["error"]
    assert "raised alerts the data does not call for" in job["error"]


def test_bad_jvm_flag_params_get_a_422_and_the_runner_keeps_working(
        member, ingest_worker, tmp_path) -> None:  # noqa: F811
    """Also: the first job on a fresh host builds the suite, the second reuses the build."""
    cache = tmp_path / "builds"
    runner = RunnerProcess("lab-iot-fresh", "local", cache)
    try:
        _online(member, "lab-iot-fresh")
        for params, path in [({"gc": "-XX:+UseEpsilonGC"}, "$.params.gc"),
                             ({"gc": "g1 -XX:OnOutOfMemoryError=reboot"}, "$.params.gc"),
                             ({"heap_mb": "512m"}, "$.params.heap_mb"),
                             ({"heap_mb": 8}, "$.params.heap_mb"),
                             ({"jvm_flags": "-Xss1k"}, "$.params")]:
            response = member.post("/api/v1/jobs", json={
                "suite": "actor-iot", "scenario": "single", "params": params})
            assert response.status_code == 422, response.text
            assert any(p["path"] == path for p in response.json()["detail"]), response.json()
        assert member.get("/api/v1/jobs").json()["total"] == 0

        first = _job(member, TINY)
        (version,) = (cache / "actor-iot").iterdir()  # the first job built it
        marker = version / ".built"
        built = (marker.stat().st_mtime_ns, (version / "target" / "minitb.jar").stat().st_mtime_ns)
        second = _job(member, TINY)
        assert first["status"] == second["status"] == "succeeded", (first, second)
        # The runner found the marker and ran no build: nothing in the cache changed.
        assert [p.name for p in (cache / "actor-iot").iterdir()] == [version.name]
        assert (marker.stat().st_mtime_ns,
                (version / "target" / "minitb.jar").stat().st_mtime_ns) == built
    finally:
        runner.stop()


def _job(client: httpx.Client, params: dict) -> dict:
    created = client.post("/api/v1/jobs", json={
        "suite": "actor-iot", "scenario": "single", "params": params})
    assert created.status_code == 202, created.text
    return _finish(client, created.json()["id"])[0]
