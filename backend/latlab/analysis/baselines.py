"""What a run is compared with: the pinned baseline of its branch (else of main), else the
latest comparable run of main the gate passed; and the identity of a series over time."""

import hashlib
import json
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from latlab.core.clock import get_clock
from latlab.core.errors import NotFound
from latlab.models import Baseline, Run
from latlab.runs.service import DEFAULT_BRANCH, load_run, on_default_branch


def host_class(run: Run) -> str:
    fingerprint = run.host_fingerprint
    return "|".join([str(fingerprint.get("cpu_model", "")), str(fingerprint.get("cores", "")),
                     ",".join(sorted(run.host_tags))])


def history_key(run: Run, labels: dict[str, Any]) -> str:
    """What must match for two series to be comparable over time."""
    parts = [run.project_id, run.suite, run.scenario, run.params, labels, host_class(run)]
    text = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def resolve_baseline(session: Session, run: Run) -> Run | None:
    """The pinned baseline of the run's branch (else of main); else the latest run of main
    the gate did not fail or doubt, with the same params, on a host of the same class."""
    for branch in dict.fromkeys([run.branch or DEFAULT_BRANCH, DEFAULT_BRANCH]):
        pinned = session.scalar(select(Baseline.run_id).where(
            Baseline.project_id == run.project_id, Baseline.suite == run.suite,
            Baseline.scenario == run.scenario, Baseline.branch == branch))
        if pinned is not None and pinned != run.id:
            return load_run(session, pinned)
    candidates = session.scalars(
        select(Run).where(
            Run.project_id == run.project_id, Run.suite == run.suite,
            Run.scenario == run.scenario, on_default_branch(), Run.id < run.id,
            # Not a run that failed or is suspected: a baseline is a run the gate passed.
            or_(Run.verdict.is_(None), Run.verdict.not_in(("fail", "inconclusive"))),
            Run.confirms_run_id.is_(None),
        ).order_by(Run.id.desc()).limit(50)
    )
    for candidate in candidates:
        if host_class(candidate) == host_class(run) and candidate.params == run.params:
            return load_run(session, candidate.id)
    return None


def pin_baseline(session: Session, run: Run, branch: str | None,
                 pinned_by_id: int | None) -> Baseline:
    branch = branch or run.branch or DEFAULT_BRANCH
    pinned = session.scalar(select(Baseline).where(
        Baseline.project_id == run.project_id, Baseline.suite == run.suite,
        Baseline.scenario == run.scenario, Baseline.branch == branch))
    if pinned is None:
        pinned = Baseline(project_id=run.project_id, suite=run.suite, scenario=run.scenario,
                          branch=branch, run_id=run.id, pinned_by_id=pinned_by_id,
                          created_at=get_clock().now())
        session.add(pinned)
    else:
        pinned.run_id = run.id
        pinned.pinned_by_id = pinned_by_id
        pinned.created_at = get_clock().now()
    session.flush()
    return pinned


def list_baselines(session: Session, project_id: int) -> list[Baseline]:
    return list(session.scalars(select(Baseline).where(Baseline.project_id == project_id)
                                .order_by(Baseline.id)))


def get_baseline(session: Session, project_id: int, baseline_id: int) -> Baseline:
    pinned = session.scalar(select(Baseline).where(Baseline.id == baseline_id,
                                                   Baseline.project_id == project_id))
    if pinned is None:
        raise NotFound(f"no baseline {baseline_id}")
    return pinned
