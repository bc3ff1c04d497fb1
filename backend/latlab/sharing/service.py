"""Share links: made by a member for one view (`create`), listed and revoked by the project's
members, and resolved from a token by anyone who holds it (`resolve`). Only the token's
SHA-256 is stored, as with API tokens."""

import hashlib
import secrets

from sqlalchemy import select
from sqlalchemy.orm import Session

from latlab.core.clock import get_clock
from latlab.core.errors import AppError, NotFound
from latlab.models import Project, ShareLink
from latlab.sharing.schemas import ShareLinkCreate

PREFIX = "lls_"


class LinkGone(AppError):
    status_code = 410


def create(session: Session, project: Project, body: ShareLinkCreate,
           by: str) -> tuple[ShareLink, str]:
    token = PREFIX + secrets.token_urlsafe(24)
    link = ShareLink(project_id=project.id, kind=body.kind, target=body.target(),
                     token_hash=_hash(token), prefix=token[:10], created_by=by,
                     created_at=get_clock().now(), expires_at=body.expires_at)
    session.add(link)
    session.flush()
    return link, token


def listed(session: Session, project_id: int) -> list[ShareLink]:
    return list(session.scalars(select(ShareLink).where(ShareLink.project_id == project_id)
                                .order_by(ShareLink.id.desc())))


def revoke(session: Session, project_id: int, link_id: int) -> ShareLink:
    link = session.get(ShareLink, link_id)
    if link is None or link.project_id != project_id:
        raise NotFound(f"share link {link_id} not found")
    link.revoked_at = link.revoked_at or get_clock().now()
    session.flush()
    return link


def resolve(session: Session, token: str) -> tuple[ShareLink, Project]:
    """The link a token opens, and its project: 404 for a token the lab never made, 410 for a
    link revoked or expired."""
    link = session.scalar(select(ShareLink).where(ShareLink.token_hash == _hash(token)))
    if link is None:
        raise NotFound("no such shared page")
    if link.revoked_at is not None:
        raise LinkGone("this shared page was revoked")
    if link.expires_at is not None and link.expires_at <= get_clock().now():
        raise LinkGone("this shared page expired")
    project = session.get(Project, link.project_id)
    assert project is not None
    return link, project


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()
