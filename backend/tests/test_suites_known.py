"""What the api learns of suites from heartbeats: their metrics (units, directions), gate
metrics and SLA templates; what a submission declares itself; and the shipped suites'
declarations agreeing with the generic metrics they reuse."""

import pytest

from latlab.hosts import service as host_service
from latlab.models import Run, Scope
from latlab.suites import service as suite_service
from latlab_contract import Heartbeat, SlaTemplate
from latlab_contract.vocabulary import GENERIC, MetricSpec
from latlab_workers.suites import load_suites
from tests.factories import result

SHIPPED = [(suite.id, name, spec) for suite in load_suites().values()
           for name, spec in suite.metrics.items()]


@pytest.mark.parametrize(("suite", "name", "spec"), SHIPPED,
                         ids=[f"{suite}.{name}" for suite, name, _ in SHIPPED])
def test_a_suite_reusing_a_generic_metric_keeps_its_direction(suite, name, spec) -> None:
    if name in GENERIC:
        assert spec.direction == GENERIC[name].direction, (suite, name)


def _advertise(db, **changes) -> None:
    suite = next(iter(load_suites().values())).info()
    info = suite.model_copy(update={"id": "frob", **changes})
    host_service.record_heartbeat(db, Heartbeat(name="lab-frob", tags=["local"],
                                                fingerprint={}, suites=[info]))


def test_declared_metrics_gate_and_templates_are_known_once_advertised(db, client,
                                                                       actors) -> None:
    assert suite_service.vocabulary(db, "frob").info("frobs").direction == "none"
    unknown = Run(suite="frob", gate=None)
    assert suite_service.gate(db, unknown) == ("p99", "throughput")
    assert suite_service.gate(db, Run(suite="frob", gate=["frobs"])) == ("frobs",)
    _advertise(db, metrics={"frobs": MetricSpec(unit="frobs/s", direction="higher",
                                                label="frob rate")},
               gate=["p99", "frobs"],
               sla_templates=[SlaTemplate(name="Slow frobs", metric="frobs", op="<",
                                          threshold=10, unit="frobs/s")])
    info = suite_service.vocabulary(db, "frob").info("frobs")
    assert (info.unit, info.direction, info.label) == ("frobs/s", "higher", "frob rate")
    # Once advertised, the suite's own gate wins over what a submission asks.
    assert suite_service.gate(db, Run(suite="frob", gate=["frobs"])) == ("p99", "frobs")

    headers = actors.token(Scope.runs_write, Scope.read)
    templates = client.get("/api/v1/sla-rules/templates", headers=headers).json()
    assert {"suite": "frob", "name": "Slow frobs", "metric": "frobs", "op": "<"}.items() <= (
        next(t for t in templates if t["suite"] == "frob").items())
    document = result(suite="frob", series=[{"labels": {"k": "a"}, "trials": [
        {"latency": {"samples_ns": [1000, 2000, 3000]}, "metrics": {"frobs": 12.0}}]}])
    created = client.post("/api/v1/runs", json=document, headers=headers)
    assert created.status_code == 201, created.text
    run = client.get(f"/api/v1/runs/{created.json()['id']}", headers=headers).json()
    assert run["metric_info"]["frobs"] == {"name": "frobs", "label": "frob rate",
                                           "unit": "frobs/s", "direction": "higher"}
    assert run["metric_info"]["p99"]["unit"] == "ns"


def test_a_submission_declares_metrics_the_lab_does_not_know(client, actors) -> None:
    headers = actors.token(Scope.runs_write, Scope.read)
    document = result(suite="my-lib", series=[{"labels": {"bench": "Parse"}, "trials": [
        {"latency": {"samples_ns": [1000, 2000]}, "metrics": {"ns_per_op": 1500.0}}]}],
        metric_info={"ns_per_op": {"unit": "ns", "direction": "lower", "label": "ns/op"}})
    created = client.post("/api/v1/runs", json=document, headers=headers)
    assert created.status_code == 201, created.text
    run = client.get(f"/api/v1/runs/{created.json()['id']}", headers=headers).json()
    assert run["metric_info"]["ns_per_op"]["direction"] == "lower"
    bad = client.post("/api/v1/runs", headers=headers, json={
        **document, "metric_info": {"x": {"unit": "s", "direction": "up"}}})
    assert bad.status_code == 422
    assert bad.json()["detail"][0]["path"] == "$.metric_info.x.direction"


def test_unreliable_tails_are_named_by_the_api(client, actors) -> None:
    headers = actors.token(Scope.runs_write, Scope.read)
    document = result(series=[{"labels": {"client": "c"}, "trials": [
        {"latency": {"samples_ns": list(range(1000, 6000))}}]}])  # 5,000 samples
    run_id = client.post("/api/v1/runs", json=document, headers=headers).json()["id"]
    series = client.get(f"/api/v1/runs/{run_id}", headers=headers).json()["series"][0]
    # P99 has 50 samples beyond it, P99.9 has 5, P99.99 has 0.5.
    assert series["unreliable"] == ["p999", "p9999"]
    assert series["trials"][0]["unreliable"] == ["p999", "p9999"]
