"""The actor-iot suite as a new user meets it, through the whole stack (api -> Redis -> a real
runner -> ingest -> Postgres, and the dashboard in Chromium): a shortened `multi` sweep drawn
as curves and compared mode against mode, the alert check failing a job with a wrong rule, JVM
flags refused before anything runs, and a second job reusing the build."""

import httpx

from tests.browser import assert_built, run_browser
from tests.factories import Actors
from tests.processes import RunnerProcess
from tests.test_jobs_e2e import _finish, _online

# The seed's sweep, shortened: 1, 10, 50 devices x 1,000 messages per mode (enough samples
# beyond each series' p99 to trust it), four trials each: the fewest for a tested verdict at
# p <= 0.05 (3 vs 3 trials cannot go below p = 0.1).
DEVICES = [1, 10, 50]
SHORT_MULTI = {"devices": DEVICES, "messages": 1000, "warmup": 200, "heap_mb": 128}
TINY = {"mode": "sync", "devices": 1, "messages": 50, "warmup": 0, "heap_mb": 64}


def test_a_shortened_multi_job_is_a_device_sweep_per_mode(
        member, ingest_worker, start_runner, committed_db) -> None:
    assert_built()
    start_runner("lab-iot")
    _online(member, "lab-iot")
    created = member.post("/api/v1/jobs", json={
        "suite": "actor-iot", "scenario": "multi", "params": SHORT_MULTI, "repetitions": 4})
    assert created.status_code == 202, created.text
    job, _ = _finish(member, created.json()["id"])
    assert job["status"] == "succeeded", job
    assert job["params"]["mode"] == ["actor", "sync"]  # the default: both modes
    run = member.get(f"/api/v1/runs/{job['run_id']}").json()
    assert run["sweep"] == {"axis": "devices", "values": [float(n) for n in DEVICES]}
    assert run["metric_info"]["messages_per_s"]["unit"] == "msg/s"
    labels = sorted((s["labels"]["mode"], int(s["labels"]["devices"])) for s in run["series"])
    assert labels == [(mode, n) for mode in ("actor", "sync") for n in DEVICES]
    for series in run["series"]:
        assert set(series["labels"]) == {"mode", "devices"} and len(series["trials"]) == 4
        devices = int(series["labels"]["devices"])
        assert series["summary"]["count"] == 4 * devices * 1000
        assert 0 < series["summary"]["p50"] <= series["summary"]["p99"]
        for trial in series["trials"]:
            metrics = trial["metrics"]
            assert metrics["messages"] == devices * 1000
            assert metrics["alerts_fired"] == metrics["alerts_expected"] > 0, series
            assert metrics["success_rate"] == 1 and metrics["messages_per_s"] > 0
            assert trial["tuning"]["heap"].startswith("applied: max "), trial["tuning"]
    # The data depends on the seed only: each device count expects the same alerts in every
    # mode and trial.
    expected = {(s["labels"]["devices"], t["metrics"]["alerts_expected"])
                for s in run["series"] for t in s["trials"]}
    assert len(expected) == len(DEVICES)

    # The seed's alert thresholds come from the suite's suite.toml.
    templates = {t["name"]: t for t in member.get("/api/v1/sla-rules/templates").json()
                 if t["suite"] == "actor-iot"}
    assert templates["Throughput drop over 20 %"]["metric"] == "messages_per_s"
    assert templates["Throughput drop over 20 %"]["kind"] == "relative"
    assert templates["Success rate under 95 %"]["severity"] == "critical"
    assert templates["P95 over 800 ms"]["unit"] == "ms"

    user = Actors(committed_db).user()
    committed_db.commit()
    run_browser("actor-iot", str(member.base_url).rstrip("/"), email=user.email,
                LATLAB_IOT_RUN_ID=str(run["id"]),
                LATLAB_IOT_DEVICES=",".join(str(n) for n in DEVICES))


def test_a_wrong_rule_fails_the_job_saying_why(member, ingest_worker, start_runner) -> None:
    start_runner("lab-iot-rule")
    _online(member, "lab-iot-rule")
    created = member.post("/api/v1/jobs", json={
        "suite": "actor-iot", "scenario": "single",
        "params": {"mode": "actor", "devices": 10, "messages": 300, "warmup": 0,
                   "wrong_rule": True, "heap_mb": 128}})
    assert created.status_code == 202, created.text
    job, _ = _finish(member, created.json()["id"])
    assert job["status"] == "failed" and job["run_id"] is None, job
    assert "minitb exited with 5" in job["error"], job["error"]
    assert "alerts_fired" in job["error"] and "!= alerts_expected" in job["error"], job["error"]
    assert "raised alerts the data does not call for" in job["error"]


def test_bad_jvm_flag_params_get_a_422_and_the_runner_keeps_working(
        member, ingest_worker, tmp_path) -> None:
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
