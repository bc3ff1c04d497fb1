"""What the benchmarks share: a migrated database with a token to call the api with."""

import os

from sqlalchemy import create_engine
from sqlalchemy.orm import Session


def bench_token(database_url: str, *scopes: str) -> str:
    """Runs the migrations, creates a member and returns an API token with `scopes`."""
    from latlab.auth import service as auth_service
    from latlab.auth.schemas import TokenCreate, UserCreate
    from latlab.core.migrate import upgrade
    from latlab.models import Role, Scope

    upgrade(database_url)
    engine = create_engine(database_url)
    with Session(engine) as session, session.begin():
        auth_service.ensure_project(session, "default")
        user = auth_service.create_user(session, UserCreate(
            email=f"bench-{os.getpid()}@lab.test", password="bench-password", role=Role.member))
        token: str
        _, token = auth_service.create_token(session, user, TokenCreate(
            name="bench", scopes=[Scope(s) for s in scopes]))
    engine.dispose()
    return token
