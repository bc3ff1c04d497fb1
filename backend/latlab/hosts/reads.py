"""What a caller reads of a host: its state, tuning, current job (the caller's own only) and
the projects it serves (all of them to an admin, the caller's to a member)."""

from sqlalchemy import select
from sqlalchemy.orm import Session

from latlab.auth.service import Principal
from latlab.hosts import service
from latlab.hosts.schemas import CurrentJob, HostRead
from latlab.hosts.tuning import tuning_checks
from latlab.models import Host, Project


def project_slugs(session: Session) -> dict[int, str]:
    return {id_: slug for id_, slug in session.execute(select(Project.id, Project.slug))}


def host_read(session: Session, host: Host, principal: Principal,
              slugs: dict[int, str]) -> HostRead:
    job = service.current_job(session, host)
    mine = job is not None and job.project_id == principal.project_id
    shown = host.serves if host.serves is None or principal.is_admin else [
        principal.project_id]
    return HostRead(
        id=host.id, name=host.name, address=host.address, tags=host.tags,
        online=service.is_online(host), last_heartbeat_at=host.heartbeat_at,
        enrolled_at=host.enrolled_at if host.secret is not None else None,
        last_seen_at=host.last_seen_at, fingerprint=host.fingerprint,
        tuning=tuning_checks(host.fingerprint) if host.fingerprint else [],
        suites=[s.id for s in service.suites_of(host)], busy=job is not None,
        current_job=None if job is None or not mine else CurrentJob(
            id=job.id, suite=job.suite, scenario=job.scenario, status=job.status,
            phase=job.phase, progress=job.progress),
        projects=None if shown is None else sorted(slugs[i] for i in shown if i in slugs),
    )
