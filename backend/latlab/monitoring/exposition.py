"""`GET /metrics` in Prometheus' text format: a collector that reads the lab when it is
scraped (`monitoring.service`) and names what it reads. Times are in seconds, Prometheus'
base unit; `latlab_recent_*` figures cover `service.WINDOW` (the last hour)."""

from collections.abc import Iterator

from prometheus_client import generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.metrics_core import Metric
from sqlalchemy.orm import Session

from latlab.models import Project
from latlab.monitoring import service
from latlab.monitoring.service import LabHealth, LatestResult, ProjectHealth, Spread

RESULT_LABELS = ["project", "suite", "scenario", "series"]


class LabCollector:
    """The lab's health and one project's latest results, read anew at each `collect()`."""

    def __init__(self, session: Session, project: Project) -> None:
        self.session = session
        self.project = project

    def collect(self) -> Iterator[Metric]:
        yield from _lab(service.lab_health(self.session))
        slug = self.project.slug
        yield from _project(service.project_health(self.session, self.project.id), slug)
        yield from _results(*service.latest_results(self.session, self.project.id), slug)


def exposition(session: Session, project: Project) -> bytes:
    return generate_latest(LabCollector(session, project))


def _lab(health: LabHealth) -> Iterator[Metric]:
    yield GaugeMetricFamily("latlab_broker_up", "1 when the broker (Redis) answered this scrape",
                            value=0.0 if health.queues is None else 1.0)
    if health.queues is not None:
        queues = GaugeMetricFamily("latlab_queue_messages", "Messages waiting in a Celery "
                                   "queue: ingest, alerts, and host.<name> per runner",
                                   labels=["queue"])
        for queue, depth in health.queues.items():
            queues.add_metric([queue], depth)
        yield queues
    hosts = GaugeMetricFamily("latlab_host_online", "1 while a runner host's heartbeats are "
                              "fresh (three missed: 0)", labels=["host"])
    for host, online in health.hosts.items():
        hosts.add_metric([host], 1.0 if online else 0.0)
    yield hosts
    refused = CounterMetricFamily(
        "latlab_messages_refused", "Runner messages (heartbeats, job events, outcomes) the "
        "lab refused: not signed by the enrolled host they name, or about another host's "
        "job (each is in the audit log, which keeps them audit_retention_days)",
        labels=["task"])
    for task, count in sorted(health.refused.items()):
        refused.add_metric([task], count)
    yield refused
    yield GaugeMetricFamily("latlab_outbox_unsent_messages", "Celery messages stored in the "
                            "outbox and not yet sent to the broker", value=health.outbox_unsent)
    yield GaugeMetricFamily("latlab_outbox_oldest_unsent_age_seconds", "Age of the oldest "
                            "unsent outbox message (0: none)", value=health.outbox_oldest_s)


def _project(health: ProjectHealth, project: str) -> Iterator[Metric]:
    jobs = GaugeMetricFamily("latlab_jobs", "Jobs by state", labels=["project", "state"])
    for state, count in health.jobs.items():
        jobs.add_metric([project, state.value], count)
    yield jobs
    yield from _spread("latlab_recent_jobs_succeeded", "Jobs that succeeded",
                       "latlab_recent_job_duration_seconds",
                       "Durations (start to finish) of the jobs that succeeded",
                       health.job_durations, project)
    yield from _spread("latlab_recent_runs_ingested", "Runs stored (the ingest rate)",
                       "latlab_recent_ingest_latency_seconds",
                       "From the end of a run's measurement to the run stored",
                       health.ingested, project)
    deliveries = GaugeMetricFamily(
        "latlab_recent_alert_deliveries", f"Alert delivery attempts in {service.WINDOW_TEXT}, by "
        "outcome (failed: the receiver refused or was unreachable)",
        labels=["project", "outcome"])
    for ok, count in health.deliveries.items():
        deliveries.add_metric([project, "delivered" if ok else "failed"], count)
    yield deliveries


def _spread(count_name: str, count_help: str, name: str, help_text: str, spread: Spread,
            project: str) -> Iterator[Metric]:
    count = GaugeMetricFamily(count_name, f"{count_help} in {service.WINDOW_TEXT}",
                              labels=["project"])
    count.add_metric([project], spread.count)
    yield count
    quantiles = GaugeMetricFamily(name, f"{help_text}, in {service.WINDOW_TEXT}, by quantile "
                                  "(1: the longest)", labels=["project", "quantile"])
    for quantile, seconds in spread.quantiles.items():
        quantiles.add_metric([project, f"{quantile:g}"], seconds)
    yield quantiles


def _results(results: list[LatestResult], total: int, project: str) -> Iterator[Metric]:
    p50 = GaugeMetricFamily("latlab_result_p50_seconds", "Median latency of each series of a "
                            "suite and scenario's latest run", labels=RESULT_LABELS)
    p99 = GaugeMetricFamily("latlab_result_p99_seconds", "P99 latency of each series of a "
                            "suite and scenario's latest run", labels=RESULT_LABELS)
    throughput = GaugeMetricFamily("latlab_result_throughput", "Throughput (as the suite "
                                   "reports it, e.g. req/s) of each series of a suite and "
                                   "scenario's latest run", labels=RESULT_LABELS)
    for result in results:
        labels = [project, result.suite, result.scenario, result.series]
        for family, value in ((p50, result.p50_s), (p99, result.p99_s),
                              (throughput, result.throughput)):
            if value is not None:
                family.add_metric(labels, value)
    yield from (p50, p99, throughput)
    omitted = GaugeMetricFamily(
        "latlab_result_series_omitted", "Series of latest runs left out: at most "
        f"{service.MAX_RESULT_SERIES} are reported, those of the most recent runs",
        labels=["project"])
    omitted.add_metric([project], total - len(results))
    yield omitted
