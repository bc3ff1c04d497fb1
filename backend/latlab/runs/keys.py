"""The keys that make histories index ranges: a series' history (project, suite, scenario and
labels) and its run's params, hashed. (Migration 0007 keeps a frozen copy of these.)"""

import hashlib
import json
from typing import Any


def label_key(labels: dict[str, str]) -> str:
    """Canonical JSON of a series' labels: series of two runs match when these are equal."""
    return json.dumps(labels, sort_keys=True, separators=(",", ":"))


def history(project_id: int, suite: str, scenario: str, labels_key: str) -> str:
    return hashlib.md5(f"{project_id}|{suite}|{scenario}|{labels_key}".encode()).hexdigest()


def params_key(params: dict[str, Any]) -> str:
    text = json.dumps(params, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.md5(text.encode()).hexdigest()
