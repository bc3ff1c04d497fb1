"""The OpenAPI document is the API: schemathesis sends requests drawn from the document's
examples and from generated data (a bounded number per operation, a fixed seed) to a live api
as an admin and checks that no answer is a server error, that every status is documented for
its route, and that every body matches its documented schema."""

from collections.abc import Iterator

import pytest
import requests
import schemathesis
from hypothesis import HealthCheck, given, seed, settings
from hypothesis import strategies as st
from schemathesis.checks import (
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from latlab.main import app
from latlab.models import Role
from tests.factories import JSON, PASSWORD, Actors

CHECKS = [not_a_server_error, status_code_conformance, response_schema_conformance]
CASES_PER_OPERATION = 25
SCHEMA = schemathesis.openapi.from_dict(app.openapi())
OPERATIONS = [result.ok() for result in SCHEMA.get_all_operations()]


@pytest.fixture
def admin(committed_db, live_server) -> Iterator[requests.Session]:
    """A signed-in admin (every route is open to them), sending JSON as the dashboard does."""
    user = Actors(committed_db).user(Role.admin)
    committed_db.commit()
    session = requests.Session()
    session.headers.update(JSON)
    signed_in = session.post(f"{live_server}/api/v1/auth/login", json={
        "email": user.email, "password": PASSWORD}, timeout=30)
    assert signed_in.status_code == 200, signed_in.text
    yield session
    session.close()


@pytest.mark.parametrize("operation", OPERATIONS, ids=lambda operation: operation.label)
def test_the_api_keeps_its_documented_promises(operation, admin, live_server) -> None:
    sent = []
    strategies = [*SCHEMA.get_strategies_from_examples(operation), operation.as_strategy()]

    @given(case=st.one_of(*strategies))
    @seed(20261123)
    @settings(max_examples=CASES_PER_OPERATION, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    def check(case: schemathesis.Case) -> None:
        case.call_and_validate(base_url=live_server, session=admin, checks=CHECKS)
        sent.append(case.method)

    check()
    assert sent, f"no case was sent for {operation.label}"
    print(f"{operation.label}: {len(sent)} cases")
