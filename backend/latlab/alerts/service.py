"""Every new run is judged here: against its baseline and the SLA rules. The result is the
run's CI verdict and the alerts it opens, updates or resolves; each alert event is stored in
the outbox (`Notification`) and delivered by a Celery task after the commit."""

import operator
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from latlab.analysis import service as analysis
from latlab.core.clock import get_clock
from latlab.core.errors import Conflict, NotFound
from latlab.core.settings import get_settings
from latlab.core.tasks import enqueue
from latlab.models import (
    Alert,
    AlertState,
    Channel,
    Job,
    Notification,
    Run,
    Schedule,
    Series,
    Severity,
    SlaRule,
)
from latlab.runs.metrics import TIME_UNITS, Vocabulary, quantity
from latlab.suites import service as suite_service
from latlab_contract import INGEST_QUEUE

DELIVER = "alerts.deliver"
OPS: dict[str, Callable[[float, float], bool]] = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
# Histories watched for change points on every new run of the default branch.
HISTORY_METRICS = ("p99", "throughput")


@dataclass
class Judgement:
    verdict: str
    reasons: list[dict[str, Any]]


def evaluate_run(session: Session, run: Run) -> Judgement:
    """The CI gate of a new run, and the alerts it raises or clears."""
    run = analysis.load_run(session, run.id)
    vocabulary = suite_service.run_vocabulary(session, run)
    baseline = analysis.resolve_baseline(session, run)
    reasons: list[dict[str, Any]] = []
    comparison = (None if baseline is None
                  else analysis.compare_runs(baseline, run, vocabulary))
    if comparison is not None:
        reasons += _judge_changes(session, run, comparison,
                                  suite_service.gate(session, run.suite))
    reasons += _judge_rules(session, run, baseline, vocabulary)
    _judge_history(session, run, vocabulary)
    failing = [r for r in reasons if r["kind"] in ("regression", "sla")]
    verdict = "fail" if failing else ("no-baseline" if baseline is None else "pass")
    run.verdict = verdict
    run.verdict_reasons = reasons
    run.baseline_run_id = None if baseline is None else baseline.id
    return Judgement(verdict, reasons)


def _judge_changes(session: Session, run: Run, comparison: analysis.RunComparison,
                   gate: tuple[str, ...]) -> list[dict[str, Any]]:
    """The built-in rule: one alert per series when one of the suite's gate metrics regresses
    against the baseline (and one when it improves suspiciously much), naming the first in
    the suite's order."""
    reasons = []
    settings = get_settings()
    for series in comparison.series:
        gated = sorted((m for m in series.metrics if m.metric in gate and m.reliable),
                       key=lambda m: gate.index(m.metric))
        regressed = [m for m in gated if m.comparison.verdict == "regressed"]
        improved = [m for m in gated if m.comparison.verdict == "improved"
                    and m.comparison.delta_pct is not None
                    and abs(m.comparison.delta_pct) >= settings.improvement_alert_pct]
        for item in regressed:
            result = item.comparison
            reasons.append({"kind": "regression", "series": series.labels,
                            "metric": item.metric, "message": result.reason,
                            "baseline": result.baseline, "candidate": result.candidate,
                            "p_value": result.p_value})
        key = analysis.history_key(run, series.labels)
        name = _series_name(run, series.labels)
        for source, items, kind, severity, note in (
            ("regression", regressed if settings.regression_alerts else [], "regression",
             Severity.critical, ""),
            ("improvement", improved, "improvement", Severity.warning,
             " (a sudden speed-up is often a broken benchmark)"),
        ):
            head = items[0] if items else None
            context = _context(run, series.labels, head.metric if head else "",
                               head.unit if head else "", key)
            if head is not None:
                context.update(value=head.comparison.candidate,
                               baseline_value=head.comparison.baseline,
                               baseline_run_id=comparison.baseline.id)
            others = ", ".join(m.metric for m in items[1:])
            message = "" if head is None else (
                f"{name}: {head.metric} {head.comparison.reason}{note}"
                + (f"; also {others}" if others else ""))
            _raise_or_clear(session, source, head is not None, context, kind=kind,
                            severity=severity, message=message)
    return reasons


def _judge_rules(session: Session, run: Run, baseline: Run | None,
                 vocabulary: Vocabulary) -> list[dict[str, Any]]:
    reasons = []
    rules = session.scalars(select(SlaRule).where(
        SlaRule.project_id == run.project_id, SlaRule.suite == run.suite, SlaRule.enabled))
    for rule in rules:
        if rule.scenario not in (None, run.scenario):
            continue
        for series in run.series:
            if any(series.labels.get(k) != v for k, v in rule.series_selector.items()):
                continue
            observed = _rule_value(rule, series, baseline, vocabulary)
            if observed is None:
                continue
            value, compared, baseline_value = observed
            breached = OPS[rule.op](compared, rule.threshold)
            key = analysis.history_key(run, series.labels)
            info = vocabulary.info(rule.metric)
            context = _context(run, series.labels, rule.metric, info.unit, key)
            context.update(value=value, threshold=rule.threshold, baseline_value=baseline_value,
                           baseline_run_id=None if baseline is None else baseline.id,
                           rule_id=rule.id, channel_ids=rule.channel_ids)
            message = (f"{_series_name(run, series.labels)}: {rule.name} — "
                       f"{rule.metric} {compared:.4g} {rule.op} "
                       f"{rule.threshold:g} {rule.unit}")
            if breached:
                reasons.append({"kind": "sla", "series": series.labels, "metric": rule.metric,
                                "rule_id": rule.id, "severity": rule.severity.value,
                                "message": message, "value": value})
            _raise_or_clear(session, f"rule:{rule.id}", breached, context, kind="sla",
                            severity=rule.severity, message=message)
    return reasons


def _judge_history(session: Session, run: Run, vocabulary: Vocabulary) -> None:
    """Change points in the default branch's history on this host: a shift for the worse
    found at its latest change point opens one alert per (metric, series history); a later
    shift back resolves it. A change point already alerted on is not raised again."""
    if (run.branch or analysis.DEFAULT_BRANCH) != analysis.DEFAULT_BRANCH:
        return
    for series in run.series:
        key = analysis.history_key(run, series.labels)
        for metric in HISTORY_METRICS:
            if analysis.series_value(series, metric) is None:
                continue
            points, found = analysis.trend(session, analysis.TrendQuery(
                suite=run.suite, scenario=run.scenario, label_key=series.label_key,
                metric=metric, project_id=run.project_id, branch=analysis.DEFAULT_BRANCH,
                host=run.host_name))
            if not found:
                continue  # too short or steady a history: nothing to say either way
            latest, info = found[-1], vocabulary.info(metric)
            worse = info.direction != "none" and (
                (latest.after > latest.before) == (info.direction == "lower"))
            at = points[latest.index]
            if worse and session.scalar(select(Alert.id).where(
                    Alert.source == f"change-point:{metric}", Alert.history_key == key,
                    Alert.run_id == at.run_id)) is not None:
                continue  # this change point was alerted on already
            context = _context(run, series.labels, metric, info.unit, key)
            context.update(run_id=at.run_id, value=latest.after, baseline_value=latest.before,
                           baseline_run_id=points[latest.index - 1].run_id)
            shift = ("" if latest.delta_pct is None else f" {latest.delta_pct:+.1f} %")
            message = (f"{_series_name(run, series.labels)}: {metric} shifted{shift} from "
                       f"{quantity(latest.before, info.unit)} to "
                       f"{quantity(latest.after, info.unit)} at run "
                       f"{at.run_id}" + (f" (commit {at.commit[:12]})" if at.commit else ""))
            _raise_or_clear(session, f"change-point:{metric}", worse, context,
                            kind="change-point",
                            severity=Severity.warning, message=message)


def check_missing_data(session: Session) -> int:
    """The missing-data watchdog: a schedule whose latest launch produced no run within its
    job's time limit plus a grace period opens an alert; its next run resolves it."""
    now = get_clock().now()
    grace = timedelta(seconds=get_settings().missing_data_grace_s)
    raised = 0
    for schedule in session.scalars(select(Schedule).where(
            Schedule.enabled, Schedule.last_run_at.is_not(None))):
        assert schedule.last_run_at is not None
        window = timedelta(seconds=int(schedule.spec.get("timeout_s", 900))) + grace
        if now < schedule.last_run_at + window:
            continue
        delivered = session.scalar(
            select(Run.id).join(Job, Job.run_id == Run.id)
            .where(Job.schedule_id == schedule.id, Run.created_at >= schedule.last_run_at)
            .limit(1))
        missing = delivered is None
        raised += missing
        context = {"project_id": schedule.project_id, "suite": schedule.spec["suite"],
                   "scenario": schedule.spec.get("scenario", "default"), "series_labels": {},
                   "metric": "", "unit": "", "history_key": f"schedule:{schedule.id}",
                   "run_id": delivered}
        message = (f"schedule '{schedule.name}' ({context['suite']}/{context['scenario']}, "
                   f"{schedule.cron}) produced no run since its launch at "
                   f"{schedule.last_run_at:%Y-%m-%d %H:%M} UTC")
        _raise_or_clear(session, "missing-data", missing, context, kind="missing-data",
                        severity=Severity.warning, message=message)
    return raised


def _rule_value(rule: SlaRule, series: Series, baseline: Run | None,
                vocabulary: Vocabulary) -> tuple[float, float, float | None] | None:
    """(the series' value, the value compared with the threshold, the baseline's value)."""
    value = analysis.series_value(series, rule.metric)
    if value is None:
        return None
    if rule.kind == "static":
        # The threshold may be in another time unit than the metric ("2 ms" on a ns p99).
        metric_unit, rule_unit = vocabulary.info(rule.metric).unit, rule.unit
        scale = 1.0
        if metric_unit in TIME_UNITS and rule_unit in TIME_UNITS:
            scale = TIME_UNITS[rule_unit] / TIME_UNITS[metric_unit]
        elif rule_unit == "%":
            scale = 0.01
        return value, value / scale, None
    if baseline is None:
        return None
    other = next((s for s in baseline.series if s.label_key == series.label_key), None)
    before = None if other is None else analysis.series_value(other, rule.metric)
    if not before:
        return None
    # Relative rules measure the change in the bad direction, in percent of the baseline.
    worse = (before - value) if vocabulary.info(rule.metric).direction == "higher" else (
        value - before)
    return value, 100.0 * worse / abs(before), before


def _context(run: Run, labels: dict[str, Any], metric: str, unit: str,
             key: str) -> dict[str, Any]:
    return {"project_id": run.project_id, "suite": run.suite, "scenario": run.scenario,
            "series_labels": labels, "metric": metric, "unit": unit, "history_key": key,
            "run_id": run.id}


def _raise_or_clear(session: Session, source: str, active: bool, context: dict[str, Any],
                    *, kind: str, severity: Severity, message: str) -> None:
    """One open alert per (source, history): opened once, updated while the condition
    holds (without a new message), resolved when it clears."""
    now = get_clock().now()
    alert = session.scalar(select(Alert).where(
        Alert.source == source, Alert.history_key == context["history_key"],
        Alert.state != AlertState.resolved).with_for_update())
    if active and alert is None:
        alert = Alert(source=source, kind=kind, severity=severity, state=AlertState.open,
                      message=message, opened_at=now, updated_at=now, occurrences=1,
                      **{k: context.get(k) for k in (
                          "project_id", "suite", "scenario", "series_labels", "metric", "unit",
                          "history_key", "run_id", "value", "threshold", "baseline_value",
                          "baseline_run_id", "rule_id", "channel_ids")})
        session.add(alert)
        session.flush()
        notify(session, alert, "opened")
    elif active and alert is not None:
        alert.occurrences += 1
        alert.updated_at = now
        alert.run_id = context["run_id"]
        alert.value = context.get("value")
        alert.baseline_value = context.get("baseline_value")
        alert.message = message
    elif not active and alert is not None:
        resolution = (f"recovered in run {context['run_id']}" if context.get("run_id")
                      else "recovered")
        resolve(session, alert, by_id=None, resolution=resolution)


def resolve(session: Session, alert: Alert, by_id: int | None, resolution: str) -> None:
    if alert.state is AlertState.resolved:
        raise Conflict(f"alert {alert.id} is already resolved")
    now = get_clock().now()
    alert.state = AlertState.resolved
    alert.resolved_at = now
    alert.resolved_by_id = by_id
    alert.resolution = resolution
    alert.updated_at = now
    notify(session, alert, "resolved")


def acknowledge(alert: Alert, by_id: int) -> None:
    if alert.state is not AlertState.open:
        raise Conflict(f"alert {alert.id} is {alert.state}, not open")
    alert.state = AlertState.acknowledged
    alert.acknowledged_at = get_clock().now()
    alert.acknowledged_by_id = by_id
    alert.updated_at = alert.acknowledged_at


def get_alert(session: Session, alert_id: int) -> Alert:
    alert = session.get(Alert, alert_id, with_for_update=True)
    if alert is None:
        raise NotFound(f"no alert {alert_id}")
    return alert


def notify(session: Session, alert: Alert, event: str) -> list[Notification]:
    """Stores one outbox row per channel (the alert's, else all of its project's) and sends
    their delivery after the commit."""
    query = select(Channel).where(Channel.project_id == alert.project_id)
    if alert.channel_ids:
        query = query.where(Channel.id.in_(alert.channel_ids))
    now = get_clock().now()
    rows = []
    for channel in session.scalars(query):
        row = Notification(alert_id=alert.id, channel_id=channel.id, event=event,
                           payload=payload(alert, event), status="pending", attempts=0,
                           created_at=now, next_attempt_at=now)
        session.add(row)
        rows.append(row)
    session.flush()
    for row in rows:
        enqueue(session, DELIVER, INGEST_QUEUE, notification_id=row.id)
    return rows


def payload(alert: Alert, event: str) -> dict[str, Any]:
    """What the message says, frozen when the event happens."""
    base = get_settings().public_url.rstrip("/")
    compare_url = (f"{base}/compare?baseline={alert.baseline_run_id}&candidate={alert.run_id}"
                   if alert.baseline_run_id and alert.run_id else None)
    return {
        "event": event, "alert_id": alert.id, "kind": alert.kind,
        "severity": alert.severity.value, "suite": alert.suite, "scenario": alert.scenario,
        "series": alert.series_labels, "metric": alert.metric, "unit": alert.unit,
        "value": alert.value, "threshold": alert.threshold,
        "baseline_value": alert.baseline_value, "message": alert.message,
        "run_url": f"{base}/runs/{alert.run_id}" if alert.run_id else None,
        "compare_url": compare_url, "alert_url": f"{base}/alerts/{alert.id}",
        "resolution": alert.resolution,
    }


def backoff(attempts: int) -> timedelta:
    settings = get_settings()
    return timedelta(seconds=min(settings.delivery_backoff_s * 2 ** max(attempts - 1, 0),
                                 settings.delivery_backoff_max_s))


def _series_name(run: Run, labels: dict[str, Any]) -> str:
    named = ", ".join(f"{k}={v}" for k, v in sorted(labels.items()))
    return f"{run.suite}/{run.scenario}" + (f" [{named}]" if named else "")

