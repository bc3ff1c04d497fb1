"""Writes gitlab.com.subset.json: the operations `latlab submit --comment` calls in GitLab CI,
from GitLab's OpenAPI v2 description where it has them, from GitLab's source where it has not
(see README.md).

    python3 extract.py openapi_v2.yaml > gitlab.com.subset.json

The commit status operation is copied unchanged from doc/api/openapi/openapi_v2.yaml, with
every definition it refers to. The merge request notes operations are not in that file
(lib/api/api.rb mounts API::Notes outside the endpoints it documents): they are written below
in the same shape, translated from lib/api/notes.rb and lib/api/entities/note.rb, and each
carries `x-latlab-from-source` naming the file and commit it was read from."""

import json
import sys
from typing import Any

import yaml

FROM_DESCRIPTION = [("/api/v4/projects/{id}/statuses/{sha}", "post")]

NOTES_RB = "gitlabhq/gitlabhq lib/api/notes.rb @ 017a6c129d6a9e4ad9fec792cd84f88641d7dbfe"
NOTE_ENTITY = ("gitlabhq/gitlabhq lib/api/entities/note.rb @ "
               "ba0f3164d55d31dedaebd6ebda6232beb2681c86 (types: the columns it exposes, as "
               "doc/api/notes.md @ 077b92f78ba9cd89df1003a0e733f3620d6970b4 shows them)")

# `requires :id, type: String, desc: "The ID of a #{parent_type}"` and `requires :noteable_id,
# type: Integer, desc: 'The ID of the noteable'` (the merge request's iid), in every route.
_PROJECT = {"in": "path", "name": "id", "description": "The ID of a project", "type": "string",
            "required": True}
_NOTEABLE = {"in": "path", "name": "noteable_id", "description": "The ID of the noteable",
             "type": "integer", "format": "int32", "required": True}
# `use :pagination`, as the description writes it for every paginated list.
_PAGINATION = [
    {"in": "query", "name": "page", "description": "Current page number", "type": "integer",
     "format": "int32", "default": 1, "required": False, "example": 1},
    {"in": "query", "name": "per_page", "description": "Number of items per page",
     "type": "integer", "format": "int32", "default": 20, "required": False, "example": 20}]


def _body(name: str) -> dict[str, Any]:
    return {"name": name, "in": "body", "required": True,
            "schema": {"$ref": f"#/definitions/{name}"}}


def _note_answer(description: str, listed: bool = False) -> dict[str, Any]:
    note = {"$ref": "#/definitions/API_Entities_Note"}
    # The list is an array (`present notes, with: Entities::Note`).
    return {"description": description,
            "schema": {"type": "array", "items": note} if listed else note}


NOTES_PATHS: dict[str, dict[str, Any]] = {
    "/api/v4/projects/{id}/merge_requests/{noteable_id}/notes": {
        "get": {
            "description": "Get a list of merge request notes",
            "produces": ["application/json"],
            "parameters": [_PROJECT, _NOTEABLE, {
                "in": "query", "name": "order_by",
                "description": "Return notes ordered by `created_at` or `updated_at` fields.",
                "type": "string", "default": "created_at",
                "enum": ["created_at", "updated_at"], "required": False,
            }, {
                "in": "query", "name": "sort",
                "description": "Return notes sorted in `asc` or `desc` order.",
                "type": "string", "default": "desc", "enum": ["asc", "desc"],
                "required": False,
            }, {
                # values: UserPreference::NOTES_FILTERS.stringify_keys.keys
                "in": "query", "name": "activity_filter",
                "description": "The type of notables which are returned.", "type": "string",
                "default": "all_notes", "enum": ["all_notes", "only_comments", "only_activity"],
                "required": False,
            }, *_PAGINATION],
            "responses": {"200": _note_answer("Get a list of merge request notes", True)},
            "tags": ["notes"],
            "operationId": "getApiV4ProjectsIdMergeRequestsNoteableIdNotes",
            "x-latlab-from-source": NOTES_RB,
        },
        "post": {
            "description": "Create a new merge request note",
            "produces": ["application/json"], "consumes": ["application/json"],
            "parameters": [_PROJECT, _NOTEABLE,
                           _body("postApiV4ProjectsIdMergeRequestsNoteableIdNotes")],
            "responses": {"201": _note_answer("Create a new merge request note")},
            "tags": ["notes"],
            "operationId": "postApiV4ProjectsIdMergeRequestsNoteableIdNotes",
            "x-latlab-from-source": NOTES_RB,
        },
    },
    "/api/v4/projects/{id}/merge_requests/{noteable_id}/notes/{note_id}": {
        "put": {
            "description": "Update an existing merge request note",
            "produces": ["application/json"], "consumes": ["application/json"],
            "parameters": [_PROJECT, _NOTEABLE, {
                "in": "path", "name": "note_id", "description": "The ID of a note",
                "type": "integer", "format": "int32", "required": True,
            }, _body("putApiV4ProjectsIdMergeRequestsNoteableIdNotesNoteId")],
            "responses": {"200": _note_answer("Update an existing merge request note")},
            "tags": ["notes"],
            "operationId": "putApiV4ProjectsIdMergeRequestsNoteableIdNotesNoteId",
            "x-latlab-from-source": NOTES_RB,
        },
    },
}

_STRING, _BOOLEAN = {"type": "string"}, {"type": "boolean"}
_INTEGER, _TIME = {"type": "integer", "format": "int32"}, {"type": "string", "format": "date-time"}
_USER = {"$ref": "#/definitions/API_Entities_UserBasic"}

NOTES_DEFINITIONS: dict[str, dict[str, Any]] = {
    "postApiV4ProjectsIdMergeRequestsNoteableIdNotes": {
        "type": "object",
        "properties": {
            "body": {"type": "string", "description": "The content of a note"},
            "confidential": {"type": "boolean",
                             "description": "[Deprecated in 15.5] Renamed to internal"},
            "internal": {"type": "boolean",
                         "description": "Internal note flag, default is false"},
            "created_at": {"type": "string", "description": "The creation date of the note"},
            "merge_request_diff_head_sha": {"type": "string",
                                            "description": "The SHA of the head commit"},
        },
        "required": ["body"],
        "description": "Create a new merge request note",
        "x-latlab-from-source": NOTES_RB,
    },
    "putApiV4ProjectsIdMergeRequestsNoteableIdNotesNoteId": {
        "type": "object",
        "properties": {
            # `optional :body, type: String, allow_blank: false`
            "body": {"type": "string", "description": "The content of a note"},
            "confidential": {
                "type": "boolean",
                "description": "[Deprecated in 14.10] No longer allowed to update "
                               "confidentiality of notes"},
        },
        "description": "Update an existing merge request note",
        "x-latlab-from-source": NOTES_RB,
    },
    "API_Entities_Note": {
        "type": "object",
        "properties": {
            "id": _INTEGER, "type": _STRING, "body": _STRING, "attachment": _STRING,
            "author": _USER, "created_at": _TIME, "updated_at": _TIME, "system": _BOOLEAN,
            "noteable_id": _INTEGER, "noteable_type": _STRING, "project_id": _INTEGER,
            "commit_id": _STRING, "position": {"type": "object"}, "resolvable": _BOOLEAN,
            "resolved": _BOOLEAN, "resolved_by": _USER, "resolved_at": _TIME,
            "confidential": _BOOLEAN, "internal": _BOOLEAN, "imported": _BOOLEAN,
            "imported_from": {"type": "string", "example": "github"},
            "noteable_iid": _INTEGER, "commands_changes": {"type": "object"},
        },
        "description": "API_Entities_Note model",
        "x-latlab-from-source": NOTE_ENTITY,
    },
}


def _references(node: Any) -> set[str]:
    if isinstance(node, dict):
        found = {node["$ref"].rsplit("/", 1)[1]} if "$ref" in node else set()
        return found.union(*(_references(value) for value in node.values()))
    if isinstance(node, list):
        return set().union(*(_references(item) for item in node))
    return set()


def subset(description: dict[str, Any]) -> dict[str, Any]:
    paths: dict[str, dict[str, Any]] = {}
    for path, method in FROM_DESCRIPTION:
        paths.setdefault(path, {})[method] = description["paths"][path][method]
    paths |= NOTES_PATHS
    definitions = dict(NOTES_DEFINITIONS)
    wanted = (_references(paths) | _references(definitions)) - definitions.keys()
    while wanted:  # each definition referred to, and those it refers to
        name = wanted.pop()
        definitions[name] = description["definitions"][name]
        wanted |= _references(definitions[name]) - definitions.keys()
    return {key: description[key] for key in
            ("swagger", "info", "host", "produces", "securityDefinitions")} | {
        "paths": paths, "definitions": definitions}


if __name__ == "__main__":
    with open(sys.argv[1]) as source:
        json.dump(subset(yaml.safe_load(source)), sys.stdout, indent=1, sort_keys=True)
    print()
