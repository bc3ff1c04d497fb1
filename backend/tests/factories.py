"""Result documents (`latlab.result/v1`) for tests."""

import copy
from typing import Any

import numpy as np


def samples(n: int = 1000, seed: int = 7, scale_ns: float = 350_000) -> list[int]:
    rng = np.random.default_rng(seed)
    return [int(v) for v in rng.lognormal(np.log(scale_ns), 0.3, n)]


def result(
    *,
    series: list[dict[str, Any]] | None = None,
    suite: str = "http-order",
    scenario: str = "medium",
    branch: str = "main",
    commit: str = "9f1c2e7",
    host: str = "lab-07",
    **overrides: Any,
) -> dict[str, Any]:
    document: dict[str, Any] = {
        "schema": "latlab.result/v1",
        "suite": suite,
        "scenario": scenario,
        "params": {"orders": 1000, "connections": 50, "warmup": 100, "load": "closed"},
        "started_at": "2026-11-22T10:00:00Z",
        "finished_at": "2026-11-22T10:00:12Z",
        "source": {"kind": "ci", "commit": commit, "branch": branch,
                   "build_url": "https://ci.example/builds/1", "pull_request": 42},
        "host": {"name": host, "tags": ["hft-tuned"],
                 "fingerprint": {"kernel": "6.14.0", "governor": "performance", "thp": "never",
                                 "isolcpus": "8-27"}},
        "series": series if series is not None else [
            {"labels": {"client": "rust"},
             "trials": [{"latency": {"samples_ns": samples()},
                         "metrics": {"throughput": 115554.0, "success_rate": 1.0, "errors": 0}}]},
        ],
    }
    document.update(overrides)
    return document


def edited(document: dict[str, Any], path: str, value: Any) -> dict[str, Any]:
    """A copy of `document` with the value at a dotted path (list indexes as numbers) replaced."""
    copied = copy.deepcopy(document)
    *parents, last = path.split(".")
    target: Any = copied
    for part in parents:
        target = target[int(part)] if part.isdigit() else target[part]
    if last.isdigit():
        target[int(last)] = value
    else:
        target[last] = value
    return copied
