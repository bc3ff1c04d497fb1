"""Alembic environment: the URL comes from the backend's settings (LATLAB_DATABASE_URL)."""

from alembic import context
from sqlalchemy import create_engine

from latlab.core.settings import get_settings
from latlab.models import Base

config = context.config
url = config.attributes.get("database_url") or get_settings().database_url

engine = create_engine(url)
with engine.connect() as connection:
    context.configure(connection=connection, target_metadata=Base.metadata,
                      compare_type=True)
    with context.begin_transaction():
        context.run_migrations()
engine.dispose()
