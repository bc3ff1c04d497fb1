"""The schema the migrations build is the schema the models describe."""

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from latlab.models import Base


def test_migrations_match_the_models(engine) -> None:
    with engine.connect() as connection:
        differences = compare_metadata(MigrationContext.configure(connection), Base.metadata)
    assert differences == []
