"""Engine, sessions, and the request-scoped session dependency.

Services never commit. The request's session commits once, after the route returns and
before the response is sent; Celery messages written with `latlab.core.tasks.enqueue` (the
outbox) leave only then.
"""

from collections.abc import Iterator
from functools import lru_cache
from typing import Annotated

from fastapi import Depends
from sqlalchemy import Engine, create_engine
from sqlalchemy.orm import Session, sessionmaker

from latlab.core.settings import get_settings


@lru_cache
def get_engine() -> Engine:
    """Every wait on Postgres is bounded: connecting, a statement, a free pooled connection;
    past them the caller gets an error (the api: 503), never a hang."""
    settings = get_settings()
    return create_engine(
        settings.database_url, pool_pre_ping=True, pool_size=10,
        pool_timeout=settings.db_connect_timeout_s,
        connect_args={"connect_timeout": settings.db_connect_timeout_s,
                      "options": f"-c statement_timeout={settings.db_statement_timeout_s}s"},
    )


@lru_cache
def get_sessionmaker() -> sessionmaker[Session]:
    return sessionmaker(get_engine(), expire_on_commit=False)


def get_session() -> Iterator[Session]:
    session = get_sessionmaker()()
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


DbSession = Annotated[Session, Depends(get_session, scope="function")]
