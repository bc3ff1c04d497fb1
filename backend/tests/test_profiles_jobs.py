"""CPU profiles of real jobs (a real runner, ingest worker and api): an order server made to
spin shows the spinning function as what grew, and every suite's servers profile with their
functions named (builds cached, in-process first, as the suites' own tests do)."""

import time
from typing import Any

import httpx
import pytest

from latlab_workers.builds import build
from latlab_workers.suites import SUITES_DIR, load_suite
from tests.test_jobs_e2e import _finish, _online

SPIN = "order_server::Lab::work"  # the order server's --work-us hook


def _profiled(member: httpx.Client, suite: str, scenario: str,
              params: dict[str, Any]) -> dict[str, Any]:
    created = member.post("/api/v1/jobs", json={
        "suite": suite, "scenario": scenario, "host_tags": [], "params": params,
        "repetitions": 1, "profile": True})
    assert created.status_code == 202, created.text
    job, seen = _finish(member, created.json()["id"], timeout=600)
    assert job["status"] == "succeeded", (job["error"], seen)
    assert job["profile"] is True
    return dict(member.get(f"/api/v1/runs/{job['run_id']}").json())


def _unknown_share(member: httpx.Client, run_id: int, profile_id: int) -> tuple[float, str]:
    """The share of samples whose leaf frame perf could not name, and the heaviest leaf."""
    folded = member.get(f"/api/v1/runs/{run_id}/profiles/{profile_id}",
                        params={"format": "folded"}).text
    leaves: dict[str, int] = {}
    for line in folded.splitlines():
        stack, count = line.rsplit(" ", 1)
        leaf = stack.rsplit(";", 1)[-1]
        leaves[leaf] = leaves.get(leaf, 0) + int(count)
    total = sum(leaves.values())
    unknown = sum(c for leaf, c in leaves.items() if leaf.startswith("[unknown]"))
    return unknown / total, max(leaves, key=lambda leaf: leaves[leaf])


def test_an_order_server_made_to_spin_shows_the_spin_as_what_grew(
        member, ingest_worker, start_runner, build_cache) -> None:
    """The issue's acceptance: the same job with and without --work-us, both profiled; the
    spinning function's share grows by more than any other frame's, and the profiled trial
    is in no statistic (one repetition: one trial)."""
    build(load_suite(SUITES_DIR / "http-order"), build_cache, time.monotonic() + 1800)
    start_runner("lab-profiles")
    _online(member, "lab-profiles")
    params = {"loads": "rust", "orders": 3000, "connections": 10, "warmup": 100}
    before = _profiled(member, "http-order", "small", params)
    after = _profiled(member, "http-order", "small", {**params, "work_us": 50})
    for run in (before, after):
        (series,) = run["series"]
        assert len(series["trials"]) == 1 and series["summary"]["count"] == 3000
    listed = member.get(f"/api/v1/runs/{after['id']}/profiles").json()
    assert {p["program"] for p in listed} == {"server", "client"}
    assert all(p["samples"] > 0 for p in listed)
    compared = member.get("/api/v1/compare/profiles", params={
        "baseline": before["id"], "candidate": after["id"], "program": "server"}).json()
    (server,) = compared["profiles"]
    top, *others = server["frames"]
    assert top["frame"] == SPIN, server["frames"][:5]
    assert top["self_delta"] > max(f["self_delta"] for f in others) and top["self_delta"] > 0.2


# A small job of each suite, and the servers (programs) whose profiles must name their code.
CASES = {
    "echo": ("default", {"count": 20000, "warmup": 100}, {"server"}),
    "zmq": ("quick", {"window": 2, "patterns": "req-rep", "profiles": "tuned"}, {"server"}),
    "zig-http": ("quick", {"duration": 1, "warmup": 0, "loads": "hdr", "concurrency": 10},
                 {"server-zig", "server-go"}),
    "actor-iot": ("single", {"mode": "actor", "devices": 10, "messages": 2000, "warmup": 0},
                  {"minitb"}),
}


@pytest.mark.parametrize("suite", list(CASES))
def test_each_suites_programs_profile_with_their_functions_named(
        member, ingest_worker, start_runner, build_cache, suite: str) -> None:
    scenario, params, programs = CASES[suite]
    build(load_suite(SUITES_DIR / suite), build_cache, time.monotonic() + 1800)
    start_runner(f"lab-profiles-{suite}")
    _online(member, f"lab-profiles-{suite}")
    run = _profiled(member, suite, scenario, params)
    listed = member.get(f"/api/v1/runs/{run['id']}/profiles").json()
    found = {p["program"] for p in listed}
    assert programs <= found, (found, programs)
    for profile in listed:
        if profile["program"] not in programs:
            continue
        unknown, heaviest = _unknown_share(member, run["id"], profile["id"])
        assert unknown < 0.2 and not heaviest.startswith("["), (
            profile["program"], profile["tool"], unknown, heaviest)
