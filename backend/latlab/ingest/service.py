"""The one flow that stores and judges a run. A CI submission (`POST /runs`) and a runner's
outcome (`ingest.outcomes`) both come here: the run is stored (`runs.service`), marked with
the lab's annotations when its host or suite changed since the previous run (`annotations`),
judged by the CI gate against its baseline and by the SLA rules, and the alerts it raises or
clears are stored with their outbox rows, all in the caller's transaction.

A lab job's run that the gate only suspects of a regression is measured again
(`jobs.confirmation`); when that confirmation run comes back it settles the suspected run:
confirmed (it fails, and the regression alert opens, linking both runs) or unconfirmed
(nobody is alerted)."""

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from latlab.alerts import history, rules
from latlab.analysis import baselines, compare, coverage, gate, thresholds, tries
from latlab.analysis.stats import ALPHA
from latlab.analysis.window import window_stats
from latlab.annotations import service as annotations
from latlab.bisections import regressions
from latlab.jobs import confirmation, stages
from latlab.jobs import service as job_service
from latlab.models import Job, JobStatus, Project, Run
from latlab.runs import extension, overview, submission
from latlab.runs import service as run_service
from latlab.runs.keys import label_key
from latlab.suites import service as suite_service
from latlab_contract.result import RunCreate
from latlab_contract.vocabulary import MetricInfo, Vocabulary

VARIANT = "variant"  # the label a confirmation job gives its interleaved versions
# ... a suite's versions, or (`tries.SIDE`) a repository's commits.
INTERLEAVED = (({VARIANT: "baseline"}, {VARIANT: "candidate"}), (tries.BASE, tries.HEAD))


@dataclass(frozen=True)
class Judgement:
    verdict: str
    reasons: list[dict[str, Any]]
    baseline: Run | None
    gate: gate.GateResult


def ingest(session: Session, project: Project, body: RunCreate, *, request_hash: str,
           idempotency_key: str | None = None, job: Job | None = None
           ) -> submission.Submission:
    """Stores a `latlab.result/v1` document and judges it; a replay is not judged again. A
    try job's later stage adds its trials to the job's run, which is judged again on all of
    them (`jobs.stages`)."""
    if job is not None and job.stages is not None:
        stages.record(job, body.started_at, body.finished_at)
        if job.run_id is not None:
            run = run_service.load_run(session, job.run_id)
            extension.extend(session, run, body)
            judge(session, run)
            return submission.Submission(run, replayed=False)
    stored = submission.submit(
        session, project, body, request_hash=request_hash, idempotency_key=idempotency_key,
        job_id=None if job is None else job.id,
        confirms_run_id=None if job is None else job.confirms_run_id)
    if not stored.replayed:
        annotations.notice(session, stored.run)
        judge(session, stored.run)
    return stored


def judge(session: Session, run: Run) -> Judgement:
    """The run's CI verdict (gate and SLA rules) and the alerts it raises or clears."""
    run = run_service.load_run(session, run.id)
    judgement = _judge(session, run)
    overview.remember_headline(session, run)
    return judgement


def _judge(session: Session, run: Run) -> Judgement:
    if run.confirms_run_id is not None:
        return _settle(session, run)
    job = None if run.job_id is None else session.get(Job, run.job_id)
    if job is not None and job.source is not None and job.source.get("base"):
        return _try(session, run, job)
    vocabulary = suite_service.run_vocabulary(session, run)
    gate_metrics = suite_service.gate(session, run)
    pinned = baselines.pinned_baseline(session, run)
    baseline = pinned or baselines.resolve_baseline(session, run)
    confirmable = baseline is not None and confirmation.wanted(session, run)
    # A CI run is judged against its history; a pinned baseline, or a lab job the lab will
    # measure again, against one run.
    limits = _limits(session, run)
    asked = tuple(run.gate or ())
    # What the harness did not print (on either side) is not judged unless the submission
    # named it.
    skipped = coverage.left_out(run, None, gate_metrics, asked)
    by_history = (None if pinned is not None or confirmable
                  else _against_history(session, run, gate_metrics, vocabulary, limits,
                                        skipped))
    if by_history is not None:
        result, baseline = by_history
        reasons = result.reasons
    else:
        skipped = coverage.left_out(run, baseline, gate_metrics, asked)
        comparison = (None if baseline is None else compare.compare_runs(
            baseline, run, vocabulary, min_effect=limits.min_effect))
        result = gate.judge(comparison, gate_metrics, confirmable=confirmable,
                            min_effect=limits.min_effect, skip=skipped)
        reasons = result.reasons
        if baseline is not None and result.suspected and confirmable:
            trials = gate.confirmation_trials(result)
            job = confirmation.launch(session, run, baseline, trials)
            reasons = [{**r, "message": f"{r['message']}: being confirmed by job {job.id}, "
                                        f"{job.repetitions} trials a side"}
                       if r["kind"] == "suspected-regression" else r for r in reasons]
    verdict = result.verdict
    if baseline is not None:
        judged = {(label_key(j.labels), j.metric.metric) for j in result.judged}
        reasons = [*reasons, *coverage.not_compared(run, baseline, judged, gate_metrics,
                                                    skipped, by_history is not None)]
        if not judged:  # nothing was compared: no verdict on evidence that is not there
            verdict = "no-baseline"
    errors = coverage.failures(run, limits)
    breaches = rules.sla_rules(session, run, baseline, vocabulary)
    failing = breaches or any(r["kind"] == "errors" for r in errors)
    run.verdict = "fail" if failing else verdict
    run.verdict_reasons = [*reasons, *errors, *breaches]
    run.baseline_run_id = None if baseline is None else baseline.id
    run.gate_evidence = result.evidence
    if baseline is not None:
        rules.gate_alerts(session, run, baseline, result, gate_metrics)
    history.trend_alerts(session, run, vocabulary, limits)
    return Judgement(run.verdict, run.verdict_reasons, baseline, result)


def _limits(session: Session, run: Run) -> thresholds.Thresholds:
    """The gate's thresholds for the run: its project's, for its suite and scenario."""
    project = session.get(Project, run.project_id)
    return thresholds.effective(project.gate_settings if project else {}, run.suite,
                                run.scenario)


def _against_history(session: Session, run: Run, gate_metrics: tuple[str, ...],
                     vocabulary: Vocabulary, limits: thresholds.Thresholds,
                     skipped: set[tuple[str, str]]
                     ) -> tuple[gate.GateResult, Run] | None:
    """The gate on the run's series against windows of their history (`gate.judge_window`),
    and the newest run of those windows (the comparison the verdict links to); None when no
    gated metric of any series has a window of `MIN_WINDOW_RUNS` runs. The run's own branch
    is tried first when it has history of its own, then its start point's branch up to the
    start commit, then the default branch. A statistic its harness did not print (`skipped`)
    is not judged."""
    for branch, until in _window_branches(session, run):
        windows = baselines.history_windows(session, run, gate_metrics, limits.window,
                                            branch=branch, until=until)
        candidates: list[tuple[dict[str, Any], MetricInfo, tuple[float, ...]]] = []
        chosen: list[gate.Window] = []
        for series in run.series:
            for metric in gate_metrics:
                history_runs = windows.get((series.label_key, metric), [])
                stats = window_stats([item.values for item in history_runs])
                values = tuple(compare.trial_values(series, metric))
                if stats is None or not values or coverage.why_not(
                        series, metric, skipped) is not None:
                    continue
                candidates.append((series.labels, vocabulary.info(metric), values))
                chosen.append(gate.Window(branch, history_runs, stats))
        if candidates:
            newest = max((w.runs[-1] for w in chosen), key=lambda r: (r.started_at, r.run_id))
            return (gate.judge_window(candidates, chosen, limits),
                    run_service.load_run(session, newest.run_id))
    return None


def _window_branches(session: Session, run: Run) -> list[tuple[str, datetime | None]]:
    """The histories a run may be judged against, in order: its own branch's, its start
    point's (up to the start commit's run), the default branch's."""
    branches: list[tuple[str, datetime | None]] = []
    if run.branch and run.branch != run_service.DEFAULT_BRANCH:
        branches.append((run.branch, None))
    if run.start_branch:
        branches.append((run.start_branch, run_service.run_at_commit(
            session, run, run.start_branch, run.start_commit)))
    if run.start_branch != run_service.DEFAULT_BRANCH:
        branches.append((run_service.DEFAULT_BRANCH, None))
    return branches


def _try(session: Session, run: Run, job: Job) -> Judgement:
    """A try job's run: its head against its base, measured beside it (`analysis.tries`),
    at this look of its stages; undecided, the job measures more (`jobs.stages`). No history,
    baseline or alert is involved, the failures its programs reported are (and end it)."""
    vocabulary = suite_service.run_vocabulary(session, run)
    limits = _limits(session, run)
    comparison = compare.compare_runs(run, run, vocabulary, baseline_labels=tries.BASE,
                                       candidate_labels=tries.HEAD,
                                       min_effect=limits.min_effect)
    staged = job.stages is not None
    verdict, reasons = tries.judge(comparison, suite_service.gate(session, run),
                                   limits.min_effect, tries.LOOK_ALPHA if staged else ALPHA)
    errors = coverage.failures(run, limits)
    if staged:
        job.run_id = run.id  # the one run its stages add their trials to
        reasons = [*reasons, _stage(job, reasons, bool(errors), limits.min_effect)]
        if job.status is JobStatus.queued:
            verdict = "inconclusive"
    run.verdict = "fail" if any(r["kind"] == "errors" for r in errors) else verdict
    run.verdict_reasons = [*reasons, *errors]
    return Judgement(run.verdict, run.verdict_reasons, None, gate.GateResult(verdict))


def _stage(job: Job, reasons: list[dict[str, Any]], failed: bool, min_effect: float
           ) -> dict[str, Any]:
    """What this look of a try job decided, queueing its next stage when undecided."""
    number, looks = stages.look(job)
    trials = stages.measured(job)
    def said(message: str) -> dict[str, Any]:
        return {"kind": "stages", "series": {}, "metric": "", "message": message}

    at = (f"look {number} of {looks}, {trials} trials a side, {stages.spent_s(job) / 60:.1f} "
          f"min of lab time; "
          f"each look tests at {tries.LOOK_ALPHA:.3g}")
    if failed:
        return said(f"stopped at {at}: its programs failed")
    if tries.decided(reasons, min_effect):
        return said(f"decided at {at}")
    more, why = stages.next_stage(job)
    if more is None:
        return said(f"undecided at {at}; stopped at {why}")
    job_service.measure_more(job, more)
    return said(f"undecided at {at}: measuring {more} more trials a side (look {number + 1} "
                f"of {looks})")


def _settle(session: Session, check: Run) -> Judgement:
    """A confirmation run: its measurement, with the trials a verdict needs, decides the
    suspected run. Interleaved versions are compared with each other; otherwise the new
    trials are compared with the suspected run's baseline."""
    suspected = run_service.load_run(session, check.confirms_run_id or 0)
    baseline = (None if suspected.baseline_run_id is None
                else run_service.load_run(session, suspected.baseline_run_id))
    vocabulary = suite_service.run_vocabulary(session, check)
    gate_metrics = suite_service.gate(session, check)
    min_effect = _limits(session, check).min_effect
    sides = next(((before, after) for before, after in INTERLEAVED
                  if any(set(before) & set(s.labels) for s in check.series)), None)
    if sides is not None:
        comparison = compare.compare_runs(check, check, vocabulary, baseline_labels=sides[0],
                                           candidate_labels=sides[1], min_effect=min_effect)
    elif baseline is not None:
        comparison = compare.compare_runs(baseline, check, vocabulary, min_effect=min_effect)
    else:
        comparison = None
    # This is the confirmation: a regression it tests (one-sided: is the candidate worse?) is
    # confirmed, whatever its trials.
    result = gate.judge(comparison, gate_metrics, confirm_trials=1, confirming=True,
                        min_effect=min_effect)
    check.verdict, check.verdict_reasons = result.verdict, result.reasons
    check.baseline_run_id = None if baseline is None else baseline.id
    suspects = {(r["metric"], _key(r["series"])) for r in suspected.verdict_reasons
                if r["kind"] == "suspected-regression"}
    shown = {(j.metric.metric, _key(j.labels)) for j in result.regressed} & suspects
    suspected.confirmation = "confirmed" if shown else "unconfirmed"
    # Each suspicion says what the measurement showed of it: one it did not show stays a
    # suspicion, even when another one of the run was confirmed.
    suspected.verdict_reasons = [
        _settled_reason(r, (r["metric"], _key(r["series"])) in shown, check.id)
        if r["kind"] == "suspected-regression" else r for r in suspected.verdict_reasons]
    if shown:
        suspected.verdict = "fail"
    elif suspected.verdict == "inconclusive" and not any(
            r["kind"] in ("too-few-trials", "sla") for r in suspected.verdict_reasons):
        suspected.verdict = "pass"
    if shown and baseline is not None:
        rules.gate_alerts(session, suspected, baseline, result, gate_metrics, confirmation=check)
        project = session.get(Project, suspected.project_id)
        assert project is not None
        regressions.for_regression(session, project, suspected, baseline)
    overview.remember_headline(session, suspected)  # a confirmed series is its headline now
    return Judgement(check.verdict, check.verdict_reasons, baseline, result)


def _settled_reason(reason: dict[str, Any], shown: bool, check: int) -> dict[str, Any]:
    note = (f"confirmed by run {check}" if shown
            else f"not confirmed: run {check} measured it again with more trials")
    return {**reason, "kind": "regression" if shown else reason["kind"],
            "message": f"{reason['message'].split(': being confirmed')[0]}; {note}"}


def _key(labels: dict[str, Any]) -> str:
    return label_key({k: v for k, v in labels.items() if k not in (VARIANT, tries.SIDE)})
