"""Suites v2 end to end, as a user meets it: a new suite that is only a folder, a sweep drawn
as curves, two series of one run compared, and runs stored by the runner before v2 still
comparing with runs after it. Real runner and ingest workers, the api, Chromium."""

import json
import shutil
from pathlib import Path

import httpx
import pytest

from latlab.suites import service as suite_service
from latlab_contract import JobSpec
from latlab_workers.fingerprint import read_fingerprint
from latlab_workers.runner import HostIdentity, execute
from latlab_workers.suites import SUITES_DIR, load_suite
from tests.browser import run_browser
from tests.factories import Actors
from tests.test_jobs_e2e import _finish, _online

FIXTURE = Path(__file__).parent / "suites_fixture" / "frob"
GOLDEN = Path(__file__).parent / "golden"


def _job(client: httpx.Client, **request: object) -> dict:
    created = client.post("/api/v1/jobs", json=request)
    assert created.status_code == 202, created.text
    job, seen = _finish(client, created.json()["id"])
    assert job["status"] == "succeeded", (job["error"], seen)
    return client.get(f"/api/v1/runs/{job['run_id']}").json()


def test_suites_v2_as_a_user_meets_them(member, ingest_worker, start_runner, tmp_path,
                                        committed_db) -> None:
    # A new suite is a folder: copied into a runner's suites directory, nothing else changes.
    suites = tmp_path / "suites"
    shutil.copytree(FIXTURE, suites / "frob")
    start_runner("lab-frob", env={"LATLAB_SUITES_DIR": str(suites)})
    start_runner("lab-v2")  # the shipped suites
    _online(member, "lab-frob")
    _online(member, "lab-v2")
    catalogue = {s["id"]: s for s in member.get("/api/v1/suites").json()}
    assert catalogue["frob"]["hosts"] == ["lab-frob"]
    assert catalogue["frob"]["metrics"]["frobs"] == {
        "unit": "frobs/s", "direction": "higher", "label": "frob rate"}
    assert catalogue["frob"]["series_labels"] == ["speed", "size"]
    assert catalogue["frob"]["sweep"] == "size"

    frob = _job(member, suite="frob", params={"size": [1, 64, 4096], "count": 200},
                repetitions=5, host_tags=[])
    assert sorted((s["labels"]["speed"], s["labels"]["size"]) for s in frob["series"]) == sorted(
        (speed, size) for speed in ("fast", "slow") for size in ("1", "64", "4096"))
    assert frob["sweep"] == {"axis": "size", "values": [1.0, 64.0, 4096.0]}
    assert frob["metric_info"]["frobs"]["unit"] == "frobs/s"
    assert frob["metric_info"]["frobs"]["direction"] == "higher"
    for series in frob["series"]:
        assert len(series["trials"]) == 5 and series["summary"]["count"] == 5 * 200
        # While a series was measured, only the frobnicator it names was running.
        assert [t["metrics"]["other_servers"] for t in series["trials"]] == [0] * 5, series

    # Two series of one run, matched on their other labels: slow against fast, per size.
    compared = member.get("/api/v1/compare", params={
        "baseline": frob["id"], "candidate": frob["id"],
        "baseline_labels": json.dumps({"speed": "fast"}),
        "candidate_labels": json.dumps({"speed": "slow"})})
    assert compared.status_code == 200, compared.text
    points = {s["labels"]["size"]: s for s in compared.json()["series"]}
    assert sorted(points) == ["1", "4096", "64"]
    for point in points.values():
        assert point["baseline_labels"]["speed"] == "fast"
        p50 = next(m for m in point["metrics"] if m["metric"] == "p50")
        assert p50["verdict"] == "regressed", p50  # a 2 ms delay on ~0.1 ms round trips
    ambiguous = member.get("/api/v1/compare", params={
        "baseline": frob["id"], "candidate": frob["id"],
        "candidate_labels": json.dumps({"speed": "slow"})})
    assert ambiguous.status_code == 422 and "name more labels" in ambiguous.text

    # echo sweeping its connections: one run, three series, a sweep.
    echo = _job(member, suite="echo", params={"count": 2000, "warmup": 100,
                                              "connections": [1, 2, 4]}, host_tags=[])
    assert sorted(s["labels"]["connections"] for s in echo["series"]) == ["1", "2", "4"]
    assert {s["labels"]["transport"] for s in echo["series"]} == {"tcp"}
    assert echo["sweep"] == {"axis": "connections", "values": [1.0, 2.0, 4.0]}

    user = Actors(committed_db).user()
    committed_db.commit()
    run_browser("suites", str(member.base_url).rstrip("/"), email=user.email,
                LATLAB_SWEEP_RUN_ID=str(echo["id"]), LATLAB_FROB_RUN_ID=str(frob["id"]))


@pytest.mark.parametrize("suite_id", ["echo", "http-order"])
def test_runs_stored_before_suites_v2_still_compare(member, committed_db, build_cache,
                                                    suite_id) -> None:
    """The old runner's output (captured before v2, golden) and the new runner's output for
    the same job have the same params and labels, so they share history keys: the new run
    finds the old one as its baseline and every series is matched."""
    old = json.loads((GOLDEN / f"v1-runner-{suite_id}.json").read_text())
    suite = load_suite(SUITES_DIR / suite_id)
    spec = JobSpec(job_id=1, attempt=1, project="default", suite=suite_id,
                   scenario=old["scenario"], params=old["params"], repetitions=2,
                   timeout_s=1800)
    new = execute(spec, suite, HostIdentity("lab-old", ["local"], dict(read_fingerprint())),
                  _Silent(), build_cache).model_dump(mode="json", by_alias=True,
                                                     exclude_none=True)
    # A param the suite added since (`x-history-key = "unless-default"`) is new at its
    # default, and left out of the history key: the runs keep one history.
    added = {name: spec["default"] for name, spec in suite.params_schema["properties"].items()
             if spec.get("x-history-key") == "unless-default"}
    assert new["params"] == {**old["params"], **added}
    suite_service.record(committed_db, [suite.info()])  # as a worker does when it starts
    committed_db.commit()
    assert [s["labels"] for s in new["series"]] == [s["labels"] for s in old["series"]]
    ids = []
    for document in (old, new):
        created = member.post("/api/v1/runs", json={**document, "host": old["host"]})
        assert created.status_code == 201, created.text
        ids.append(created.json()["id"])
    assert created.json()["baseline_run_id"] == ids[0]
    compared = member.get("/api/v1/compare",
                          params={"baseline": ids[0], "candidate": ids[1]}).json()
    assert len(compared["series"]) == len(old["series"])
    assert compared["unmatched_baseline"] == compared["unmatched_candidate"] == []
    assert not [w for w in compared["warnings"] if "different parameters" in w], compared


class _Silent:
    def progress(self, *args: object, **kwargs: object) -> None:
        del args, kwargs
