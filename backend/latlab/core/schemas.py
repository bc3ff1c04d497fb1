"""The bases of every request and response body, and the shared field types."""

import math
from typing import Any

from pydantic import BaseModel, ConfigDict, field_validator

from latlab_contract.fields import INT64_MAX, INT64_MIN, Moment

__all__ = ["Moment", "ReadSchema", "Schema"]


class Schema(BaseModel):
    """Unknown fields are refused; no string holds a NUL character (Postgres stores none), no
    integer lies beyond int64 (the columns' range) and every number is finite, however deep
    in a field it sits."""

    model_config = ConfigDict(extra="forbid")

    @field_validator("*", mode="after")
    @classmethod
    def storable(cls, value: Any) -> Any:
        problem = _unstorable(value, "")
        if problem is not None:
            raise ValueError(problem)
        return value


class ReadSchema(BaseModel):
    model_config = ConfigDict(from_attributes=True)


def _unstorable(value: Any, where: str) -> str | None:
    at = f" (at {where})" if where else ""
    if isinstance(value, str):
        return f"NUL characters are not allowed{at}" if "\x00" in value else None
    if isinstance(value, int) and not isinstance(value, bool):
        if not INT64_MIN <= value <= INT64_MAX:
            return f"integers must lie within the signed 64-bit range{at}"
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else f"numbers must be finite{at}"
    if isinstance(value, dict):
        for key, item in value.items():
            found = _unstorable(key, where) or _unstorable(item, f"{where}.{key}")
            if found:
                return found
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            found = _unstorable(item, f"{where}[{index}]")
            if found:
                return found
    return None
