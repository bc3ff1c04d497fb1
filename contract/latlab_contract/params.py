"""A job's effective params, computed the same way by the api (to validate and record them)
and by the runner (to run them)."""

from typing import Any


def merge_params(schema: dict[str, Any], scenario: dict[str, Any],
                 given: dict[str, Any]) -> dict[str, Any]:
    """The schema's defaults, then the scenario's values, then the job's own."""
    defaults = {name: spec["default"] for name, spec in schema.get("properties", {}).items()
                if "default" in spec}
    return {**defaults, **scenario, **given}
