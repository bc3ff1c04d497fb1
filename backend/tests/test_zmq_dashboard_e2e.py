"""The zmq suite's acceptance, as a new user tries it: the seed's experiment (its before and
after sockets, REQ-REP and PUB-SUB, both symbols, on the `lossy` network) shortened to 10 s
windows (no shorter: the link stalls every 10 s, so each REQ-REP series' window meets a
stall) and one warm-up request instead of ten (the connection is still set up first; the
other nine cost about 3 s a REQ-REP series) gives one run in which the before profile's
requests time out; comparing before with after inside it shows deltas, verdicts and the
warnings on tails resting on too few samples, in the api and in the browser (screenshots in
frontend/tests/e2e/screenshots/). Real runner and ingest workers, Toxiproxy, Chromium."""

import json

from tests.browser import run_browser
from tests.factories import Actors
from tests.test_jobs_e2e import _finish, _online

LOSSY_FLOOR_NS = 2 * (150 - 100) * 1_000_000  # a round trip: at least 50 ms each way


def test_the_seed_experiment_compares_baseline_with_tuned_in_one_run(
        member, ingest_worker, start_runner, build_cache, committed_db) -> None:
    from zmq_support import build_suite

    build_suite(build_cache)
    start_runner("lab-zmq-seed")
    _online(member, "lab-zmq-seed")
    created = member.post("/api/v1/jobs", json={
        "suite": "zmq", "scenario": "seed", "params": {"window": 10, "warmup": 1},
        "repetitions": 1,
        "host_tags": []})
    assert created.status_code == 202, created.text
    job, seen = _finish(member, created.json()["id"], timeout=600)
    assert job["status"] == "succeeded", (job["error"], seen)
    run = member.get(f"/api/v1/runs/{job['run_id']}").json()
    assert run["params"]["network"] == "lossy" and run["params"]["window"] == 10
    assert run["params"]["warmup"] == 1
    assert sorted(tuple(s["labels"][k] for k in ("symbol", "pattern", "profile"))
                  for s in run["series"]) == sorted(
        (symbol, pattern, profile) for symbol in ("EURUSD.s", "BTCUSD.s")
        for pattern in ("req-rep", "pub-sub") for profile in ("baseline-128k", "tuned"))
    assert {s["labels"]["instrument"] for s in run["series"]} == {"python"}
    timeouts = {"baseline-128k": 0.0, "tuned": 0.0}
    for series in run["series"]:
        if series["labels"]["pattern"] == "req-rep":  # through the lossy proxy
            assert series["summary"]["min"] >= LOSSY_FLOOR_NS, series["summary"]
            timeouts[series["labels"]["profile"]] += sum(
                t["metrics"].get("timeouts", 0) for t in series["trials"])
    # A request met by one of the link's dropping stalls (1 s every 10 s) is lost: it times
    # out (after 5 s before the seed's tuning, 2 s after) and the socket is made again.
    assert timeouts["baseline-128k"] > 0, timeouts

    compared = member.get("/api/v1/compare", params={
        "baseline": run["id"], "candidate": run["id"],
        "baseline_labels": json.dumps({"profile": "baseline-128k"}),
        "candidate_labels": json.dumps({"profile": "tuned"})})
    assert compared.status_code == 200, compared.text
    pairs = compared.json()["series"]
    assert len(pairs) == 4 and compared.json()["unmatched_baseline"] == []
    for pair in pairs:
        metrics = {m["metric"]: m for m in pair["metrics"]}
        assert {"p50", "p99", "samples", "timeouts"} <= set(metrics)
        # One 10 s window a side is no test: a low-confidence verdict (inconclusive for a big
        # change, unchanged for a small one) that says how many trials a test needs.
        p50 = metrics["p50"]
        assert p50["verdict"] in ("inconclusive", "unchanged") and p50["confidence"] == "low"
        assert "a tested verdict needs" in p50["evidence"], p50
        if pair["labels"]["pattern"] == "req-rep":  # a few dozen answers in 10 s
            assert not metrics["p99"]["reliable"], metrics["p99"]

    user = Actors(committed_db).user()
    committed_db.commit()
    run_browser("zmq", str(member.base_url).rstrip("/"), email=user.email,
                LATLAB_ZMQ_RUN_ID=str(run["id"]))
