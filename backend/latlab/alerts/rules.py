"""Rules a new run is held to: the SLA rules of its project (static, or relative to its
baseline), and the built-in ones on the CI gate's judgement: a confirmed regression of a gate
metric (critical) and a suspiciously large improvement (a sudden speed-up is often a broken
benchmark)."""

import json
import operator
from collections.abc import Callable
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from latlab.alerts.lifecycle import alert_context, raise_or_clear, series_name
from latlab.analysis import baselines
from latlab.analysis.gate import GateResult
from latlab.core.settings import get_settings
from latlab.models import Run, Series, Severity, SlaRule
from latlab.runs import service as run_service
from latlab_contract.vocabulary import TIME_UNITS, Vocabulary

OPS: dict[str, Callable[[float, float], bool]] = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


def sla_rules(session: Session, run: Run, baseline: Run | None,
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
            key = baselines.history_key(run, series.labels)
            info = vocabulary.info(rule.metric)
            context = alert_context(run, series.labels, rule.metric, info.unit, key)
            context.update(value=value, threshold=rule.threshold, baseline_value=baseline_value,
                           baseline_run_id=None if baseline is None else baseline.id,
                           rule_id=rule.id, channel_ids=rule.channel_ids)
            message = (f"{series_name(run, series.labels)}: {rule.name} — "
                       f"{rule.metric} {compared:.4g} {rule.op} "
                       f"{rule.threshold:g} {rule.unit}")
            if breached:
                reasons.append({"kind": "sla", "series": series.labels, "metric": rule.metric,
                                "rule_id": rule.id, "severity": rule.severity.value,
                                "message": message, "value": value})
            raise_or_clear(session, f"rule:{rule.id}", breached, context, kind="sla",
                            severity=rule.severity, message=message)
    return reasons


def gate_alerts(session: Session, run: Run, baseline: Run, result: GateResult,
                gate: tuple[str, ...], confirmation: Run | None = None) -> None:
    """The built-in rule on the gate's judgement, one alert per series: a regression the gate
    tested with enough trials (or a confirmation measured) opens a critical alert naming the
    first gate metric in the suite's order; a large improvement opens a warning. A suspicion
    or an untested change leaves the series' alerts as they are."""
    settings = get_settings()
    series_keys = {json.dumps(j.labels, sort_keys=True) for j in result.judged}
    for labels in (json.loads(k) for k in sorted(series_keys)):
        judged = sorted((j for j in result.judged if j.labels == labels),
                        key=lambda j: gate.index(j.metric.metric))
        if any(j.outcome in ("suspected", "untested") for j in judged):
            continue
        regressed = [j for j in judged if j.outcome == "regressed"]
        improved = [j for j in judged if j.outcome == "improved"
                    and abs(j.metric.comparison.effect) * 100 >= settings.improvement_alert_pct]
        key = baselines.history_key(run, labels)
        name = series_name(run, labels)
        confirmed = (f"; confirmed by run {confirmation.id}" if confirmation is not None
                     else "")
        for source, items, kind, severity, note in (
            ("regression", regressed if settings.regression_alerts else [], "regression",
             Severity.critical, confirmed),
            ("improvement", improved, "improvement", Severity.warning,
             " (a sudden speed-up is often a broken benchmark)"),
        ):
            head = items[0].metric if items else None
            context = alert_context(run, labels, head.metric if head else "",
                                    head.unit if head else "", key)
            if head is not None:
                context.update(value=head.comparison.candidate,
                               baseline_value=head.comparison.baseline,
                               baseline_run_id=baseline.id,
                               confirmation_run_id=None if confirmation is None
                               else confirmation.id)
            others = ", ".join(j.metric.metric for j in items[1:])
            message = "" if head is None else (
                f"{name}: {head.metric} {head.comparison.reason}{note}"
                + (f"; also {others}" if others else ""))
            raise_or_clear(session, source, head is not None, context, kind=kind,
                           severity=severity, message=message)


def _rule_value(rule: SlaRule, series: Series, baseline: Run | None,
                vocabulary: Vocabulary) -> tuple[float, float, float | None] | None:
    """(the series' value, the value compared with the threshold, the baseline's value)."""
    value = run_service.series_value(series, rule.metric)
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
    before = None if other is None else run_service.series_value(other, rule.metric)
    if not before:
        return None
    # Relative rules measure the change in the bad direction, in percent of the baseline.
    worse = (before - value) if vocabulary.info(rule.metric).direction == "higher" else (
        value - before)
    return value, 100.0 * worse / abs(before), before


