"""GET /metrics: Prometheus' text format, read from Postgres and Redis when scraped, scoped to
the token's project, behind the `metrics:read` scope; and a real Prometheus server (Debian's
package) that scrapes a live lab and answers a PromQL query with a value the test submitted."""

import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
import redis
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import func, select
from sqlalchemy.orm import Session

import latlab_stack as localstack
from latlab.alerts import delivery
from latlab.core import tasks
from latlab.models import Host, Job, JobStatus, OutboxMessage, Project, Scope
from latlab.monitoring import service
from latlab.projects import service as projects
from latlab_contract import EXECUTE_JOB
from tests.conftest import REDIS_URL, FrozenClock, wait_for
from tests.factories import Actors, notified, result, samples, webhook

PROMETHEUS = Path("/usr/bin/prometheus")
P50_NS = 345_678
P99_NS = 654_321
Sample = tuple[str, frozenset[tuple[str, str]]]


def reported(p50_ns: float, p99_ns: float, **overrides: Any) -> dict[str, Any]:
    """A result document whose harness printed its own P50 and P99 (the series' summary)."""
    return result(series=[{"labels": {"client": "rust"}, "trials": [{
        "latency": {"samples_ns": samples(), "reported": {"p50": p50_ns, "p99": p99_ns}},
        "metrics": {"throughput": 115554.0}}]}], **overrides)


def scrape(client: TestClient, headers: dict[str, str]) -> dict[Sample, float]:
    response = client.get("/metrics", headers=headers)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("text/plain; version=0.0.4")
    return {(sample.name, frozenset(sample.labels.items())): sample.value
            for family in text_string_to_metric_families(response.text)
            for sample in family.samples}


def value(samples: dict[Sample, float], name: str, **labels: str) -> float:
    return samples[(name, frozenset(labels.items()))]


def test_metrics_report_what_the_lab_stored(client: TestClient, actors: Actors, db: Session,
                                            clock: FrozenClock) -> None:
    headers = actors.token(Scope.runs_write, Scope.metrics_read)
    stored = client.post("/api/v1/runs", json=reported(P50_NS, P99_NS, suite="echo",
                                                        scenario="default"), headers=headers)
    assert stored.status_code == 201, stored.text
    now = clock.now()
    default = db.scalar(select(Project).where(Project.slug == "default"))
    other = projects.ensure(db, "other")
    assert default is not None
    db.add_all([
        _job(default, JobStatus.succeeded, now, started=now - timedelta(seconds=100),
             finished=now - timedelta(seconds=10)),
        _job(default, JobStatus.succeeded, now, started=now - timedelta(seconds=50),
             finished=now - timedelta(seconds=20)),
        _job(default, JobStatus.queued, now),
        _job(other, JobStatus.running, now),
        Host(name="metrics-runner", created_at=now, heartbeat_at=now - timedelta(seconds=5)),
        Host(name="metrics-silent", created_at=now, heartbeat_at=now - timedelta(minutes=5)),
        Host(name="metrics-ci", created_at=now),  # named by CI: no runner, no queue
        OutboxMessage(task="t", queue="ingest", kwargs={}, options={},
                      created_at=now - timedelta(seconds=30)),
    ])
    channel = webhook(db, f"http://127.0.0.1:{localstack.free_port()}/hook", clock.now())
    [message] = notified(db, channel, clock.now())
    delivery.deliver(db, message)  # nothing listens: a failed attempt
    db.flush()
    for _ in range(3):  # through Celery, as the outbox sends a job to its host
        tasks.get_sender().send_task(EXECUTE_JOB, queue="host.metrics-runner",
                                     kwargs={}, retry=False)
    broker = redis.Redis.from_url(REDIS_URL)
    try:
        samples = scrape(client, actors.token(Scope.metrics_read))
    finally:
        broker.delete("host.metrics-runner")
        broker.close()

    series = {"project": "default", "suite": "echo", "scenario": "default",
              "series": "client=rust"}
    assert value(samples, "latlab_result_p50_seconds", **series) == P50_NS / 1e9
    assert value(samples, "latlab_result_p99_seconds", **series) == P99_NS / 1e9
    assert value(samples, "latlab_result_throughput", **series) == 115554.0
    assert value(samples, "latlab_result_series_omitted", project="default") == 0

    jobs = {state: value(samples, "latlab_jobs", project="default", state=state.value)
            for state in JobStatus}
    assert jobs == {**dict.fromkeys(JobStatus, 0.0), JobStatus.succeeded: 2.0,
                    JobStatus.queued: 1.0}
    assert ("latlab_jobs", frozenset({("project", "other"), ("state", "running")})
            ) not in samples
    assert value(samples, "latlab_recent_jobs_succeeded", project="default") == 2
    durations = {q: value(samples, "latlab_recent_job_duration_seconds", project="default",
                          quantile=q) for q in ("0.5", "0.99", "1")}
    assert durations == {"0.5": 60.0, "0.99": pytest.approx(89.4), "1": 90.0}

    # The run finished at 10:00:12 and was stored at the frozen 12:00:00.
    assert value(samples, "latlab_recent_runs_ingested", project="default") == 1
    assert value(samples, "latlab_recent_ingest_latency_seconds", project="default",
                 quantile="1") == 2 * 3600 - 12

    assert value(samples, "latlab_recent_alert_deliveries", project="default",
                 outcome="failed") == 1
    assert value(samples, "latlab_recent_alert_deliveries", project="default",
                 outcome="delivered") == 0

    assert value(samples, "latlab_broker_up") == 1
    assert value(samples, "latlab_queue_messages", queue="host.metrics-runner") == 3
    assert ("latlab_queue_messages", frozenset({("queue", "host.metrics-ci")})) not in samples
    assert value(samples, "latlab_host_online", host="metrics-runner") == 1
    assert value(samples, "latlab_host_online", host="metrics-silent") == 0
    unsent = db.scalar(select(func.count()).select_from(OutboxMessage)
                       .where(OutboxMessage.sent_at.is_(None)))
    assert value(samples, "latlab_outbox_unsent_messages") == unsent
    assert value(samples, "latlab_outbox_oldest_unsent_age_seconds") == 30


def test_results_are_capped_to_the_series_of_the_most_recent_runs(
        client: TestClient, actors: Actors, monkeypatch: pytest.MonkeyPatch) -> None:
    headers = actors.token(Scope.runs_write, Scope.metrics_read)
    for suite, started in (("older", "2026-11-22T09:00:00Z"), ("newer", "2026-11-22T10:00:00Z")):
        stored = client.post("/api/v1/runs", headers=headers, json=reported(
            P50_NS, P99_NS, suite=suite, started_at=started, finished_at=started))
        assert stored.status_code == 201, stored.text
    monkeypatch.setattr(service, "MAX_RESULT_SERIES", 1)

    samples = scrape(client, headers)

    suites = {dict(labels)["suite"] for name, labels in samples
              if name == "latlab_result_p99_seconds"}
    assert suites == {"newer"}
    assert value(samples, "latlab_result_series_omitted", project="default") == 1


def test_metrics_need_a_token_with_the_metrics_scope(client: TestClient,
                                                     actors: Actors) -> None:
    assert client.get("/metrics").status_code == 401
    denied = client.get("/metrics", headers=actors.token(Scope.read, Scope.runs_write))
    assert denied.status_code == 403
    assert "metrics:read" in denied.json()["detail"]
    assert client.get("/metrics", headers=actors.token(Scope.metrics_read)).status_code == 200


def test_prometheus_scrapes_a_live_lab_and_answers_the_submitted_p99(
        committed_db: Session, live_server: str) -> None:
    assert PROMETHEUS.is_file(), "no Prometheus server: `scripts/bootstrap.sh --test`"
    actors = Actors(committed_db)
    submit, scraper = actors.token(Scope.runs_write), actors.token(Scope.metrics_read)
    committed_db.commit()
    stored = httpx.post(f"{live_server}/api/v1/runs", headers=submit, timeout=30,
                        json=reported(P50_NS, P99_NS, suite="prom-check", scenario="medium"))
    assert stored.status_code == 201, stored.text

    query = ('latlab_result_p99_seconds{project="default",suite="prom-check",'
             'scenario="medium",series="client=rust"}')
    with _prometheus(live_server, scraper["Authorization"].removeprefix("Bearer ")) as api:
        def answer() -> list[Any]:
            found = httpx.get(f"{api}/api/v1/query", params={"query": query}, timeout=5)
            return list(found.json()["data"]["result"]) if found.status_code == 200 else []

        [series] = wait_for(answer, timeout=60, interval=0.5)
    assert series["metric"]["job"] == "latlab"
    assert float(series["value"][1]) == P99_NS / 1e9


@contextmanager
def _prometheus(target: str, token: str) -> Iterator[str]:
    """A Prometheus server scraping `target` every second with `token`, on a free port and a
    temporary store; yields its HTTP API's URL and stops it afterwards."""
    with tempfile.TemporaryDirectory(prefix="latlab-prometheus-") as name:
        directory = Path(name)
        config = directory / "prometheus.yml"
        config.write_text(
            "global: {scrape_interval: 1s, scrape_timeout: 1s}\n"
            "scrape_configs:\n"
            "  - job_name: latlab\n"
            "    metrics_path: /metrics\n"
            f"    authorization: {{credentials: '{token}'}}\n"
            f"    static_configs: [{{targets: ['{target.removeprefix('http://')}']}}]\n")
        address = f"127.0.0.1:{localstack.free_port()}"
        log = directory / "prometheus.log"
        with log.open("wb") as output:
            process = subprocess.Popen(
                [str(PROMETHEUS), f"--config.file={config}",
                 f"--storage.tsdb.path={directory / 'data'}", f"--web.listen-address={address}"],
                stdout=output, stderr=subprocess.STDOUT)
        url = f"http://{address}"

        def ready() -> bool:
            if process.poll() is not None:
                raise AssertionError(f"prometheus exited:\n{log.read_text()}")
            try:
                return httpx.get(f"{url}/-/ready", timeout=1).status_code == 200
            except httpx.HTTPError:
                return False

        try:
            wait_for(ready, timeout=60)
            yield url
        finally:
            process.terminate()
            try:
                process.wait(20)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _job(project: Project, status: JobStatus, now: datetime, started: datetime | None = None,
         finished: datetime | None = None) -> Job:
    return Job(project_id=project.id, suite="echo", scenario="default", params={},
               status=status, created_at=now, started_at=started, finished_at=finished)
