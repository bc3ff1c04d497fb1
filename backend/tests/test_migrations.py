"""The schema the migrations build is the schema the models describe, and what a revision
fills in for data stored before it."""

import httpx
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.config import Config
from alembic.migration import MigrationContext
from sqlalchemy import select

from latlab.core.migrate import ALEMBIC_INI
from latlab.models import Base, Run, Scope
from tests.conftest import DATABASE_URL
from tests.factories import Actors, result, samples


def test_migrations_match_the_models(engine) -> None:
    def modelled(obj, name, kind, reflected, compare_to) -> bool:  # type: ignore[no-untyped-def]
        # The trial table's monthly partitions are made by beat, not by a model.
        return not (kind == "table" and reflected and name.startswith("trial_"))

    with engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"include_object": modelled})
        differences = compare_metadata(context, Base.metadata)
    assert differences == []


def test_0026_fills_in_each_runs_headline_p99_as_the_list_shows_it(committed_db,
                                                                   live_server) -> None:
    """Runs stored before the revision get the P99 their list rows show: migrated down and up
    again on a database holding runs, the kept sort key equals each run's headline."""
    headers = Actors(committed_db).token(Scope.runs_write, Scope.read)
    committed_db.commit()
    api = httpx.Client(base_url=live_server, timeout=30, headers=headers)
    for scale in (300_000, 900_000):
        document = result(series=[
            {"labels": {"client": "go"}, "trials": [{"latency": {"samples_ns": samples(
                seed=3, scale_ns=scale)}}]},
            {"labels": {"client": "rust"}, "trials": [{"latency": {"samples_ns": samples(
                scale_ns=scale * 2)}}]}])
        assert api.post("/api/v1/runs", json=document).status_code == 201
    shown = {item["id"]: item["headline"]["p99"]
             for item in api.get("/api/v1/runs").json()["items"]}
    config = Config(str(ALEMBIC_INI))
    config.attributes["database_url"] = DATABASE_URL
    command.downgrade(config, "0025")
    command.upgrade(config, "head")
    committed_db.expire_all()
    kept = dict(committed_db.execute(select(Run.id, Run.headline_p99)).all())
    assert kept == shown and len(kept) == 2
