"""`--param NAME=VALUE` typed by the suite's params schema (`GET /suites`), as the dashboard's
form types its fields: `count=5000` an integer, `connections=1,2,4` a list where the param takes
one (an axis the job sweeps). The lab checks the values again; its answer wins."""

import math
from datetime import UTC, datetime
from typing import Any

from latlab_cli.errors import CliError

_TRUE, _FALSE = {"true", "yes", "on", "1"}, {"false", "no", "off", "0"}


def parse_moment(option: str, text: str) -> datetime:
    """An option's ISO 8601 moment, in UTC unless it names its zone."""
    try:
        when = datetime.fromisoformat(text)
    except ValueError as error:
        raise CliError(f"{option} {text!r}: not an ISO 8601 moment") from error
    return when if when.tzinfo is not None else when.replace(tzinfo=UTC)


def typed_params(suite: dict[str, Any], pairs: list[str]) -> dict[str, Any]:
    properties: dict[str, Any] = suite["params_schema"].get("properties", {})
    params: dict[str, Any] = {}
    for pair in pairs:
        name, equals, text = pair.partition("=")
        if not equals:
            raise CliError(f"--param {pair!r}: write NAME=VALUE")
        if name not in properties:
            raise CliError(f"--param {name}: suite '{suite['id']}' has no such param (it has: "
                           f"{', '.join(sorted(properties))})")
        try:
            params[name] = _typed(properties[name], text)
        except ValueError as error:
            raise CliError(f"--param {pair}: {name} must be {error}") from error
    return params


def _typed(spec: dict[str, Any], text: str) -> Any:
    """A value by its schema; with a choice of one value or a list (an axis param), a text
    with commas is the list."""
    choices = spec.get("anyOf") or spec.get("oneOf") or [spec]
    many = next((c for c in choices if c.get("type") == "array"), None)
    one = next((c for c in choices if c.get("type") != "array"), None)
    if many is not None and ("," in text or one is None):
        return [_scalar(many.get("items", {}), item.strip())
                for item in text.split(",") if item.strip()]
    return _scalar(one or {}, text)


def _scalar(spec: dict[str, Any], text: str) -> Any:
    kind = spec.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if "enum" in spec:
        known = {str(option): option for option in spec["enum"]}
        if text not in known:
            raise ValueError(f"one of {', '.join(known)}")
        return known[text]
    if kind == "integer":
        try:
            return int(text)
        except ValueError:
            raise ValueError("a whole number") from None
    if kind == "number":
        try:
            number = float(text)
        except ValueError:
            raise ValueError("a number") from None
        if not math.isfinite(number):
            raise ValueError("a finite number")
        return int(number) if number.is_integer() and "." not in text else number
    if kind == "boolean":
        if text.lower() not in _TRUE | _FALSE:
            raise ValueError("true or false")
        return text.lower() in _TRUE
    return text


def label_pairs(pairs: list[str] | None, option: str) -> dict[str, str]:
    """`--label client=rust --label transport=tcp` as a series' labels."""
    labels = {}
    for pair in pairs or []:
        name, equals, text = pair.partition("=")
        if not equals or not name:
            raise CliError(f"{option} {pair!r}: write NAME=VALUE")
        labels[name] = text
    return labels
