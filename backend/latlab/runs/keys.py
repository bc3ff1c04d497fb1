"""The keys that make histories index ranges: a series' history (project, suite, scenario and
labels) and its run's params, hashed. (Migration 0007 keeps a frozen copy of these.)"""

import hashlib
import json
from collections.abc import Mapping
from typing import Any


def label_key(labels: dict[str, str]) -> str:
    """Canonical JSON of a series' labels: series of two runs match when these are equal."""
    return json.dumps(labels, sort_keys=True, separators=(",", ":"))


def history(project_id: int, suite: str, scenario: str, labels_key: str) -> str:
    return hashlib.md5(f"{project_id}|{suite}|{scenario}|{labels_key}".encode()).hexdigest()


def params_key(params: dict[str, Any], omitted: Mapping[str, Any] | None = None) -> str:
    """A hash of a run's params; those in `omitted` (a suite's params added after runs were
    stored, `suites.service.omitted_params`) are left out at the value given there (their
    default), so runs made before and after such a param share one history."""
    kept = {name: value for name, value in params.items()
            if not (omitted and name in omitted and omitted[name] == value)}
    text = json.dumps(kept, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.md5(text.encode()).hexdigest()
