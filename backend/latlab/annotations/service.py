"""Annotations: made by a person or a CI step (`create`), or by the lab when a run's host or
suite is not what it was at the previous run (`notice`); read back for a trend (`covering`)
or a list (`listed`)."""

from collections.abc import Collection
from datetime import datetime
from typing import Any

from sqlalchemy import Select, or_, select
from sqlalchemy.orm import Session

from latlab.analysis.compare import COMPARABILITY_KEYS
from latlab.annotations.schemas import AnnotationCreate
from latlab.core.clock import get_clock
from latlab.core.errors import NotFound
from latlab.models import Annotation, Project, Run

LAB = "lab"


def create(session: Session, project: Project, body: AnnotationCreate, by: str) -> Annotation:
    now = get_clock().now()
    annotation = Annotation(
        project_id=project.id, at=body.at or now, kind="note", text=body.text, link=body.link,
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


def covering(session: Session, project_id: int, suite: str, hosts: Collection[str],
             since: datetime) -> list[Annotation]:
    """What a trend of `suite` whose runs ran on `hosts` draws, oldest first: from its first
    run on (at most 200)."""
    query = _concerning(project_id, suite, hosts).where(Annotation.at >= since)
    return list(session.scalars(query.order_by(Annotation.at, Annotation.id).limit(200)))


def _concerning(project_id: int, suite: str | None,
                hosts: Collection[str] | None) -> Select[tuple[Annotation]]:
    query = select(Annotation).where(Annotation.project_id == project_id)
    if suite is not None:
        query = query.where(or_(Annotation.suite.is_(None), Annotation.suite == suite))
    if hosts is not None:
        query = query.where(or_(Annotation.host_name.is_(None),
                                Annotation.host_name.in_(list(hosts))))
    return query


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
    after = run.host_fingerprint
    changed = [f"{key} {before.get(key)} -> {after.get(key)}" for key in COMPARABILITY_KEYS
               if before.get(key) != after.get(key)]
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
