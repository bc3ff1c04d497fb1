"""The dashboard's API client is generated from frontend/openapi.json: it must be current."""

import json
from pathlib import Path

from latlab.main import app

SPEC = Path(__file__).resolve().parents[2] / "frontend" / "openapi.json"


def test_frontend_openapi_matches_the_backend() -> None:
    assert json.loads(SPEC.read_text()) == json.loads(json.dumps(app.openapi())), (
        "the API changed: run `make openapi` and commit frontend/openapi.json and "
        "frontend/src/api/schema.d.ts"
    )
