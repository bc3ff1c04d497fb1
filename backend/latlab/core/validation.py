"""Strict JSON, and 422 bodies that name each problem by its JSON path."""

import json
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

MAX_LISTED = 50
# Arrays of numbers hold no keys: dropped before looking for duplicate keys in a submission
# (its samples are most of its bytes).
_NUMBER_ARRAYS = re.compile(rb"\[[-0-9.eE+,\s]*\]")

Model = TypeVar("Model", bound=BaseModel)


class BodyInvalid(Exception):
    def __init__(self, problems: list[dict[str, str]]) -> None:
        super().__init__(problems)
        self.problems = problems


def parse_body(model: type[Model], raw: bytes | bytearray) -> Model:
    """Validates a JSON body straight from bytes (fast for million-sample submissions)."""
    if not raw.strip():
        raise BodyInvalid([{"path": "$", "message": "a JSON body is required",
                            "type": "missing"}])
    strict_json(_NUMBER_ARRAYS.sub(b"[]", raw))
    try:
        return model.model_validate_json(raw)
    except ValidationError as error:
        listed = problems(error.errors(include_url=False), error.error_count())
        raise BodyInvalid(listed) from None


def strict_json(raw: bytes) -> Any:
    """JSON with one meaning only: an object naming a key twice is refused, naming where
    (parsers differ on which of the two wins)."""
    try:
        value = json.loads(raw, object_pairs_hook=_Object.of)
        duplicate = _first_duplicate(value, "$")
    except RecursionError:
        raise BodyInvalid([{"path": "$", "message": "the JSON is nested too deeply",
                            "type": "json_invalid"}]) from None
    except ValueError as error:
        message = error.msg if isinstance(error, json.JSONDecodeError) else str(error)
        raise BodyInvalid([{"path": "$", "message": f"not valid JSON: {message}",
                            "type": "json_invalid"}]) from None
    if duplicate is not None:
        path, key = duplicate
        raise BodyInvalid([{"path": path, "message": f"the key '{key}' appears twice",
                            "type": "duplicate_key"}])
    return value


def problems(errors: Sequence[Any], total: int | None = None) -> list[dict[str, str]]:
    listed = [
        {"path": json_path(error["loc"]), "message": error["msg"], "type": error["type"]}
        for error in errors[:MAX_LISTED]
    ]
    total = len(errors) if total is None else total
    if total > MAX_LISTED:
        listed.append({"path": "$", "message": f"... and {total - MAX_LISTED} more problems",
                       "type": "truncated"})
    return listed


def json_path(loc: Sequence[int | str]) -> str:
    parts = list(loc)
    prefix = "$"
    if parts and parts[0] in ("body", "query", "path", "header", "cookie"):
        where = str(parts.pop(0))
        prefix = "$" if where == "body" else where
    path = prefix
    for part in parts:
        if isinstance(part, int):
            path += f"[{part}]"
        elif part.isidentifier():
            path += f".{part}"
        else:
            path += f"[{part!r}]"
    return path


class _Object(dict[str, Any]):
    """A parsed JSON object that remembers a key given twice."""

    duplicate: str | None = None

    @classmethod
    def of(cls, pairs: list[tuple[str, Any]]) -> "_Object":
        made = cls(pairs)
        if len(made) != len(pairs):
            counts = Counter(key for key, _ in pairs)
            made.duplicate = next(key for key, count in counts.items() if count > 1)
        return made


def _first_duplicate(value: Any, path: str) -> tuple[str, str] | None:
    if isinstance(value, _Object):
        if value.duplicate is not None:
            return path + json_path([value.duplicate])[1:], value.duplicate
        for key, item in value.items():
            found = _first_duplicate(item, path + json_path([key])[1:])
            if found:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = _first_duplicate(item, f"{path}[{index}]")
            if found:
                return found
    return None
