"""latlab's native program output: one JSON document with `latency_hdr` (standard compressed
HdrHistogram V2, ns), optionally `latency_uncorrected_hdr`, `intervals` and `tuning` (what the
program applied or the host refused), and metrics, either in a `metrics` object or as top-level
numbers named like the suite's declared metrics. One document is one trial of one series;
`labels` (an object of strings) adds labels the program itself knows; `profiles` (objects with
`program`, `tool` and `folded` stacks) are stacks the program recorded of itself, such as where
memcheck found errors."""

import json
from typing import Any

from pydantic import ValidationError

from latlab_contract.parsers.base import ParseContext, Parsed, ParseError, validation_message
from latlab_contract.result import MAX_PROFILES, ProfileIn, SeriesIn, TrialIn


def parse(text: str, context: ParseContext) -> Parsed:
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise ParseError(f"line {error.lineno}: not JSON ({error.msg}): "
                         f"{text[:200]!r}") from error
    if not isinstance(document, dict):
        raise ParseError("$: the output is not a JSON object")
    if not isinstance(document.get("latency_hdr"), str):
        raise ParseError("$.latency_hdr: missing (a base64 HdrHistogram is required)")
    metrics = {name: value for name, value in document.items()
               if name in context.metrics and _number(value)}
    declared = document.get("metrics", {})
    if not isinstance(declared, dict):
        raise ParseError("$.metrics: not an object")
    metrics.update(declared)
    trial: dict[str, Any] = {"latency": {"hdr": document["latency_hdr"]}, "metrics": metrics}
    if document.get("latency_uncorrected_hdr") is not None:
        trial["latency_uncorrected"] = {"hdr": document["latency_uncorrected_hdr"]}
    for key in ("intervals", "tuning"):
        if document.get(key) is not None:
            trial[key] = document[key]
    profiles = document.get("profiles", [])
    if not isinstance(profiles, list) or len(profiles) > MAX_PROFILES or not all(
            isinstance(p, dict) and "labels" not in p for p in profiles):
        raise ParseError(f"$.profiles: not a list of at most {MAX_PROFILES} objects without "
                         f"labels (a profile belongs to the document's series)")
    try:
        series = SeriesIn(labels=document.get("labels", {}),
                          trials=[TrialIn.model_validate(trial)])
        stacks = [ProfileIn.model_validate(profile) for profile in profiles]
    except ValidationError as error:
        raise ParseError(validation_message(error)) from error
    return Parsed(series=[series], profiles=stacks)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
