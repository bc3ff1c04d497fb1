"""`latlab-ensure-admin`: the lab's first user, made in the database before the api starts
(`make up` runs it); the server's command, not the CLI's (the CLI only talks to the API)."""

import os
import secrets

from sqlalchemy import select

from latlab.auth import service
from latlab.auth.schemas import UserCreate, UserUpdate
from latlab.core.db import get_sessionmaker
from latlab.core.settings import get_settings
from latlab.models import Role, User
from latlab.projects import service as projects


def ensure_admin() -> None:
    """Create the admin from LATLAB_ADMIN_EMAIL / LATLAB_ADMIN_PASSWORD, or with a generated
    password (make up uses it)."""
    email = os.environ.get("LATLAB_ADMIN_EMAIL", "admin@latlab.local").strip().lower()
    password = os.environ.get("LATLAB_ADMIN_PASSWORD")
    with get_sessionmaker()() as session, session.begin():
        projects.ensure(session, get_settings().default_project)
        user = session.scalar(select(User).where(User.email == email))
        if user is None:
            generated = password is None
            password = password or secrets.token_urlsafe(12)
            service.create_user(session, UserCreate(email=email, password=password,
                                                    role=Role.admin, name="admin"))
            shown = password if generated else "(from LATLAB_ADMIN_PASSWORD)"
            print(f"admin created: {email}  password: {shown}")
        elif password is not None:
            service.update_user(session, user.id, UserUpdate(password=password, role=Role.admin,
                                                             is_active=True))
            print(f"admin: {email}  password: (from LATLAB_ADMIN_PASSWORD)")
        else:
            print(f"admin: {email}  password: unchanged (printed when it was created; "
                  "set LATLAB_ADMIN_PASSWORD to reset it)")


def main() -> None:
    ensure_admin()
