"""Alerts from a history rather than one comparison: change points in the default branch's
history of a series, and schedules that produced no run."""

from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from latlab.alerts.lifecycle import alert_context, raise_or_clear, series_name
from latlab.analysis import baselines, trends
from latlab.core.clock import get_clock
from latlab.core.settings import get_settings
from latlab.models import Alert, Job, Run, Schedule, Severity
from latlab.runs import service as run_service
from latlab_contract.estimate import MIN_TIMEOUT_S
from latlab_contract.vocabulary import DEFAULT_GATE, Vocabulary, quantity

# Histories watched for change points on every new run of the default branch.


def change_points(session: Session, run: Run, vocabulary: Vocabulary) -> None:
    """Change points in the default branch's history on this host with the run's params: a
    shift for the worse found at its latest change point opens one alert per (metric, series
    history); a later shift back resolves it. A change point already alerted on is not raised
    again."""
    if (run.branch or run_service.DEFAULT_BRANCH) != run_service.DEFAULT_BRANCH:
        return
    for series in run.series:
        key = baselines.history_key(run, series.labels)
        for metric in DEFAULT_GATE:
            if run_service.series_value(series, metric) is None:
                continue
            points, found = trends.trend(session, trends.TrendQuery(
                suite=run.suite, scenario=run.scenario, label_key=series.label_key,
                metric=metric, params=run.params, project_id=run.project_id,
                branch=run_service.DEFAULT_BRANCH, host=run.host_name))
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
            context = alert_context(run, series.labels, metric, info.unit, key)
            context.update(run_id=at.run_id, value=latest.after, baseline_value=latest.before,
                           baseline_run_id=points[latest.index - 1].run_id)
            shift = ("" if latest.delta_pct is None else f" {latest.delta_pct:+.1f} %")
            message = (f"{series_name(run, series.labels)}: {metric} shifted{shift} from "
                       f"{quantity(latest.before, info.unit)} to "
                       f"{quantity(latest.after, info.unit)} at run "
                       f"{at.run_id}" + (f" (commit {at.commit[:12]})" if at.commit else ""))
            raise_or_clear(session, f"change-point:{metric}", worse, context,
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


