"""Program outputs -> trials of the result contract. Tested on captured real outputs
(`workers/tests/golden/`); every parser bug adds a golden file."""

import json
from typing import Any

from latlab_workers.suites import Suite


class OutputError(Exception):
    pass


def parse_output(kind: str, stdout: str, suite: Suite) -> dict[str, Any]:
    if kind == "latlab-json":
        return parse_latlab_json(stdout, suite)
    raise OutputError(f"unknown output kind '{kind}'")


def parse_latlab_json(stdout: str, suite: Suite) -> dict[str, Any]:
    """latlab's native program output: one JSON document with `latency_hdr` (standard
    compressed HdrHistogram, ns), optionally `latency_uncorrected_hdr`, `intervals` and
    `tuning` (what the program applied or the host refused), and the suite's metrics as
    top-level numbers."""
    try:
        document = json.loads(stdout)
    except json.JSONDecodeError as error:
        raise OutputError(f"the program's output is not JSON: {stdout[:200]!r}") from error
    if not isinstance(document, dict) or not isinstance(document.get("latency_hdr"), str):
        raise OutputError("the program's output has no latency_hdr")
    trial: dict[str, Any] = {
        "latency": {"hdr": document["latency_hdr"]},
        "metrics": {
            name: float(document[name]) for name in suite.metrics
            if isinstance(document.get(name), int | float)
            and not isinstance(document.get(name), bool)
        },
    }
    if isinstance(document.get("latency_uncorrected_hdr"), str):
        trial["latency_uncorrected"] = {"hdr": document["latency_uncorrected_hdr"]}
    if isinstance(document.get("intervals"), list):
        trial["intervals"] = document["intervals"]
    if isinstance(document.get("tuning"), dict):
        trial["tuning"] = {str(k): str(v) for k, v in document["tuning"].items()}
    return trial
