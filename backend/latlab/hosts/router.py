import shlex
from datetime import timedelta

from fastapi import APIRouter, status

from latlab.auth.dependencies import Admin, Reader
from latlab.auth.service import Principal
from latlab.core.db import DbSession
from latlab.core.errors import Conflict, Gone, NotFound
from latlab.core.openapi import documented
from latlab.core.params import Id
from latlab.core.routing import ApiRoute
from latlab.core.settings import get_settings
from latlab.hosts import enrollment, reads, service
from latlab.hosts.schemas import (
    HostProjects,
    HostRead,
    InvitationCreate,
    InvitationRead,
    JoinRequest,
    SuiteRead,
)
from latlab.projects import service as projects
from latlab_contract.signing import HostGrant

router = APIRouter(tags=["hosts"], route_class=ApiRoute)


@router.get("/hosts")
def list_hosts(principal: Reader, session: DbSession) -> list[HostRead]:
    """The hosts that serve the caller's project (an admin: every host): tags, online state,
    fingerprint, tuning checks, current job and the projects each serves."""
    slugs = reads.project_slugs(session)
    return [reads.host_read(session, h, principal, slugs)
            for h in service.list_hosts(session, _scope(principal))]


@router.get("/hosts/{host_id}", responses=documented(NotFound))
def get_host(host_id: Id, principal: Reader, session: DbSession) -> HostRead:
    """One host (a host that does not serve the caller's project is a 404, but to admins)."""
    host = service.get_host(session, host_id, _scope(principal))
    return reads.host_read(session, host, principal, reads.project_slugs(session))


@router.put("/hosts/{host_id}/projects", responses=documented(NotFound))
def set_host_projects(host_id: Id, body: HostProjects, admin: Admin,
                      session: DbSession) -> HostRead:
    """The projects a host serves (admin only): only their jobs are dispatched to it and
    only their members see it; null serves every project. A job already on it goes on."""
    ids = None if body.projects is None else [
        projects.get(session, slug).id for slug in body.projects]
    host = service.set_serves(session, service.get_host(session, host_id, None), ids)
    return reads.host_read(session, host, admin, reads.project_slugs(session))


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
