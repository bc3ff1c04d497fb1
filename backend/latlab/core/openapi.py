"""The OpenAPI document says what the api does: every route lists the statuses it can answer
with, each error with its real body. Errors that dependencies raise are declared on them
(`raises`), so a route lists those of every dependency it uses; errors its service raises
are declared on the route (`documented`)."""

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from fastapi import FastAPI
from fastapi.dependencies.models import Dependant
from fastapi.dependencies.utils import get_dependant, get_parameterless_sub_dependant
from fastapi.openapi.utils import get_openapi
from fastapi.params import Depends
from pydantic import BaseModel, ConfigDict, Field

from latlab.core.errors import (
    AppError,
    Conflict,
    Forbidden,
    NotFound,
    PayloadTooLarge,
    TooManyRequests,
    Unauthorized,
    Unprocessable,
)
from latlab_contract.result import RunCreate

Call = TypeVar("Call", bound=Callable[..., Any])


class Problem(BaseModel):
    path: str = Field(description="Where: a JSON path into the body ($.series[0].labels), or "
                      "query.<name>, path.<name>, header.<name>")
    message: str
    type: str = Field(description="The kind of problem (missing, string_pattern_mismatch, "
                      "duplicate_key, ...)")


class Problems(BaseModel):
    """A request the api cannot use: each problem named by where it is."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"detail": [
        {"path": "$.suite", "message": "String should match pattern "
         "'^[a-z0-9][a-z0-9._-]{0,63}$'", "type": "string_pattern_mismatch"}]}]})

    detail: list[Problem]


class Message(BaseModel):
    """Any other error: one sentence saying what went wrong."""

    model_config = ConfigDict(json_schema_extra={"examples": [{"detail": "no run 7"}]})

    detail: str


DESCRIPTIONS: dict[type[AppError], str] = {
    Unauthorized: "No valid credentials: sign in, or send a live bearer token",
    Forbidden: "The caller may not do this (role, token scope, project, or a cookie write "
               "without a JSON content type)",
    NotFound: "No such object in the caller's project",
    Conflict: "The request conflicts with the current state",
    PayloadTooLarge: "The body is larger than the api takes",
    TooManyRequests: "Too many requests (failed sign-ins, or over a fair-use limit); see "
                     "Retry-After",
}


def raises(*errors: type[AppError]) -> Callable[[Call], Call]:
    """Declares the errors a dependency can raise: every route using it documents them."""

    def mark(call: Call) -> Call:
        call.__latlab_errors__ = errors  # type: ignore[attr-defined]
        return call

    return mark


def documented(*errors: type[AppError]) -> dict[int | str, dict[str, Any]]:
    """`responses=` for a route: the errors its service can raise."""
    return {error.status_code: _response(error) for error in errors}


def build(app: FastAPI) -> dict[str, Any]:
    schema = get_openapi(title=app.title, version=app.version, description=app.description,
                         routes=app.routes)
    components = schema.setdefault("components", {}).setdefault("schemas", {})
    # POST /runs parses its body itself (straight from bytes); publish the contract anyway.
    contract = RunCreate.model_json_schema(ref_template="#/components/schemas/{model}")
    components.update(contract.pop("$defs", {}))
    components["RunCreate"] = contract
    return schema


def responses_for(path: str, endpoint: Callable[..., Any], dependencies: list[Depends],
                  declared: dict[int | str, dict[str, Any]], reads_body: bool
                  ) -> dict[int | str, dict[str, Any]]:
    """The route's declared responses, and those of the errors its dependencies raise; any
    route may answer 422 (a query parameter holding NUL), one with a path parameter 404 (no
    such object in the caller's project), one with a body 401 and 413 (`core.limits`)."""
    dependant = get_dependant(path=path, call=endpoint)
    for depends in dependencies:
        dependant.dependencies.append(get_parameterless_sub_dependant(depends=depends, path=path))
    found: list[type[AppError]] = [Unprocessable]
    for call in _calls(dependant):
        found += getattr(call, "__latlab_errors__", ())
    if dependant.path_params:
        found.append(NotFound)
    if reads_body or dependant.body_params:
        found += [Unauthorized, PayloadTooLarge]
    responses = dict(declared)
    for error in found:
        responses.setdefault(error.status_code, _response(error))
    return responses


def _calls(dependant: Dependant) -> Iterable[Callable[..., Any]]:
    for sub in dependant.dependencies:
        if sub.call is not None:
            yield sub.call
        yield from _calls(sub)


def _response(error: type[AppError]) -> dict[str, Any]:
    if issubclass(error, Unprocessable):
        return {"model": Problems, "description": "The request is malformed or its content "
                "unusable; each problem names its field"}
    response: dict[str, Any] = {"model": Message, "description": DESCRIPTIONS.get(
        error, error.__doc__ or error.__name__)}
    if error.status_code == 401:
        response["headers"] = {"WWW-Authenticate": {"schema": {"type": "string"}}}
    if error.status_code == 429:
        response["headers"] = {"Retry-After": {
            "description": "Seconds to wait", "schema": {"type": "integer"}}}
    return response
