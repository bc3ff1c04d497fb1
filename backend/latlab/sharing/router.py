"""Share links: members make, list and revoke them; anyone holding a link's token reads the one
view it names (`GET /shared/{token}`, its badge), as the project's own pages draw it, with
nothing else of the project."""

import json
from typing import Annotated, Any
from xml.sax.saxutils import escape

from fastapi import APIRouter, Path, Response, status
from sqlalchemy import select

from latlab.analysis import router as analysis
from latlab.analysis.schemas import CompareRead
from latlab.auth.dependencies import Admin, Member, Reader, address_limited
from latlab.auth.service import Principal
from latlab.core.db import DbSession
from latlab.core.errors import Conflict, NotFound, Unprocessable
from latlab.core.openapi import documented
from latlab.core.params import Id
from latlab.core.rate_limits import Use
from latlab.core.routing import ApiRoute
from latlab.core.settings import get_settings
from latlab.models import Project, Run
from latlab.projects import service as projects
from latlab.runs import router as runs
from latlab.runs import service as run_service
from latlab.sharing import service
from latlab.sharing.schemas import (
    EmbedOrigins,
    SharedRead,
    ShareLinkCreate,
    ShareLinkCreated,
    ShareLinkRead,
)
from latlab_contract.vocabulary import quantity

router = APIRouter(tags=["sharing"], route_class=ApiRoute)
Token = Annotated[str, Path(pattern=r"^lls_[A-Za-z0-9_-]{32}$")]
LINK_GONE: dict[int | str, dict[str, Any]] = {
    410: {"description": "The link was revoked or expired"}}


@router.post("/share-links", status_code=status.HTTP_201_CREATED,
             responses=documented(NotFound, Conflict, Unprocessable))
def create_link(body: ShareLinkCreate, principal: Member, session: DbSession
                ) -> ShareLinkCreated:
    """A read-only link to a run, a comparison or a trend of the project, opened without a
    login; its token is shown once."""
    project = projects.writable(principal.project)
    shown = _view(session, project, body.kind, body.target())  # it shows something now
    if body.kind == "trend" and not shown.points:
        raise NotFound(f"no run of {shown.suite}/{shown.scenario} with the labels "
                       f"{shown.labels} has {shown.metric} on branch {shown.branch}")
    link, token = service.create(session, project, body, principal.actor.label)
    base = get_settings().public_url.rstrip("/")
    return ShareLinkCreated(
        **ShareLinkRead.model_validate(link).model_dump(), token=token,
        url=f"{base}/shared/{token}",
        badge_url=f"{base}/api/v1/shared/{token}/badge.svg" if link.kind == "trend" else None)


@router.get("/share-links")
def list_links(principal: Reader, session: DbSession) -> list[ShareLinkRead]:
    """The project's share links (never their tokens), newest first, revoked ones included."""
    return [ShareLinkRead.model_validate(link)
            for link in service.listed(session, principal.project_id)]


@router.delete("/share-links/{link_id}", status_code=status.HTTP_204_NO_CONTENT,
               responses=documented(NotFound))
def revoke_link(link_id: Id, principal: Member, session: DbSession) -> None:
    """Revoke a link: it shows nothing from now on."""
    service.revoke(session, principal.project_id, link_id)


@router.put("/embed-origins", responses=documented(Conflict))
def put_embed_origins(body: EmbedOrigins, admin: Admin) -> EmbedOrigins:
    """Origins whose pages may frame the current project's shared links (admins)."""
    projects.writable(admin.project).embed_origins = list(dict.fromkeys(body.origins))
    return EmbedOrigins(origins=admin.project.embed_origins)


@router.get("/embed-origins")
def get_embed_origins(principal: Reader) -> EmbedOrigins:
    return EmbedOrigins(origins=principal.project.embed_origins)


@router.get("/shared/{token}", responses={**documented(NotFound), **LINK_GONE},
            dependencies=address_limited(Use.heavy_reads))
def read_shared(token: Token, session: DbSession) -> SharedRead:
    """What a share link shows, without a login."""
    link, project = service.resolve(session, token)
    return SharedRead(kind=link.kind, project=project.name, expires_at=link.expires_at,
                      **{link.kind: _view(session, project, link.kind, link.target)})


@router.get("/shared/{token}/badge.svg", response_class=Response,
            responses={**documented(NotFound), **LINK_GONE,
                       200: {"content": {"image/svg+xml": {}}}},
            dependencies=address_limited(Use.heavy_reads))
def badge(token: Token, session: DbSession) -> Response:
    """A trend link's badge: the series' latest value and its run's verdict, coloured by the
    verdict (green pass, red fail, grey otherwise)."""
    link, project = service.resolve(session, token)
    if link.kind != "trend":
        raise NotFound("only a trend's link has a badge")
    trend = _view(session, project, "trend", link.target)
    label = f"{link.target['suite']} {link.target.get('metric', 'p99')}"
    if not trend.points:
        return _svg(label, "no runs", "grey")
    latest = trend.points[-1]
    # Its verdict alone: a badge is read on every view of the page it is in.
    verdict = None if latest.run_id is None else session.scalar(
        select(Run.verdict).where(Run.id == latest.run_id, Run.project_id == project.id))
    value = quantity(latest.value, trend.unit)
    return _svg(label, f"{value}{f' · {verdict}' if verdict else ''}",
                {"pass": "green", "fail": "red"}.get(verdict or "", "grey"))


def _view(session: DbSession, project: Project, kind: str, target: dict[str, Any]) -> Any:
    """The view a link names, read as the project's own pages read it (404 when it shows
    nothing)."""
    viewer = Principal(current_project=project)
    if kind == "run":
        return runs.get_run(run_service.get_run(session, target["run_id"], project.id),
                            session)
    if kind == "compare":
        read = analysis.compare(target["baseline"], target["candidate"], viewer, session)
        assert isinstance(read, CompareRead)
        return read
    return analysis.trends(viewer, session, target["suite"], target["scenario"],
                           metric=target.get("metric", "p99"),
                           labels=json.dumps(target.get("labels", {})),
                           branch=target.get("branch"))


COLOURS = {"green": "#2da44e", "red": "#cf222e", "grey": "#6e7781"}


def _svg(label: str, message: str, colour: str) -> Response:
    """A shields-style badge; widths from a 7 px average character (DejaVu Sans 11 px)."""
    left, right = 10 + 7 * len(label), 10 + 7 * len(message)
    label_text, message_text = escape(label), escape(message)
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + right}" height="20" '
           f'role="img" aria-label="{label_text}: {message_text}">'
           f'<title>{label_text}: {message_text}</title>'
           f'<rect width="{left}" height="20" fill="#555"/>'
           f'<rect x="{left}" width="{right}" height="20" fill="{COLOURS[colour]}"/>'
           f'<g fill="#fff" text-anchor="middle" font-family="DejaVu Sans,Verdana,sans-serif" '
           f'font-size="11"><text x="{left / 2}" y="14">{label_text}</text>'
           f'<text x="{left + right / 2}" y="14">{message_text}</text></g></svg>')
    return Response(svg, media_type="image/svg+xml",
                    headers={"Cache-Control": "no-cache, max-age=0"})


def frame_ancestors(session: DbSession, token: str) -> list[str]:
    """The origins that may frame a shared page: its project's embed origins (none for a
    token that opens nothing)."""
    try:
        _, project = service.resolve(session, token)
    except (NotFound, service.LinkGone):
        return []
    return list(project.embed_origins)

