"""Which commit did it: a bisection searches a repository's first-parent history between a
good and a bad commit for the one that made a series' metric worse. Every step is a try job
(`jobs.stages`: both commits built on one host, trials interleaved, measured until decided,
judged as any try job is), so each says what it measured.

1. The ends first, side by side: good against bad. A regression they do not show ends the
   search, "not reproduced", with what was measured.
2. Then halving: the newest commit known good against the middle of the range left; the
   middle regressed -> it is the new bad end, else the new good end. A commit that does not
   build is skipped (the nearest one to the middle that may is measured instead), and said
   so; when only such commits are left the search ends on the range ("narrowed").
3. The culprit is measured beside its parent (unless the last step did exactly that): its
   change, interval and share of the whole change the ends showed. Under three quarters of
   the whole, the parts of the range before and after it are searched the same way (their
   ends first), once: every culprit is named with its share, and what is still unexplained
   is said.

The lab's beat advances bisections (`advance`) whenever a step's job has ended, so a lab that
restarts resumes them where they were; a step whose job failed for another reason (not a
build of its head) ends the search, saying why. A cap of lab time ends it with the narrowest
range found. Two bisections of one range, suite, series and metric are one."""

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from latlab.alerts.lifecycle import notify
from latlab.bisections.schemas import BisectionCreate
from latlab.core.clock import get_clock
from latlab.core.errors import Conflict
from latlab.jobs import service as job_service
from latlab.jobs import stages
from latlab.jobs.schemas import Compare, JobCreate
from latlab.models import Alert, Bisection, Job, JobStatus, Project, Run
from latlab.models.job import ENDED_JOB
from latlab.repos import git
from latlab.repos import service as repos
from latlab.runs import service as run_service

MAX_COMMITS = 1024
RUNNING = "running"
ENDED = ("found", "not-reproduced", "narrowed", "failed", "cancelled")
# A culprit whose own change is under this share of the whole is not the whole story: the
# search goes on to both sides of it.
WHOLE_SHARE = 0.75


def create(session: Session, project: Project, request: BisectionCreate,
           created_by_id: int | None) -> tuple[Bisection, bool]:
    """The bisection of the request's range (a new one, its first step launched, or the one
    already searching or done for the same question), and whether it is new."""
    repo = repos.get(session, project.id, request.repo, "$.repo")
    good = git.resolve(repo, request.good, "$.good")
    bad = git.resolve(repo, request.bad, "$.bad")
    history = git.first_parent(repo, good, bad, MAX_COMMITS)
    same = session.scalar(select(Bisection).where(
        Bisection.project_id == project.id, Bisection.repository_id == repo.id,
        Bisection.status.not_in(("failed", "cancelled")), Bisection.suite == request.suite,
        Bisection.scenario == request.scenario, Bisection.metric == request.metric,
        Bisection.params == request.params, Bisection.series == request.series,
        Bisection.commits[0]["sha"].astext == good,
        Bisection.commits[-1]["sha"].astext == bad))
    if same is not None:
        return same, False
    bisection = Bisection(
        project_id=project.id, repository_id=repo.id, repo=repo.name, suite=request.suite,
        scenario=request.scenario, params=request.params, series=request.series,
        metric=request.metric, host_tags=request.host_tags,
        commits=[{"sha": c.sha, "subject": c.subject, "author": c.author} for c in history],
        good=0, bad=len(history) - 1, unbuildable=[], steps=[], status=RUNNING,
        max_minutes=request.max_minutes, created_by_id=created_by_id,
        created_at=get_clock().now(), repetitions=request.repetitions)
    session.add(bisection)
    session.flush()
    _measure(session, bisection, 0, len(history) - 1)
    return bisection, True


def cancel(session: Session, bisection: Bisection) -> None:
    """Ends a running bisection and cancels the job of its step."""
    if bisection.status != RUNNING:
        raise Conflict(f"bisection {bisection.id} has already ended ({bisection.status})")
    job = _step_job(session, bisection)
    if job is not None and job.status not in ENDED_JOB:
        job_service.cancel(session, job)
    _end(bisection, "cancelled", None, "cancelled by request")
    _tell(session, bisection)


def advance(session: Session) -> list[Bisection]:
    """Moves every running bisection whose step has ended on to its next step or its end."""
    moved = []
    for bisection in session.scalars(select(Bisection).where(Bisection.status == RUNNING)
                                     .order_by(Bisection.id).with_for_update(skip_locked=True)):
        job = _step_job(session, bisection)
        if job is None or job.status in ENDED_JOB:
            _settle(session, bisection, job)
            if bisection.status != RUNNING:
                _tell(session, bisection)
            moved.append(bisection)
    return moved


def _tell(session: Session, bisection: Bisection) -> None:
    """The alerts whose regression it searched hear how it ended, once."""
    for alert in session.scalars(select(Alert).where(Alert.bisection_id == bisection.id)):
        labels = ", ".join(f"{k}={v}" for k, v in sorted(alert.series_labels.items()))
        notify(session, alert, "bisected",
               f"{alert.suite}/{alert.scenario} [{labels}]: {bisection.message}")


def state(bisection: Bisection, index: int) -> str:
    """What the search knows of a commit of its range."""
    sha = bisection.commits[index]["sha"]
    if any(culprit["sha"] == sha for culprit in _culprits(bisection)):
        return "culprit"
    if sha in bisection.unbuildable:
        return "unbuildable"
    if index <= bisection.good:
        return "good"
    return "bad" if index >= bisection.bad else "unknown"


def _settle(session: Session, bisection: Bisection, job: Job | None) -> None:
    """Reads the step's job, then takes the next step or ends."""
    step = dict(bisection.steps[-1])
    if job is None or job.status is not JobStatus.succeeded:
        _unmeasured(session, bisection, step, job)
        return
    assert job.run_id is not None
    run = run_service.load_run(session, job.run_id)
    judged = _judged(run, bisection)
    if judged is None:
        _record(bisection, {**step, "run_id": run.id})
        _end(bisection, "failed", None, f"step {len(bisection.steps)}'s run {run.id} judged "
             f"no {bisection.metric} of a series with {bisection.series or 'any labels'}")
        return
    step.update(run_id=run.id, outcome=judged["outcome"], change=_change(judged),
                interval=judged.get("interval"), detectable=judged.get("detectable"),
                minutes=_minutes(job), said=judged["message"])
    _record(bisection, step)
    regressed = judged["outcome"] == "regressed"
    if step["kind"] == "ends":
        if not regressed and bisection.pending is None:
            _end(bisection, "not-reproduced", None,
                 f"not reproduced: {bisection.commits[-1]['sha'][:10]} measured beside "
                 f"{bisection.commits[0]['sha'][:10]} did not regress ({judged['message']})")
            return
        if not regressed:  # a part of the range left after a culprit: nothing more there
            _next_range(session, bisection)
            return
    elif step["kind"] == "culprit":
        _found(session, bisection, step, regressed)
        return
    elif regressed:
        bisection.bad = step["head_index"]
    else:
        bisection.good = step["head_index"]
    _next(session, bisection)


def _unmeasured(session: Session, bisection: Bisection, step: dict[str, Any],
                job: Job | None) -> None:
    """A step whose job did not succeed: a search step's head that does not build is
    skipped; anything else ends the search, saying why."""
    reason = "its job was removed" if job is None else (
        f"job {job.id} {job.status}: {job.error}")
    error = job.error or "" if job is not None else ""
    if error.startswith(f"building {bisection.repo} at {step['head'][:12]} ") and (
            step["kind"] == "search"):
        assert job is not None
        _record(bisection, {**step, "outcome": "unbuildable", "said": error,
                            "minutes": _minutes(job)})
        bisection.unbuildable = [*bisection.unbuildable, step["head"]]
        _next(session, bisection)
        return
    if error.startswith(f"fetching {bisection.repo} at "):
        reason += (" (was the repository's history rewritten? a bisection's commits must "
                   "stay fetchable)")
    _record(bisection, {**step, "said": reason})
    _end(bisection, "failed", None, f"step {len(bisection.steps)} ({step['base'][:10]} "
         f"against {step['head'][:10]}) did not measure: {reason}")


def _next(session: Session, bisection: Bisection) -> None:
    """The next step, or the end the search has come to."""
    if _capped(bisection):
        cap = f"its cap of lab time ({bisection.max_minutes} min) was reached"
        if _culprits(bisection):
            _finish(bisection, f"; {cap} before the rest of the range was searched")
        else:
            _narrowed(bisection, cap)
        return
    if bisection.bad - bisection.good == 1:
        last = bisection.steps[-1]
        if (last["base_index"], last["head_index"]) == (bisection.good, bisection.bad):
            _found(session, bisection, last, True)
        else:
            _measure(session, bisection, bisection.good, bisection.bad, "culprit")
        return
    middle = _middle(bisection)
    if middle is None:
        _narrowed(bisection, f"the {bisection.bad - bisection.good - 1} commits between do not "
                  f"build")
        return
    _measure(session, bisection, bisection.good, middle)


def _middle(bisection: Bisection) -> int | None:
    """The commit strictly between the ends nearest the middle that may build."""
    good, bad = bisection.good, bisection.bad
    middle = (good + bad) // 2
    between = sorted(range(good + 1, bad), key=lambda i: (abs(i - middle), i))
    return next((i for i in between
                 if bisection.commits[i]["sha"] not in bisection.unbuildable), None)


def _measure(session: Session, bisection: Bisection, base: int, head: int,
             kind: str | None = None) -> None:
    """Launches a step: a try job of two commits of the range."""
    shas = [bisection.commits[i]["sha"] for i in (base, head)]
    step_kind = kind or ("ends" if not bisection.steps else "search")
    try:
        job, = job_service.create_jobs(session, session.get_one(Project, bisection.project_id),
                                       JobCreate(
            suite=bisection.suite, scenario=bisection.scenario, params=bisection.params,
            host_tags=bisection.host_tags, repetitions=bisection.repetitions,
            repo=bisection.repo, compare=Compare(base=shas[0], head=shas[1]),
            # The culprit beside its parent: where the time went, when it is found.
            profile=step_kind == "culprit"), created_by_id=bisection.created_by_id)
    except Conflict as error:  # no host offers the suite now: the search cannot go on
        _end(bisection, "failed", None, f"cannot measure {shas[0][:10]} against "
             f"{shas[1][:10]}: {error.detail}")
        return
    job.bisection_id = bisection.id
    bisection.steps = [*bisection.steps, {
        "kind": step_kind, "base_index": base, "head_index": head, "base": shas[0],
        "head": shas[1], "job_id": job.id}]


def _found(session: Session, bisection: Bisection, step: dict[str, Any],
           regressed: bool) -> None:
    """The search led to a commit, measured beside its parent. The first one found, when it
    is under `WHOLE_SHARE` of the whole change, sends the search on to both sides of it: the
    ends of each part measured, the part that regressed searched in turn."""
    culprit = bisection.commits[step["head_index"]]
    found = _culprits(bisection)
    if regressed:
        whole = bisection.steps[0].get("change")
        share = None if not whole or step.get("change") is None else step["change"] / whole
        found.append({**culprit, "change": step.get("change"), "interval": step.get("interval"),
                      "share": share, "run_id": step.get("run_id")})
        bisection.result = {"culprit": max(found, key=lambda c: c["share"] or 0),
                            "culprits": found}
        if bisection.pending is None and share is not None and share < WHOLE_SHARE:
            at, last = step["head_index"], len(bisection.commits) - 1
            bisection.pending = [part for part in ([0, at - 1], [at, last])
                                 if part[1] > part[0]]
    elif not found:
        _narrowed(bisection, f"{culprit['sha'][:10]} measured beside its parent did not "
                  f"regress, though the search led to it (the change may be spread over "
                  f"several commits)")
        return
    _next_range(session, bisection)


def _next_range(session: Session, bisection: Bisection) -> None:
    """The ends of the next part of the range left to search, or the end."""
    if not bisection.pending or _capped(bisection):
        _finish(bisection)
        return
    (good, bad), *rest = bisection.pending
    bisection.pending = rest
    bisection.good, bisection.bad = good, bad
    # A pair an earlier step measured is not measured again.
    earlier = next((step["outcome"] for step in bisection.steps
                    if (step["base_index"], step["head_index"]) == (good, bad)
                    and step.get("outcome") not in (None, "unbuildable")), None)
    if earlier is None:
        _measure(session, bisection, good, bad, "ends")
    elif earlier == "regressed":
        _next(session, bisection)
    else:
        _next_range(session, bisection)


def _finish(bisection: Bisection, note: str = "") -> None:
    """Ends with the culprits found: each with its change, interval and share of the whole."""
    found = _culprits(bisection)
    whole = bisection.steps[0].get("change")

    def named(culprit: dict[str, Any]) -> str:
        share = culprit["share"]
        part = ("" if share is None or (len(found) == 1 and share >= WHOLE_SHARE)
                else f", {100 * share:.0f} % of the whole {_pct(whole)}")
        return (f"{culprit['sha'][:10]} {culprit['subject']} ({culprit['author']}), "
                f"{_pct(culprit['change'])} {bisection.metric}"
                f"{_interval(culprit['interval'])}{part}")

    message = (f"culprit{'s' if len(found) > 1 else ''}: {'; '.join(map(named, found))}, "
               f"measured side by side")
    explained = sum(c["share"] or 0 for c in found)
    if explained < WHOLE_SHARE:
        message += "; other commits of the range contributed"
    _end(bisection, "found", bisection.result, message + note)


def _culprits(bisection: Bisection) -> list[dict[str, Any]]:
    return list((bisection.result or {}).get("culprits", []))


def _capped(bisection: Bisection) -> bool:
    spent = sum(step.get("minutes") or 0 for step in bisection.steps)
    return bisection.max_minutes is not None and spent >= bisection.max_minutes


def _narrowed(bisection: Bisection, why: str) -> None:
    shas = [c["sha"] for c in bisection.commits[bisection.good + 1:bisection.bad + 1]]
    _end(bisection, "narrowed", {"range": shas},
         f"one of these {len(shas)}: {', '.join(s[:10] for s in shas)}; {why}")


def _end(bisection: Bisection, status: str, result: dict[str, Any] | None,
         message: str) -> None:
    bisection.status = status
    bisection.result = result
    bisection.message = message
    bisection.finished_at = get_clock().now()


def _record(bisection: Bisection, step: dict[str, Any]) -> None:
    bisection.steps = [*bisection.steps[:-1], step]


def _step_job(session: Session, bisection: Bisection) -> Job | None:
    return session.get(Job, bisection.steps[-1]["job_id"]) if bisection.steps else None


def _judged(run: Run, bisection: Bisection) -> dict[str, Any] | None:
    """The try verdict's reason on the bisection's metric of its series (the regressed one,
    when several series carry its labels)."""
    found = [r for r in run.verdict_reasons
             if r.get("outcome") is not None and r["metric"] == bisection.metric
             and all(r["series"].get(k) == v for k, v in bisection.series.items())]
    return next((r for r in found if r["outcome"] == "regressed"), found[0] if found else None)


def _change(reason: dict[str, Any]) -> float | None:
    base, head = reason.get("baseline"), reason.get("candidate")
    return None if not base or head is None else head / base - 1


def _minutes(job: Job) -> float:
    return round(stages.spent_s(job) / 60, 2)


def _pct(change: float | None) -> str:
    return "?" if change is None else f"{100 * change:+.1f} %"


def _interval(interval: list[float] | None) -> str:
    return "" if not interval else (f" [{100 * interval[0]:+.1f} % to "
                                    f"{100 * interval[1]:+.1f} %]")
