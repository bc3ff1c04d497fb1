from fastapi import APIRouter

from latlab.auth.dependencies import Reader
from latlab.core.db import DbSession
from latlab.core.params import Id
from latlab.core.routing import ApiRoute
from latlab.hosts import service
from latlab.hosts.schemas import CurrentJob, HostRead, SuiteRead
from latlab.hosts.tuning import tuning_checks
from latlab.models import Host

router = APIRouter(tags=["hosts"], route_class=ApiRoute)


@router.get("/hosts")
def list_hosts(principal: Reader, session: DbSession) -> list[HostRead]:
    """Lab hosts: tags, online state, fingerprint, tuning checks and current job."""
    return [_host_read(session, h, principal.project_id) for h in service.list_hosts(session)]


@router.get("/hosts/{host_id}")
def get_host(host_id: Id, principal: Reader, session: DbSession) -> HostRead:
    """One host."""
    return _host_read(session, service.get_host(session, host_id), principal.project_id)


@router.get("/suites")
def list_suites(principal: Reader, session: DbSession) -> list[SuiteRead]:
    """The catalogue: suites, scenarios and parameter schemas that online hosts advertise."""
    return [
        SuiteRead(**suite.model_dump(), hosts=hosts,
                  lightest_scenario=suite.lightest())
        for suite, hosts in service.catalogue(session).values()
    ]


def _host_read(session: DbSession, host: Host, project_id: int) -> HostRead:
    job = service.current_job(session, host)
    mine = job is not None and job.project_id == project_id
    return HostRead(
        id=host.id, name=host.name, address=host.address, tags=host.tags,
        online=service.is_online(host), last_heartbeat_at=host.heartbeat_at,
        last_seen_at=host.last_seen_at, fingerprint=host.fingerprint,
        tuning=tuning_checks(host.fingerprint) if host.fingerprint else [],
        suites=[s.id for s in service.suites_of(host)], busy=job is not None,
        current_job=None if job is None or not mine else CurrentJob(
            id=job.id, suite=job.suite, scenario=job.scenario, status=job.status,
            phase=job.phase, progress=job.progress),
    )
