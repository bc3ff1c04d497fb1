"""The zmq suite and network profiles as a user meets them: jobs through the api, a real runner
and ingest worker, Toxiproxy between load and server. Windows are seconds; builds are cached
(built in-process first, as a cold build takes minutes)."""

import os
import signal

import httpx

from tests.conftest import wait_for
from tests.test_jobs_e2e import _alive, _finish, _online

WAN_FLOOR_MS = 2 * (40 - 10)  # a round trip through `wan`: at least 30 ms each way


def _launch(client: httpx.Client, suite: str, scenario: str, params: dict) -> int:
    created = client.post("/api/v1/jobs", json={
        "suite": suite, "scenario": scenario, "host_tags": [], "params": params,
        "repetitions": 1})
    assert created.status_code == 202, created.text
    return int(created.json()["id"])


def test_a_zmq_job_over_wan_records_the_profile_and_its_delay(
        member, ingest_worker, start_runner, build_cache) -> None:
    from zmq_support import build_suite

    build_suite(build_cache)
    start_runner("lab-zmq")
    _online(member, "lab-zmq")
    job, _ = _finish(member, _launch(member, "zmq", "quick", {"window": 2, "network": "wan"}))
    assert job["status"] == "succeeded", job
    run = member.get(f"/api/v1/runs/{job['run_id']}").json()
    assert run["params"]["network"] == "wan" and run["params"]["window"] == 2
    labels = sorted((s["labels"]["pattern"], s["labels"]["profile"]) for s in run["series"])
    assert labels == [(p, q) for p in ("pub-sub", "req-rep") for q in ("baseline", "tuned")]
    for series in run["series"]:
        assert series["labels"]["symbol"] == "EURUSD.s"
        assert series["labels"]["instrument"] == "python"
        assert series["metrics"]["samples"] == series["summary"]["count"] > 0, series
        (trial,) = series["trials"]
        assert set(trial["tuning"]) == {"sndbuf", "rcvbuf", "rcvtimeo", "tcp_keepalive",
                                        "tcp_keepalive_idle", "linger"}
        # Through the proxy: a request waits at least the floor both ways, a tick one way.
        floor_ms = WAN_FLOOR_MS if series["labels"]["pattern"] == "req-rep" else (
            WAN_FLOOR_MS / 2)
        assert series["summary"]["min"] >= floor_ms * 1e6, series["summary"]


def test_http_order_takes_the_same_network_param(
        member, ingest_worker, start_runner, build_cache) -> None:
    from http_order_support import build_suite

    build_suite(build_cache)
    start_runner("lab-orders-wan")
    _online(member, "lab-orders-wan")
    job, _ = _finish(member, _launch(member, "http-order", "small", {
        "loads": "python", "network": "wan"}))
    assert job["status"] == "succeeded", job
    run = member.get(f"/api/v1/runs/{job['run_id']}").json()
    assert run["params"]["network"] == "wan"
    (series,) = run["series"]
    assert series["summary"]["count"] == 100
    assert series["summary"]["min"] >= WAN_FLOOR_MS * 1e6, series["summary"]


def test_the_servers_own_view_of_each_trial_sits_beside_the_clients(
        member, ingest_worker, start_runner, build_cache) -> None:
    """server_view: the order server's own time per order, read from it directly (not
    through the job's network) around each trial, as a series of its own."""
    from http_order_support import build_suite

    build_suite(build_cache)
    start_runner("lab-orders-view")
    _online(member, "lab-orders-view")
    job, _ = _finish(member, _launch(member, "http-order", "small", {
        "loads": "rust", "network": "wan", "server_view": True}))
    assert job["status"] == "succeeded", job
    run = member.get(f"/api/v1/runs/{job['run_id']}").json()
    by_view = {s["labels"].get("view", "client"): s for s in run["series"]}
    assert {k: s["labels"] for k, s in by_view.items()} == {
        "client": {"client": "rust"}, "server": {"client": "rust", "view": "server"}}
    client, server = by_view["client"], by_view["server"]
    assert len(server["trials"]) == len(client["trials"]) == 1
    # Every order the server accepted in the trial: the measured ones and the warm-up.
    assert server["trials"][0]["metrics"]["orders"] == server["summary"]["count"] == 100 + 10
    assert client["summary"]["count"] == 100
    # The client waits out the WAN both ways; the server's own time has none of it.
    assert client["summary"]["min"] >= WAN_FLOOR_MS * 1e6, client["summary"]
    assert 0 < server["summary"]["p99"] < WAN_FLOOR_MS * 1e6 / 2, server["summary"]


def test_bad_params_get_a_422_naming_the_param_and_store_nothing(
        member, start_runner) -> None:
    start_runner("lab-zmq-params")
    _online(member, "lab-zmq-params")
    cases = [
        ("zmq", "quick", {"network": "mars"}, "$.params.network"),
        ("zmq", "quick", {"profiles": "baseline,fast"}, "$.params.profiles"),
        ("zmq", "quick", {"patterns": "req-rep;reboot"}, "$.params.patterns"),
        ("zmq", "seed", {"window": 0}, "$.params.window"),
        ("zmq", "pubsub-fanout", {"subscribers": 1_000_000}, "$.params.subscribers"),
        ("zmq", "quick", {"symbols": "EUR USD"}, "$.params.symbols"),
        ("http-order", "small", {"network": "mars"}, "$.params.network"),
        ("echo", "default", {"network": "wan"}, "$.params"),  # no endpoints: no network param
    ]
    for suite, scenario, params, path in cases:
        response = member.post("/api/v1/jobs", json={
            "suite": suite, "scenario": scenario, "params": params})
        assert response.status_code == 422, (suite, params, response.text)
        assert any(p["path"] == path for p in response.json()["detail"]), response.json()
    assert member.get("/api/v1/jobs").json()["total"] == 0


def test_a_server_killed_mid_run_fails_the_job_and_leaves_no_program(
        member, ingest_worker, start_runner, build_cache) -> None:
    from zmq_support import build_suite

    build_suite(build_cache)
    start_runner("lab-zmq-kill")
    _online(member, "lab-zmq-kill")
    job_id = _launch(member, "zmq", "quick", {
        "patterns": "req-rep", "profiles": "baseline", "window": 120, "network": "lan"})

    def measuring() -> dict | None:
        job = member.get(f"/api/v1/jobs/{job_id}").json()
        names = {p["name"] for p in job["programs"] or []}
        ready = job["phase"] == "measure" and {"server", "load", "toxiproxy"} <= names
        return job if ready else None

    running = wait_for(measuring, timeout=120)
    pids = {p["name"]: p["pid"] for p in running["programs"]}
    os.kill(pids["server"], signal.SIGKILL)
    job, _ = _finish(member, job_id, timeout=60)  # not the 120 s window: the runner notices
    assert job["status"] == "failed", job
    assert "server server exited with -9 during the measurement" in job["error"], job
    wait_for(lambda: not any(_alive(pid) for pid in pids.values()), timeout=30)
    assert job["run_id"] is None
    assert member.get("/api/v1/runs").json()["total"] == 0

