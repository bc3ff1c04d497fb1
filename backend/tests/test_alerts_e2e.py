"""Did my change make P99 worse? Baseline vs candidate through the API, the CI verdict, the
alert, and the message a local stand-in for Slack receives (through the real ingest worker)."""

from typing import Any

import httpx
import pytest

from latlab.models import Role, Scope
from tests.conftest import wait_for
from tests.factories import JSON, Actors, one_series, result, sign_in, submit, tail_trials
from tests.receiver import Receiver


@pytest.fixture
def lab(committed_db, live_server, ingest_worker,
        alerts_worker) -> tuple[httpx.Client, dict[str, str]]:
    actors = Actors(committed_db)
    admin = actors.user(Role.admin)
    member = actors.user(Role.member)
    token = actors.token(Scope.runs_write, Scope.read)
    committed_db.commit()
    client = httpx.Client(base_url=live_server, timeout=60, headers=JSON)
    # The stand-in for Slack listens on 127.0.0.1: an admin lets the project's channels call it.
    sign_in(client, admin.email)
    assert client.patch("/api/v1/projects/default",
                        json={"allow_private_webhooks": True}).status_code == 200
    client.post("/api/v1/auth/logout")
    sign_in(client, member.email)
    return client, token


def submitted(client: httpx.Client, token: dict[str, str], trials: list[dict[str, Any]],
              commit: str, branch: str = "main") -> dict[str, Any]:
    """A run of one series (a rust client's) with `trials`, as the api answered it."""
    return submit(client, result(series=one_series(trials, client="rust"), commit=commit,
                                 branch=branch), token)


def deliveries_of(client: httpx.Client, alert: dict[str, Any]) -> list[dict[str, Any]]:
    deliveries: list[dict[str, Any]] = client.get(
        f"/api/v1/alerts/{alert['id']}/deliveries").json()
    return deliveries


def test_a_p99_regression_fails_ci_alerts_once_and_resolves(lab, receiver) -> None:
    client, token = lab
    assert client.post("/api/v1/channels", json={
        "name": "latency", "kind": "slack", "url": receiver.url}).status_code == 201

    baseline = submitted(client, token, tail_trials(1), "aaaa111")
    assert baseline["verdict"] == "no-baseline"
    # Five trials test the change but cannot confirm it: inconclusive, nobody alerted.
    suspect = submitted(client, token, tail_trials(2, tail_factor=1.3), "bbbb111", branch="feature")
    assert suspect["verdict"] == "inconclusive", suspect
    (reason,) = [r for r in suspect["reasons"] if r["metric"] == "p99"]
    assert reason["kind"] == "suspected-regression" and "10 candidate trials" in reason["message"]
    assert client.get("/api/v1/alerts", params={"state": "open"}).json()["total"] == 0
    candidate = submitted(client, token, tail_trials(2, tail_factor=1.3, n=10), "bbbb222",
                          branch="feature")
    assert candidate["verdict"] == "fail", candidate
    assert candidate["baseline_run_id"] == baseline["id"]
    assert any(r["metric"] == "p99" and r["kind"] == "regression" for r in candidate["reasons"])

    compare = client.get("/api/v1/compare", params={"baseline": baseline["id"],
                                                    "candidate": candidate["id"]}).json()
    p99 = next(m for m in compare["series"][0]["metrics"] if m["metric"] == "p99")
    assert p99["verdict"] == "regressed" and p99["p_value"] < 0.05
    assert 25 < p99["delta_pct"] < 40
    p50 = next(m for m in compare["series"][0]["metrics"] if m["metric"] == "p50")
    assert p50["verdict"] in ("unchanged", "inconclusive")

    alerts = client.get("/api/v1/alerts", params={"state": "open"}).json()
    assert alerts["total"] == 1
    alert = alerts["items"][0]
    assert alert["kind"] == "regression" and alert["metric"] == "p99"
    wait_for(lambda: len(receiver.messages) == 1, timeout=30)
    text = receiver.text(0)
    assert "p99" in text
    assert f"/compare?baseline={baseline['id']}&candidate={candidate['id']}" in text
    assert 300_000 < alert["baseline_value"] < alert["value"] < 1_000_000  # both in µs
    assert f"{alert['value'] / 1e3:.3g} µs" in text
    assert f"{alert['baseline_value'] / 1e3:.3g} µs" in text

    again = submitted(client, token, tail_trials(3, tail_factor=1.3, n=10), "cccc333",
                      branch="feature")
    assert again["verdict"] == "fail"
    open_alerts = client.get("/api/v1/alerts", params={"state": "open"}).json()
    assert open_alerts["total"] == 1 and open_alerts["items"][0]["occurrences"] == 2

    good = submitted(client, token, tail_trials(4, n=10), "dddd444", branch="feature")
    assert good["verdict"] == "pass", good
    wait_for(lambda: len(receiver.messages) == 2, timeout=30)
    assert "resolved" in receiver.text(1) and "recovered in run" in receiver.text(1)
    assert len(receiver.messages) == 2  # the repeated breach sent nothing
    assert client.get("/api/v1/alerts", params={"state": "open"}).json()["total"] == 0


def test_delivery_retries_server_errors_and_waits_for_a_receiver_that_is_down(
        lab, receiver) -> None:
    client, token = lab
    client.post("/api/v1/channels", json={"name": "hook", "kind": "slack", "url": receiver.url})
    client.post("/api/v1/sla-rules", json={"name": "P99 over 0.1 ms", "suite": "http-order",
                                           "metric": "p99", "op": ">", "threshold": 0.1,
                                           "unit": "ms", "severity": "critical"})
    receiver.script = [500, 500]
    breach = submitted(client, token, tail_trials(1, n=1), "eeee555")
    assert breach["verdict"] == "fail"
    assert breach["reasons"][0]["kind"] == "sla"
    alert = client.get("/api/v1/alerts").json()["items"][0]
    wait_for(lambda: len(receiver.messages) == 1, timeout=60)
    # The worker records the delivery once the receiver has answered: after it got the message.
    wait_for(lambda: deliveries_of(client, alert)[0]["status"] != "pending", timeout=30)
    deliveries = deliveries_of(client, alert)
    assert deliveries[0]["status"] == "sent" and deliveries[0]["attempts"] == 3
    assert receiver.requests == 3

    # The receiver goes away: the resolve message is kept with its failure, then delivered.
    url = receiver.url
    receiver.stop()
    client.post(f"/api/v1/alerts/{alert['id']}/resolve")
    wait_for(lambda: (lambda d: d[-1]["attempts"] >= 1 and d[-1]["status"] == "pending"
                      and d[-1]["last_error"])(deliveries_of(client, alert)), timeout=30)
    revived = Receiver(port=int(url.split(":")[2].split("/")[0]))
    try:
        wait_for(lambda: len(revived.messages) == 1, timeout=60)
        assert "resolved" in revived.text(0)
        wait_for(lambda: deliveries_of(client, alert)[-1]["status"] != "pending", timeout=30)
        final = deliveries_of(client, alert)[-1]
        assert final["status"] == "sent" and final["attempts"] >= 2
    finally:
        revived.stop()
