"""Alerts from a history rather than one comparison: change points and creeps in the default
branch's history of a series, and schedules that produced no run."""

from datetime import timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from latlab.alerts.lifecycle import alert_context, raise_or_clear, series_name
from latlab.analysis import baselines, creep, thresholds, trends
from latlab.analysis.changepoints import ChangePoint
from latlab.core.clock import get_clock
from latlab.core.settings import get_settings
from latlab.models import Alert, Job, Run, Schedule, Severity
from latlab.runs import service as run_service
from latlab_contract.estimate import MIN_TIMEOUT_S
from latlab_contract.vocabulary import DEFAULT_GATE, MetricInfo, Vocabulary, quantity


def trend_alerts(session: Session, run: Run, vocabulary: Vocabulary,
                 limits: thresholds.Thresholds) -> None:
    """The alerts of the default branch's history of each series of the run (on this host,
    with the run's params) for each default gate metric: its change points and its creep,
    read from one trend."""
    if (run.branch or run_service.DEFAULT_BRANCH) != run_service.DEFAULT_BRANCH:
        return
    for series in run.series:
        key = baselines.history_key(run, series.labels)
        name = series_name(run, series.labels)
        for metric in DEFAULT_GATE:
            if run_service.series_value(series, metric) is None:
                continue
            points, found = trends.trend(session, trends.TrendQuery(
                suite=run.suite, scenario=run.scenario, label_key=series.label_key,
                metric=metric, params=run.params, project_id=run.project_id,
                branch=run_service.DEFAULT_BRANCH, host=run.host_name))
            info = vocabulary.info(metric)
            context = alert_context(run, series.labels, metric, info.unit, key)
            latest = found[-1] if found else None
            _change_point(session, points, latest, info, context, name)
            recent = points[-limits.window:]
            # A rise the latest change point names is its alert's, not a creep.
            shift = (points[latest.index] if latest is not None and _worse(latest, info)
                     and latest.index >= len(points) - len(recent) else None)
            _creep(session, recent, info, limits, context, name, shift)


def _change_point(session: Session, points: list[trends.TrendPoint],
                  latest: ChangePoint | None, info: MetricInfo, context: dict[str, Any],
                  name: str) -> None:
    """A shift for the worse found at the history's latest change point opens one alert per
    (metric, series history); a later shift back resolves it. A change point already alerted
    on is not raised again."""
    if latest is None:
        return  # too short or steady a history: nothing to say either way
    source, worse = f"change-point:{info.name}", _worse(latest, info)
    at = points[latest.index]
    if worse and session.scalar(select(Alert.id).where(
            Alert.source == source, Alert.history_key == context["history_key"],
            Alert.run_id == at.run_id)) is not None:
        return  # this change point was alerted on already
    shift = ("" if latest.delta_pct is None else f" {latest.delta_pct:+.1f} %")
    message = (f"{name}: {info.name} shifted{shift} from "
               f"{quantity(latest.before, info.unit)} to "
               f"{quantity(latest.after, info.unit)} at run "
               f"{at.run_id}" + (f" (commit {at.commit[:12]})" if at.commit else ""))
    raise_or_clear(session, source, worse, {
        **context, "run_id": at.run_id, "value": latest.after,
        "baseline_value": latest.before, "baseline_run_id": points[latest.index - 1].run_id},
        kind="change-point", severity=Severity.warning, message=message)


def _creep(session: Session, points: list[trends.TrendPoint], info: MetricInfo,
           limits: thresholds.Thresholds, context: dict[str, Any], name: str,
           shift: trends.TrendPoint | None) -> None:
    """The history's newest runs (a gate window's worth) creeping the bad way
    (`analysis.creep`, at the gate's false-alarm level and minimum effect) open one alert per
    (metric, series history), updated while they creep; a run after which they no longer do
    resolves it, as does a shift for the worse among them (`shift`, the run of the history's
    latest change point), whose change-point alert names the rise."""
    found = None if shift is not None else creep.detect(
        [p.value for p in points], info.direction, min_effect=limits.min_effect,
        alpha=limits.false_alarm)
    message = ""
    if found is not None:
        context = {**context, "value": found.after, "baseline_value": found.before,
                   "baseline_run_id": points[0].run_id}
        message = (f"{name}: {info.name} crept {100 * found.change:+.1f} % over its last "
                   f"{found.runs} runs on {run_service.DEFAULT_BRANCH} (from run "
                   f"{points[0].run_id}), from {quantity(found.before, info.unit)} to "
                   f"{quantity(found.after, info.unit)} (the medians of their oldest and "
                   f"newest thirds; Mann-Kendall p = {found.p_value:.2g})")
    raise_or_clear(session, f"creep:{info.name}", found is not None, context, kind="creep",
                   severity=Severity.warning, message=message,
                   resolution=None if shift is None else (
                       f"a shift at run {shift.run_id}: its change-point alert names it"))


def _worse(change: ChangePoint, info: MetricInfo) -> bool:
    """Whether a change point shifts the metric the bad way."""
    return info.direction != "none" and (
        (change.after > change.before) == (info.direction == "lower"))


def check_missing_data(session: Session) -> int:
    """The missing-data watchdog: a schedule whose latest launch produced no run within its
    job's time limit plus a grace period opens an alert; its next run resolves it."""
    now = get_clock().now()
    grace = timedelta(seconds=get_settings().missing_data_grace_s)
    raised = 0
    for schedule in session.scalars(select(Schedule).where(
            Schedule.enabled, Schedule.last_run_at.is_not(None))):
        assert schedule.last_run_at is not None
        # The time limit its latest job was given (its own, or its estimate's).
        limit = session.scalar(select(Job.timeout_s).where(Job.schedule_id == schedule.id)
                               .order_by(Job.id.desc()).limit(1))
        window = timedelta(seconds=limit or MIN_TIMEOUT_S) + grace
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
        raise_or_clear(session, "missing-data", missing, context, kind="missing-data",
                        severity=Severity.warning, message=message)
    return raised


