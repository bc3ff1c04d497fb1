"""Runs the Alembic migrations in `migrations/` (used by `make up` and the tests)."""

from pathlib import Path

from alembic import command
from alembic.config import Config

ALEMBIC_INI = Path(__file__).resolve().parents[3] / "migrations" / "alembic.ini"


def upgrade(database_url: str, revision: str = "head") -> None:
    config = Config(str(ALEMBIC_INI))
    config.attributes["database_url"] = database_url
    command.upgrade(config, revision)
