from fastapi import APIRouter
from sqlalchemy import select

from latlab.auth.dependencies import Admin, Reader
from latlab.auth.service import Principal
from latlab.core.db import DbSession
from latlab.core.errors import NotFound
from latlab.core.openapi import documented
from latlab.core.params import Id
from latlab.core.routing import ApiRoute
from latlab.hosts import service
from latlab.hosts.schemas import CurrentJob, HostProjects, HostRead, SuiteRead
from latlab.hosts.tuning import tuning_checks
from latlab.models import Host, Project
from latlab.projects import service as projects

router = APIRouter(tags=["hosts"], route_class=ApiRoute)


@router.get("/hosts")
def list_hosts(principal: Reader, session: DbSession) -> list[HostRead]:
    """The hosts that serve the caller's project (an admin: every host): tags, online state,
    fingerprint, tuning checks, current job and the projects each serves."""
    slugs = _slugs(session)
    return [_host_read(session, h, principal, slugs)
            for h in service.list_hosts(session, _scope(principal))]


@router.get("/hosts/{host_id}", responses=documented(NotFound))
def get_host(host_id: Id, principal: Reader, session: DbSession) -> HostRead:
    """One host (a host that does not serve the caller's project is a 404, but to admins)."""
    host = service.get_host(session, host_id, _scope(principal))
    return _host_read(session, host, principal, _slugs(session))


@router.put("/hosts/{host_id}/projects", responses=documented(NotFound))
def set_host_projects(host_id: Id, body: HostProjects, admin: Admin,
                      session: DbSession) -> HostRead:
    """The projects a host serves (admin only): only their jobs are dispatched to it and
    only their members see it; null serves every project. A job already on it goes on."""
    ids = None if body.projects is None else [
        projects.get(session, slug).id for slug in body.projects]
    host = service.set_serves(session, service.get_host(session, host_id, None), ids)
    return _host_read(session, host, admin, _slugs(session))


@router.get("/suites")
def list_suites(principal: Reader, session: DbSession) -> list[SuiteRead]:
    """The catalogue: suites, scenarios and parameter schemas that the online hosts serving
    the caller's project advertise."""
    return [
        SuiteRead(**suite.model_dump(), hosts=hosts,
                  lightest_scenario=suite.lightest())
        for suite, hosts in service.catalogue(session, principal.project_id).values()
    ]


def _scope(principal: Principal) -> int | None:
    """Whose hosts the caller sees: None (every host) for an admin."""
    return None if principal.is_admin else principal.project_id


def _slugs(session: DbSession) -> dict[int, str]:
    return {id_: slug for id_, slug in session.execute(select(Project.id, Project.slug))}


def _host_read(session: DbSession, host: Host, principal: Principal,
               slugs: dict[int, str]) -> HostRead:
    job = service.current_job(session, host)
    mine = job is not None and job.project_id == principal.project_id
    shown = host.serves if host.serves is None or principal.is_admin else [
        principal.project_id]
    return HostRead(
        id=host.id, name=host.name, address=host.address, tags=host.tags,
        online=service.is_online(host), last_heartbeat_at=host.heartbeat_at,
        last_seen_at=host.last_seen_at, fingerprint=host.fingerprint,
        tuning=tuning_checks(host.fingerprint) if host.fingerprint else [],
        suites=[s.id for s in service.suites_of(host)], busy=job is not None,
        current_job=None if job is None or not mine else CurrentJob(
            id=job.id, suite=job.suite, scenario=job.scenario, status=job.status,
            phase=job.phase, progress=job.progress),
        projects=None if shown is None else sorted(slugs[i] for i in shown if i in slugs),
    )
