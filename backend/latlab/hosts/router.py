import shlex
from datetime import timedelta

from fastapi import APIRouter, status
from sqlalchemy import select

from latlab.auth.dependencies import Admin, Reader
from latlab.auth.service import Principal
from latlab.core.db import DbSession
from latlab.core.errors import Conflict, Gone, NotFound
from latlab.core.openapi import documented
from latlab.core.params import Id
from latlab.core.routing import ApiRoute
from latlab.core.settings import get_settings
from latlab.hosts import enrollment, service
from latlab.hosts.schemas import (
    CurrentJob,
    HostProjects,
    HostRead,
    InvitationCreate,
    InvitationRead,
    JoinRequest,
    SuiteRead,
)
from latlab.hosts.tuning import tuning_checks
from latlab.jobs import service as jobs
from latlab.jobs import watchdog
from latlab.models import Host, Project
from latlab.projects import service as projects
from latlab_contract.signing import HostGrant

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


@router.post("/hosts/invitations", status_code=status.HTTP_201_CREATED,
             responses=documented(NotFound))
def invite_host(body: InvitationCreate, admin: Admin, session: DbSession) -> InvitationRead:
    """Invite a machine to join the lab as a host (admin only): a one-time code, good for
    `expires_in_hours`, and the command that joins with it, run in a checkout of latlab
    (`scripts/join-host.sh`: the toolchains, the runner, `latlab-runner join`, its service)."""
    ids = None if body.projects is None else [
        projects.get(session, slug).id for slug in body.projects]
    invitation, code = enrollment.invite(
        session, body.name, body.tags, ids, admin.user.id if admin.user else None,
        timedelta(hours=body.expires_in_hours))
    return InvitationRead(
        id=invitation.id, name=invitation.name, tags=invitation.tags, projects=body.projects,
        expires_at=invitation.expires_at, code=code,
        command=shlex.join(["scripts/join-host.sh", get_settings().public_url, code]))


@router.post("/hosts/join", responses=documented(NotFound, Conflict, Gone))
def join_lab(body: JoinRequest, session: DbSession) -> HostGrant:
    """A machine joins the lab with an invitation's code (no sign-in: the code is the
    credential, good once): it receives its host's name, tags, key and broker URL, and its
    certificates when the broker is reached over TLS."""
    return enrollment.join(session, body.code).grant


@router.post("/hosts/{host_id}/revoke", responses=documented(NotFound))
def revoke_host(host_id: Id, admin: Admin, session: DbSession) -> HostRead:
    """Revoke a host (admin only): no message in its name is believed from now on, it is
    offline at once, and the job it ran is retried elsewhere (or failed, its attempts
    spent). It joins again only with a new invitation."""
    host = service.get_host(session, host_id, None)
    job = enrollment.revoke(session, host)
    if job is not None:
        watchdog.retry_or_fail(job, f"host {host.name} was revoked")
        jobs.dispatch_queued(session)
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
        enrolled_at=host.enrolled_at if host.secret is not None else None,
        last_seen_at=host.last_seen_at, fingerprint=host.fingerprint,
        tuning=tuning_checks(host.fingerprint) if host.fingerprint else [],
        suites=[s.id for s in service.suites_of(host)], busy=job is not None,
        current_job=None if job is None or not mine else CurrentJob(
            id=job.id, suite=job.suite, scenario=job.scenario, status=job.status,
            phase=job.phase, progress=job.progress),
        projects=None if shown is None else sorted(slugs[i] for i in shown if i in slugs),
    )
