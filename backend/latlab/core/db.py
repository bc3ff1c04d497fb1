"""Engine, sessions, and the request-scoped session dependency.

Services never commit. The request's session commits once, after the route returns and
before the response is sent; Celery messages written with `latlab.core.tasks.enqueue` (the
outbox) leave only then.
"""

from collections.abc import Iterator
from functools import lru_cache
from typing import Annotated, Any

import psycopg
from fastapi import Depends
from psycopg.errors import _WaitTimeout
from sqlalchemy import Engine, create_engine, event
from sqlalchemy.orm import Session, sessionmaker

from latlab.core.settings import get_settings

# A wait on Postgres this long makes the waiter ask whether the server still answers.
STALL_S = 2.0


class WatchedConnection(psycopg.Connection[Any]):
    """A connection that notices a server which stopped answering.

    A frozen Postgres (SIGSTOP, a host that hangs) keeps its sockets open: the kernel takes
    what is sent and nothing comes back, so a statement, a commit or the pool's ping would
    wait for as long as the freeze, and the server's statement timeout cannot fire on a server
    that does not run. A wait past `STALL_S` asks the server for a fresh connection (bounded by
    the connect timeout): refused or not given in time, the wait ends, the connection is closed
    and the caller gets `OperationalError` (the api: 503). On a server that answers, a slow
    statement waits on, asking again at doubling intervals.
    """

    # How this connection was made, to ask for another like it.
    made_with: tuple[tuple[Any, ...], dict[str, Any]]

    def wait(self, gen: Any, interval: float = 0.1, timeout: float | None = None) -> Any:
        if timeout is not None:  # psycopg's own bounded waits (cancelling)
            return super().wait(gen, interval, timeout)
        stall = STALL_S
        while True:
            try:
                return super().wait(gen, interval, stall)  # resumable: gen keeps its place
            except _WaitTimeout:
                if not self._server_answers():
                    self.pgconn.finish()
                    raise psycopg.OperationalError(
                        f"Postgres has not answered for {stall:.0f} s and gives no new "
                        "connection: taken as down, this connection closed") from None
                stall = min(stall * 2, 60.0)

    def _server_answers(self) -> bool:
        try:
            cargs, cparams = self.made_with
            psycopg.connect(*cargs, **cparams).close()
        except psycopg.Error:
            return False
        return True


def _connect_watched(dialect: Any, record: Any, cargs: tuple[Any, ...],
                     cparams: dict[str, Any]) -> WatchedConnection:
    connection = WatchedConnection.connect(*cargs, **cparams)
    connection.made_with = (cargs, cparams)
    return connection


@lru_cache
def get_engine() -> Engine:
    """Every wait on Postgres is bounded: connecting, a statement (the server's timeout), a
    free pooled connection, and a server that stops answering (`WatchedConnection`); past them
    the caller gets an error (the api: 503), never a hang."""
    settings = get_settings()
    engine = create_engine(
        settings.database_url, pool_pre_ping=True, pool_size=10,
        pool_timeout=settings.db_connect_timeout_s,
        connect_args={"connect_timeout": settings.db_connect_timeout_s,
                      "options": f"-c statement_timeout={settings.db_statement_timeout_s}s"},
    )
    event.listen(engine, "do_connect", _connect_watched)
    return engine


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
