"""Annotations: made by a person or a CI step (`create`), or by the lab when a run's host or
suite is not what it was at the previous run (`notice`) or the gate settings change
(`gate_changed`); read back as a list (`listed`, which trends and run pages draw) and for an
alert on a run (`before_run`)."""

from collections.abc import Collection
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Select, or_, select
from sqlalchemy.orm import Session

from latlab.annotations.schemas import AnnotationCreate
from latlab.core.clock import get_clock
from latlab.core.errors import NotFound
from latlab.models import Annotation, Project, Run
from latlab_contract.fingerprints import differences

LAB = "lab"
# How long before a run an annotation is near enough for an alert on the run to mention it.
NEARBY = timedelta(hours=24)


def create(session: Session, project: Project, body: AnnotationCreate, by: str) -> Annotation:
    now = get_clock().now()
    annotation = Annotation(
        project_id=project.id, at=(body.at or now).astimezone(UTC),
        until=None if body.until is None else body.until.astimezone(UTC), kind="note",
        text=body.text, link=body.link,
        suite=body.suite, host_name=body.host, created_by=by, created_at=now)
    session.add(annotation)
    session.flush()
    return annotation


def delete(session: Session, project_id: int, annotation_id: int) -> None:
    annotation = session.get(Annotation, annotation_id)
    if annotation is None or annotation.project_id != project_id:
        raise NotFound(f"annotation {annotation_id} not found")
    session.delete(annotation)
    session.flush()


def listed(session: Session, project_id: int, *, suite: str | None, host: str | None,
           since: datetime | None, until: datetime | None, limit: int) -> list[Annotation]:
    """Newest first: those of the suite and host asked for, and those of every suite or
    host."""
    query = _concerning(project_id, suite, None if host is None else [host])
    if since is not None:
        query = query.where(Annotation.at >= since)
    if until is not None:
        query = query.where(Annotation.at <= until)
    return list(session.scalars(query.order_by(Annotation.at.desc(), Annotation.id.desc())
                                .limit(limit)))


def before_run(session: Session, run: Run) -> list[Annotation]:
    """What was marked on the run's suite and host in the day before it, up to its end, oldest
    first (at most 5): what an alert on the run mentions."""
    end = run.finished_at or run.started_at
    query = _concerning(run.project_id, run.suite, None if run.host_name is None
                        else [run.host_name]).where(
        Annotation.at >= run.started_at - NEARBY, Annotation.at <= end)
    return list(session.scalars(query.order_by(Annotation.at, Annotation.id).limit(5)))


def _concerning(project_id: int, suite: str | None,
                hosts: Collection[str] | None) -> Select[Annotation]:
    query = select(Annotation).where(Annotation.project_id == project_id)
    if suite is not None:
        query = query.where(or_(Annotation.suite.is_(None), Annotation.suite == suite))
    if hosts is not None:
        query = query.where(or_(Annotation.host_name.is_(None),
                                Annotation.host_name.in_(list(hosts))))
    return query


def gate_changed(session: Session, project: Project, before: dict[str, Any],
                 after: dict[str, Any], by: str) -> Annotation | None:
    """The lab's mark of a change of the project's gate settings (`GateSettings` as stored):
    on one suite's trends when only that suite's thresholds changed, else on every suite's."""
    changed = _changes("default", before.get("default", {}), after.get("default", {}))
    theirs, ours = before.get("suites", {}), after.get("suites", {})
    for key in sorted({*theirs, *ours}):
        changed += _changes(key, theirs.get(key), ours.get(key))
    if not changed:
        return None
    suites = {where.split("/")[0] for where, _ in changed}
    now = get_clock().now()
    annotation = Annotation(
        project_id=project.id, at=now, kind="gate",
        text=_clipped(f"gate settings ({by}): " + "; ".join(text for _, text in changed)),
        suite=next(iter(suites)) if len(suites) == 1 and "default" not in suites else None,
        created_by=LAB, created_at=now)
    session.add(annotation)
    return annotation


def _changes(where: str, before: dict[str, Any] | None,
             after: dict[str, Any] | None) -> list[tuple[str, str]]:
    if before == after:
        return []
    if before is None or after is None:
        return [(where, f"{where} {'added' if before is None else 'removed'}")]
    return [(where, f"{where} {key} {before.get(key)} -> {after.get(key)}")
            for key in sorted({*before, *after}) if before.get(key) != after.get(key)]


def _clipped(text: str) -> str:
    return text if len(text) <= 500 else text[:499] + "…"


def notice(session: Session, run: Run) -> list[Annotation]:
    """The lab's annotations at a new run: its host's tuning or hardware is not what it was at
    that host's previous run of the project (the fingerprint's comparability keys), or its
    suite's version (a lab job's commit, for a suite's own programs) is not the previous lab
    job's of that suite. Each change is noticed once, at the first run after it."""
    noticed = [text for text in (_host_change(session, run), _suite_change(session, run))
               if text is not None]
    now = get_clock().now()
    made = [Annotation(project_id=run.project_id, at=run.started_at, kind=kind, text=text,
                       suite=None if kind == "host" else run.suite,
                       host_name=run.host_name if kind == "host" else None, run_id=run.id,
                       created_by=LAB, created_at=now)
            for kind, text in noticed]
    session.add_all(made)
    return made


def _host_change(session: Session, run: Run) -> tuple[str, str] | None:
    if run.host_name is None or not run.host_fingerprint:
        return None
    before: dict[str, Any] | None = session.scalar(
        select(Run.host_fingerprint)
        .where(Run.project_id == run.project_id, Run.host_name == run.host_name,
               Run.started_at < run.started_at, Run.id != run.id)
        .order_by(Run.started_at.desc()).limit(1))
    if not before:
        return None
    changed = [f"{key} {old} -> {new}"
               for key, old, new in differences(before, run.host_fingerprint)]
    if not changed:
        return None
    return "host", f"host {run.host_name}: " + ", ".join(changed)


def _suite_change(session: Session, run: Run) -> tuple[str, str] | None:
    if run.job_id is None or run.repo is not None or run.commit is None:
        return None
    before = session.scalar(
        select(Run.commit)
        .where(Run.project_id == run.project_id, Run.suite == run.suite,
               Run.started_at < run.started_at, Run.id != run.id,
               Run.job_id.is_not(None), Run.repo.is_(None), Run.commit.is_not(None))
        .order_by(Run.started_at.desc()).limit(1))
    if before is None or before == run.commit:
        return None
    return "suite", f"suite {run.suite}: version {before[:12]} -> {run.commit[:12]}"
