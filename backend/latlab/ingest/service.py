"""The one flow that stores and judges a run. A CI submission (`POST /runs`) and a runner's
outcome (`ingest.outcomes`) both come here: the run is stored (`runs.service`), judged by the
CI gate against its baseline and by the SLA rules, and the alerts it raises or clears are
stored with their outbox rows, all in the caller's transaction.

A lab job's run that the gate only suspects of a regression is measured again
(`jobs.confirmation`); when that confirmation run comes back it settles the suspected run:
confirmed (it fails, and the regression alert opens, linking both runs) or unconfirmed
(nobody is alerted)."""

from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from latlab.alerts import history, rules
from latlab.analysis import baselines, compare, gate
from latlab.jobs import confirmation
from latlab.models import Job, Project, Run
from latlab.runs import service as run_service
from latlab.runs import submission
from latlab.runs.keys import label_key
from latlab.suites import service as suite_service
from latlab_contract.result import RunCreate

VARIANT = "variant"  # the label a confirmation job gives its interleaved versions


@dataclass(frozen=True)
class Judgement:
    verdict: str
    reasons: list[dict[str, Any]]
    baseline: Run | None
    gate: gate.GateResult


def ingest(session: Session, project: Project, body: RunCreate, *, request_hash: str,
           idempotency_key: str | None = None, job: Job | None = None
           ) -> submission.Submission:
    """Stores a `latlab.result/v1` document and judges it; a replay is not judged again."""
    stored = submission.submit(
        session, project, body, request_hash=request_hash, idempotency_key=idempotency_key,
        job_id=None if job is None else job.id,
        confirms_run_id=None if job is None else job.confirms_run_id)
    if not stored.replayed:
        judge(session, stored.run)
    return stored


def judge(session: Session, run: Run) -> Judgement:
    """The run's CI verdict (gate and SLA rules) and the alerts it raises or clears."""
    run = run_service.load_run(session, run.id)
    if run.confirms_run_id is not None:
        return _settle(session, run)
    vocabulary = suite_service.run_vocabulary(session, run)
    gate_metrics = suite_service.gate(session, run)
    baseline = baselines.resolve_baseline(session, run)
    comparison = (None if baseline is None
                  else compare.compare_runs(baseline, run, vocabulary))
    confirmable = baseline is not None and confirmation.wanted(session, run)
    result = gate.judge(comparison, gate_metrics, confirmable=confirmable)
    reasons = result.reasons
    if baseline is not None and result.suspected and confirmable:
        trials = gate.confirmation_trials(result)
        job = confirmation.launch(session, run, baseline, trials)
        reasons = [{**r, "message": f"{r['message']}: being confirmed by job {job.id}, "
                                    f"{job.repetitions} trials a side"}
                   if r["kind"] == "suspected-regression" else r for r in reasons]
    breaches = rules.sla_rules(session, run, baseline, vocabulary)
    run.verdict = "fail" if breaches else result.verdict
    run.verdict_reasons = [*reasons, *breaches]
    run.baseline_run_id = None if baseline is None else baseline.id
    if baseline is not None:
        rules.gate_alerts(session, run, baseline, result, gate_metrics)
    history.change_points(session, run, vocabulary)
    return Judgement(run.verdict, run.verdict_reasons, baseline, result)


def _settle(session: Session, check: Run) -> Judgement:
    """A confirmation run: its measurement, with the trials a verdict needs, decides the
    suspected run. Interleaved versions are compared with each other; otherwise the new
    trials are compared with the suspected run's baseline."""
    suspected = run_service.load_run(session, check.confirms_run_id or 0)
    baseline = (None if suspected.baseline_run_id is None
                else run_service.load_run(session, suspected.baseline_run_id))
    vocabulary = suite_service.run_vocabulary(session, check)
    gate_metrics = suite_service.gate(session, check)
    if any(VARIANT in s.labels for s in check.series):
        comparison = compare.compare_runs(check, check, vocabulary,
                                           baseline_labels={VARIANT: "baseline"},
                                           candidate_labels={VARIANT: "candidate"})
    elif baseline is not None:
        comparison = compare.compare_runs(baseline, check, vocabulary)
    else:
        comparison = None
    # This is the confirmation: a regression it tests (one-sided: is the candidate worse?) is
    # confirmed, whatever its trials.
    result = gate.judge(comparison, gate_metrics, confirm_trials=1, confirming=True)
    check.verdict, check.verdict_reasons = result.verdict, result.reasons
    check.baseline_run_id = None if baseline is None else baseline.id
    suspects = {(r["metric"], _key(r["series"])) for r in suspected.verdict_reasons
                if r["kind"] == "suspected-regression"}
    confirmed = [j for j in result.regressed if (j.metric.metric, _key(j.labels)) in suspects]
    suspected.confirmation = "confirmed" if confirmed else "unconfirmed"
    note = (f"confirmed by run {check.id}" if confirmed
            else f"not confirmed: run {check.id} measured it again with more trials")
    suspected.verdict_reasons = [
        {**r, "kind": "regression" if confirmed else r["kind"],
         "message": f"{r['message'].split(': being confirmed')[0]}; {note}"}
        if r["kind"] == "suspected-regression" else r for r in suspected.verdict_reasons]
    if confirmed:
        suspected.verdict = "fail"
    elif suspected.verdict == "inconclusive" and not any(
            r["kind"] in ("too-few-trials", "sla") for r in suspected.verdict_reasons):
        suspected.verdict = "pass"
    if confirmed and baseline is not None:
        rules.gate_alerts(session, suspected, baseline, result, gate_metrics, confirmation=check)
    return Judgement(check.verdict, check.verdict_reasons, baseline, result)


def _key(labels: dict[str, Any]) -> str:
    return label_key({k: v for k, v in labels.items() if k != VARIANT})
