"""Experiments through the api: documents saved as versions and validated (an expectation
naming what the experiment lacks is refused, nothing stored), a run launching every job (or
none), and once the jobs' results are in (stored as a runner's outcome is), each expectation
judged: holds, does not hold, not decided, at each point of an axis."""

from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest
from sqlalchemy import func, select

from latlab.experiments import service
from latlab.hosts import service as host_service
from latlab.ingest.outcomes import apply_outcome
from latlab.jobs import service as job_service
from latlab.models import ExperimentRun, Job, JobStatus, Scope
from latlab_contract import Heartbeat, JobEvent, JobOutcome
from latlab_workers.suites import SUITES_DIR, load_suite
from tests.factories import trial

ECHO = load_suite(SUITES_DIR / "echo").info()
DOCUMENT: dict[str, Any] = {
    "name": "tuning", "title": "Does tuning halve the P50?",
    "jobs": {"baseline": {"suite": "echo", "params": {"count": 100}},
             "tuned": {"suite": "echo", "params": {"count": 100, "size": 128}}},
    "series": {"before": {"job": "baseline", "labels": {"client": "c"}},
               "after": {"job": "tuned", "labels": {"client": "c"}},
               "after-sweep": {"job": "tuned", "labels": {"client": "sweep"}},
               "before-sweep": {"job": "baseline", "labels": {"client": "sweep"}}},
    "expectations": ["p50(after) <= 0.5 * p50(before)",
                     "p50(after) <= 0.2 * p50(before)",
                     "p50(after) <= 300 us",
                     "p99(after-sweep) <= p99(before-sweep) for connections <= 10"],
    "references": [{"series": "before", "metric": "p50", "value": 410, "unit": "us",
                    "source": "report 001, table 2"},
                   {"series": "before", "metric": "min", "value": 300, "unit": "us",
                    "source": "report 001, table 2"}]}


@pytest.fixture
def headers(actors) -> dict[str, str]:
    return actors.token(Scope.jobs_write, Scope.read)


def _online(db) -> None:
    host_service.record_heartbeat(db, Heartbeat(name="lab-1", tags=["local"], fingerprint={},
                                                suites=[ECHO]))


def _trials(level_ns: float, count: int, seed: int) -> list[dict[str, Any]]:
    """`count` trials, each around `level_ns` give or take 1 %."""
    rng = np.random.default_rng(seed)
    return [trial(rng, level_ns * (1 + rng.normal(0, 0.01)), sigma=0.05, n=400)
            for _ in range(count)]


def _finish(db, run: dict[str, Any], results: dict[str, list[dict[str, Any]]]) -> None:
    """Each named job's result, stored as a runner's outcome is, as the one host takes them
    (a job waits while the host runs another)."""
    waiting = {name: db.get(Job, run["jobs"][name]["job_id"]) for name in results}
    while waiting:
        name, job = next((n, j) for n, j in waiting.items()
                         if j.status is JobStatus.dispatched)
        _outcome(db, job, results[name])
        del waiting[name]


def _outcome(db, job: Job, series: list[dict[str, Any]]) -> None:
    started = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
    apply_outcome(db, JobOutcome(job_id=job.id, attempt=job.attempts, result={
        "schema": "latlab.result/v1", "suite": "echo", "scenario": "default",
        "params": job.params, "started_at": started.isoformat(),
        "finished_at": (started + timedelta(seconds=30)).isoformat(),
        "source": {"kind": "job"}, "host": {"name": "lab-1", "tags": ["local"],
                                            "fingerprint": {}},
        "series": series}))


def test_a_document_is_saved_as_versions(client, headers) -> None:
    first = client.post("/api/v1/experiments", json=DOCUMENT, headers=headers)
    assert first.status_code == 201 and first.json()["version"] == 1
    again = client.post("/api/v1/experiments", json=DOCUMENT, headers=headers)
    assert again.status_code == 200 and again.json()["version"] == 1
    changed = client.post("/api/v1/experiments", json={**DOCUMENT, "title": "Tuning"},
                          headers=headers)
    assert changed.status_code == 201 and changed.json()["version"] == 2
    assert client.get("/api/v1/experiments/tuning", headers=headers).json()["title"] == "Tuning"
    old = client.get("/api/v1/experiments/tuning", params={"version": 1}, headers=headers)
    assert old.json()["title"] == DOCUMENT["title"]
    assert [e["version"] for e in client.get("/api/v1/experiments", headers=headers).json()
            ] == [2]
    assert client.get("/api/v1/experiments/nothing", headers=headers).status_code == 404


@pytest.mark.parametrize(("change", "says"), [
    ({"expectations": ["p50(after) <= p50(elsewhere)"]}, "series 'elsewhere'"),
    ({"expectations": ["p50 after <= 2"]}, "is not an expectation"),
    ({"series": {"x": {"job": "missing"}}, "expectations": [], "references": []},
     "job 'missing'"),
    ({"references": [{"series": "nobody", "metric": "p50", "value": 1, "source": "r"}]},
     "series 'nobody'"),
    ({"jobs": {}}, "at least 1"),
])
def test_a_document_naming_what_it_lacks_is_refused_and_nothing_stored(
        client, headers, change, says) -> None:
    refused = client.post("/api/v1/experiments", json={**DOCUMENT, **change}, headers=headers)
    assert refused.status_code == 422 and says in refused.text, refused.text
    assert client.get("/api/v1/experiments", headers=headers).json() == []


def test_a_run_without_a_host_launches_nothing(client, headers, db) -> None:
    client.post("/api/v1/experiments", json=DOCUMENT, headers=headers).raise_for_status()
    refused = client.post("/api/v1/experiments/tuning/runs", json={"host_tags": ["gpu"]},
                          headers=headers)
    assert refused.status_code == 409 and "no online host" in refused.text
    assert db.scalar(select(func.count()).select_from(ExperimentRun)) == 0
    assert db.scalar(select(func.count()).select_from(Job)) == 0


def test_once_its_jobs_end_every_expectation_is_judged(client, headers, db) -> None:
    _online(db)
    client.post("/api/v1/experiments", json=DOCUMENT, headers=headers).raise_for_status()
    started = client.post("/api/v1/experiments/tuning/runs", json={}, headers=headers)
    assert started.status_code == 201, started.text
    run = started.json()
    assert run["status"] == "running" and set(run["jobs"]) == {"baseline", "tuned"}
    assert service.advance(db) == []  # the jobs have not ended
    sweep = [10, 100]
    before = _trials(400_000, 6, 1)
    _finish(db, run, {
        "baseline": [{"labels": {"client": "c"}, "trials": before},
                     *({"labels": {"client": "sweep", "connections": str(n)},
                        "trials": _trials(100_000 * n, 6, n)} for n in sweep)],
        "tuned": [{"labels": {"client": "c"}, "trials": _trials(150_000, 6, 2)},
                  *({"labels": {"client": "sweep", "connections": str(n)},
                     "trials": _trials(90_000 * n, 6, n + 1)} for n in sweep)]})
    assert [r.id for r in service.advance(db)] == [run["id"]]
    judged = client.get(f"/api/v1/experiments/tuning/runs/{run['id']}", headers=headers).json()
    assert judged["status"] == "done"
    outcomes = [(j["expectation"], j["point"], j["outcome"]) for j in judged["judgements"]]
    assert outcomes == [
        ("p50(after) <= 0.5 * p50(before)", None, "holds"),
        ("p50(after) <= 0.2 * p50(before)", None, "does-not-hold"),
        ("p50(after) <= 300 us", None, "holds"),
        ("p99(after-sweep) <= p99(before-sweep) for connections <= 10",
         {"connections": 10.0}, "holds")]
    ratio = judged["judgements"][0]
    assert ratio["value"] == pytest.approx(150 / 400, rel=0.05)
    assert ratio["interval"][0] <= ratio["value"] <= ratio["interval"][1]
    assert judged["judgements"][2]["unit"] == "ns"
    listed = client.get("/api/v1/experiments/tuning/runs", headers=headers).json()
    assert [r["id"] for r in listed] == [run["id"]]
    # The report's own figure beside the lab's: the median of the trials' P50 (nearest rank,
    # numpy's inverted_cdf), in the reference's unit.
    p50s = [np.percentile(t["latency"]["samples_ns"], 50, method="inverted_cdf")
            for t in before]
    figure, lowest = judged["figures"]
    assert (figure["series"], figure["unit"], figure["reference"]) == ("before", "us", 410)
    assert figure["lab"] == pytest.approx(np.median(p50s) / 1000)
    assert figure["ratio"] == pytest.approx(figure["lab"] / 410)
    # The minimum (a report's row, though no comparison uses it) is read from the trials too.
    assert lowest["lab"] == pytest.approx(
        np.median([min(t["latency"]["samples_ns"]) for t in before]) / 1000)
    report = client.get(f"/api/v1/experiments/tuning/runs/{run['id']}/markdown",
                        headers=headers)
    assert report.headers["content-type"].startswith("text/markdown")
    text = report.text
    assert text.startswith("# Does tuning halve the P50?")
    assert "| `p50(after) <= 0.2 * p50(before)` | - | **does not hold** |" in text
    assert "| `p99(after-sweep) <= p99(before-sweep) for connections <= 10` | connections = 10" in (
        text)
    assert f"| before | p50 | 410 us | report 001, table 2 | {figure['lab']:.4g} us" in text
    assert "| baseline | echo | default | count=100" in text


def test_a_job_that_failed_fails_the_run_and_few_trials_decide_nothing(
        client, headers, db) -> None:
    _online(db)
    client.post("/api/v1/experiments", json=DOCUMENT, headers=headers).raise_for_status()
    first = client.post("/api/v1/experiments/tuning/runs", json={}, headers=headers).json()
    jobs = {name: db.get(Job, j["job_id"]) for name, j in first["jobs"].items()}
    while any(job.status is JobStatus.dispatched for job in jobs.values()):
        name, job = next((n, j) for n, j in jobs.items() if j.status is JobStatus.dispatched)
        if name == "tuned":
            job_service.apply_event(db, JobEvent(job_id=job.id, attempt=job.attempts,
                                                 status="failed",
                                                 error="the server did not start"))
        else:
            _outcome(db, job, [{"labels": {"client": "c"}, "trials": _trials(400_000, 1, 1)}])
    service.advance(db)
    failed = client.get(f"/api/v1/experiments/tuning/runs/{first['id']}",
                        headers=headers).json()
    assert failed["status"] == "failed" and failed["judgements"] is None
    assert "job tuned" in failed["message"] and "the server did not start" in failed["message"]

    second = client.post("/api/v1/experiments/tuning/runs", json={}, headers=headers).json()
    _finish(db, second, {name: [{"labels": {"client": "c"}, "trials": _trials(400_000, 1, 3)}]
                         for name in ("baseline", "tuned")})
    service.advance(db)
    judged = client.get(f"/api/v1/experiments/tuning/runs/{second['id']}",
                        headers=headers).json()["judgements"]
    assert {j["outcome"] for j in judged} == {"not-decided"}
    assert "needs at least 2 a side" in judged[0]["reason"]
    # An axis with no point in the run: nothing to judge at, said once.
    assert judged[3]["point"] is None and "no point" in judged[3]["reason"]


def test_two_saves_of_one_version_at_once_refuse_the_later(db, monkeypatch) -> None:
    """Both read version 1 as the latest and save version 2: the second is told to read it
    again (409), not a 500, and the first's document stays."""
    from latlab.core.errors import Conflict
    from latlab.experiments.schemas import ExperimentDocument
    from latlab.models import Project

    project = db.scalar(select(Project).where(Project.slug == "default"))
    first, _ = service.save(db, project, ExperimentDocument.model_validate(DOCUMENT), None)
    service.save(db, project, ExperimentDocument.model_validate({**DOCUMENT, "title": "A"}),
                 None)
    monkeypatch.setattr(service, "latest_version", lambda *args: first)
    with pytest.raises(Conflict, match="saved by someone else meanwhile"):
        service.save(db, project, ExperimentDocument.model_validate({**DOCUMENT, "title": "B"}),
                     None)
    monkeypatch.undo()
    assert service.latest_version(db, project.id, "tuning").document["title"] == "A"


def test_a_bound_in_a_unit_the_metric_is_not_in_is_not_decided_saying_so(
        client, headers, db) -> None:
    """A bound in ms on throughput (req/s) cannot be judged: the run is judged, that
    expectation not decided with the reason, and a reference in ms has no lab figure."""
    _online(db)
    document = {**DOCUMENT, "expectations": ["throughput(after) <= 5 ms",
                                             "p50(after) <= 0.5 * p50(before)"],
                "references": [{"series": "after", "metric": "throughput", "value": 5,
                                "unit": "ms", "source": "a typo"}]}
    client.post("/api/v1/experiments", json=document, headers=headers).raise_for_status()
    run = client.post("/api/v1/experiments/tuning/runs", json={}, headers=headers).json()
    throughput = [{**t, "metrics": {"throughput": 1000.0 + i}}
                  for i, t in enumerate(_trials(150_000, 6, 2))]
    _finish(db, run, {"baseline": [{"labels": {"client": "c"}, "trials": _trials(400_000, 6, 1)}],
                      "tuned": [{"labels": {"client": "c"}, "trials": throughput}]})
    assert [r.id for r in service.advance(db)] == [run["id"]]
    judged = client.get(f"/api/v1/experiments/tuning/runs/{run['id']}", headers=headers).json()
    assert judged["status"] == "done"
    bound, ratio = judged["judgements"]
    assert (bound["outcome"], bound["reason"]) == (
        "not-decided", "a figure in ms on a metric measured in req/s")
    assert ratio["outcome"] == "holds"
    assert (judged["figures"][0]["lab"], judged["figures"][0]["ratio"]) == (None, None)


def test_a_derived_metric_is_computed_per_trial_judged_and_marked_derived(
        client, headers, db) -> None:
    """Throughput per connection: each trial's throughput over its series' connections (the
    axis label; the run's param where the series has no such label), judged at each point,
    beside a reference, and said to be derived. One over a param the series lacks is not
    decided, saying which; a derived metric may not take a measured one's name."""
    _online(db)
    refused = client.post("/api/v1/experiments", headers=headers, json={
        **DOCUMENT, "derived": {"p50": "p99 / connections"}})
    assert refused.status_code == 422 and "a name of its own" in refused.text
    document = {**DOCUMENT, "derived": {"per_connection": "throughput / connections",
                                        "per_nothing": "throughput / nothing"},
                "expectations": ["per_connection(after-sweep) >= 900 for connections >= 10",
                                 "per_connection(after-sweep) >= 1100 for connections >= 10",
                                 "per_nothing(after) >= 1"],
                "references": [{"series": "after", "metric": "per_connection", "value": 500,
                                "source": "a report's per-connection table"}]}
    client.post("/api/v1/experiments", json=document, headers=headers).raise_for_status()
    run = client.post("/api/v1/experiments/tuning/runs", json={}, headers=headers).json()

    def measured(throughput: list[float], seed: int) -> list[dict[str, Any]]:
        return [{**t, "metrics": {"throughput": v}}
                for t, v in zip(_trials(150_000, len(throughput), seed), throughput,
                                strict=True)]

    sweep = {n: [1000.0 * n + 7 * i for i in range(6)] for n in (10, 100)}
    plain = [2000.0 + 3 * i for i in range(6)]
    _finish(db, run, {
        "baseline": [{"labels": {"client": "c"}, "trials": _trials(400_000, 6, 1)}],
        "tuned": [{"labels": {"client": "c"}, "trials": measured(plain, 2)},
                  *({"labels": {"client": "sweep", "connections": str(n)},
                     "trials": measured(values, n)} for n, values in sweep.items())]})
    assert [r.id for r in service.advance(db)] == [run["id"]]
    judged = client.get(f"/api/v1/experiments/tuning/runs/{run['id']}", headers=headers).json()
    outcomes = [(j["point"], j["outcome"]) for j in judged["judgements"]]
    assert outcomes == [({"connections": 10}, "holds"), ({"connections": 100}, "holds"),
                        ({"connections": 10}, "does-not-hold"),
                        ({"connections": 100}, "does-not-hold"), (None, "not-decided")]
    for judgement, n in zip(judged["judgements"][:2], sweep, strict=True):
        assert judgement["value"] == pytest.approx(np.median(np.array(sweep[n]) / n))
        assert judgement["unit"] == "req/s / connections"
    assert "nothing" in judged["judgements"][4]["reason"]
    (figure,) = judged["figures"]
    # The tuned job's series carries no connections label: the run's param (1) divides it.
    assert figure["derived"] == "throughput / connections"
    assert figure["lab"] == pytest.approx(np.median(plain))
    text = client.get(f"/api/v1/experiments/tuning/runs/{run['id']}/markdown",
                      headers=headers).text
    assert "- `per_connection` = throughput / connections" in text
    assert "| after | per_connection (derived) | 500 req/s / connections |" in text
