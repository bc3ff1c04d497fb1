"""The schema the migrations build is the schema the models describe."""

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from latlab.models import Base


def test_migrations_match_the_models(engine) -> None:
    def modelled(obj, name, kind, reflected, compare_to) -> bool:  # type: ignore[no-untyped-def]
        # The trial table's monthly partitions are made by beat, not by a model.
        return not (kind == "table" and reflected and name.startswith("trial_"))

    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"include_object": modelled})
        differences = compare_metadata(context, Base.metadata)
    assert differences == []
