"""k6's every sample: `k6 run --out json=FILE`, one JSON object a line (`k6` reads its
summaries; the metric names and the series builder here are both formats').

The latency is each `http_req_duration` point (or
`iteration_duration` without HTTP requests), exact, and each sub-metric of it that k6
declared (the `Metric` line's `submetrics`) a series of the points with its tags.
`requests`, `errors` and `checks` count the `http_reqs`, `http_req_failed` and `checks`
points, `data_received`/`data_sent` sum their bytes, and the rates divide by the test's
duration as k6 counts it (from the start of the run to its end, setup and teardown
included): k6 writes no duration into this file, so it is taken from the earliest
iteration's start (an `iteration_duration` point's time less its value) or the first point,
to the last point (k6's `vus` ticks aside); the points' own span would miss the time before
the first response and after the last (+7.2 % throughput on a script that sleeps).
"""

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from latlab_contract.latency import Latency
from latlab_contract.parsers.base import Parsed, ParseError, validation_message
from latlab_contract.parsers.harness import checked, duration_ns, load_json, member, samples
from latlab_contract.result import Failures, SeriesIn, TrialIn
from latlab_contract.vocabulary import MetricSpec

# The latency trend and the counter of its values, in order of preference.
LATENCY = (("http_req_duration", "http_reqs"), ("iteration_duration", "iterations"))
DATA = ("data_received", "data_sent")
# Counters that count things: a negative count is impossible.
COUNTS = ("http_reqs", "iterations", "data_received", "data_sent", "dropped_iterations",
          "checks_total")


def series_of(labels: dict[str, str], latency: Latency, metrics: dict[str, float],
              failures: Failures | None) -> SeriesIn:
    """A series of one trial; what breaks the contract named."""
    try:
        return SeriesIn(labels=labels, trials=[TrialIn(latency=latency, metrics=metrics,
                                                       failures=failures)])
    except ValidationError as error:
        raise ParseError(validation_message(error)) from error


def is_stream(text: str) -> bool:
    """Whether the text is `--out json` output (its first line a Metric or Point)."""
    first = text.lstrip()[:200]
    return first.startswith('{"') and ('"type":"Metric"' in first or '"type":"Point"' in first
                                       or '"type": "Metric"' in first)


@dataclass
class _Declared:
    """What a `Metric` line of the stream said of a metric."""

    contains: str
    submetrics: list[tuple[str, dict[str, str]]]  # (tags as k6 writes them, tags)


def parse(text: str) -> Parsed:
    """Every sample of `k6 run --out json=FILE`."""
    declared: dict[str, _Declared] = {}
    points: dict[str, list[tuple[float, dict[str, Any]]]] = {}
    starts: list[float] = []
    ends: list[float] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"line {number}"
        item = checked(load_json(line), where, dict)
        if item.get("type") == "Metric":
            _declare(item, where, declared)
            continue
        if item.get("type") != "Point":
            continue
        data = member(item, "data", where, dict)
        name = member(item, "metric", where, str)
        value = member(data, "value", f"{where}.data", float)
        moment = _seconds(member(data, "time", f"{where}.data", str), f"{where}.data.time")
        tags = data.get("tags") or {}
        _check_point(name, value, f"{where}.data.value")
        if name not in ("vus", "vus_max"):  # k6's 1 s ticks, from before the run's start
            starts.append(moment - value / 1000 if name == "iteration_duration" else moment)
            ends.append(moment)
        points.setdefault(name, []).append((value, tags if isinstance(tags, dict) else {}))
    trend = next((trend for trend, _ in LATENCY if points.get(trend)), None)
    if trend is None:
        raise ParseError("line 1: no http_req_duration or iteration_duration points (is it "
                         "`k6 run --out json` output?)")
    seconds = max(ends) - min(starts)
    requests = points.get("http_reqs", [])
    failed = points.get("http_req_failed", [])
    checks = points.get("checks", [])
    metrics = {"requests": sum(v for v, _ in requests), "errors": sum(v for v, _ in failed)}
    info = {"requests": MetricSpec(unit="count", direction="none"),
            "errors": MetricSpec(unit="count", direction="lower", label="failed requests")}
    if seconds > 0 and requests:
        metrics["throughput"] = metrics["requests"] / seconds
        info["throughput"] = MetricSpec(unit="req/s", direction="higher")
    if checks:
        metrics["checks"] = sum(v for v, _ in checks) / len(checks)
        info["checks"] = MetricSpec(unit="ratio", direction="higher")
    for name in DATA:
        if name in points:
            metrics[name] = sum(v for v, _ in points[name])
            info[name] = MetricSpec(unit="B", direction="none", label=name)
            if seconds > 0:
                metrics[f"{name}_rate"] = metrics[name] / seconds
                info[f"{name}_rate"] = MetricSpec(unit="B/s", direction="none")
    durations = points[trend]
    series = [series_of({}, _samples(durations, trend), metrics, _stream_failures(failed, checks))]
    subs = list((declared.get(trend) or _Declared("time", [])).submetrics)
    if trend == "http_req_duration" and not subs and any(
            "expected_response" in tags for _, tags in durations):
        subs.append(("expected_response:true", {"expected_response": "true"}))
    for label, wanted in subs:
        chosen = [(v, tags) for v, tags in durations
                  if all(str(tags.get(k)) == v2 for k, v2 in wanted.items())]
        if chosen:
            sub_metrics = {"requests": float(len(chosen))}
            if "throughput" in metrics:
                sub_metrics["throughput"] = len(chosen) / seconds
            series.append(series_of({"submetric": label}, _samples(chosen, trend), sub_metrics,
                                  None))
    return Parsed(series=series, metric_info=info)


def _declare(item: dict[str, Any], where: str, declared: dict[str, _Declared]) -> None:
    data = member(item, "data", where, dict)
    name = member(data, "name", f"{where}.data", str)
    subs = []
    for index, sub in enumerate(data.get("submetrics") or []):
        path = f"{where}.data.submetrics[{index}]"
        sub = checked(sub, path, dict)
        tags = {str(k): str(v) for k, v in checked(sub.get("tags") or {}, f"{path}.tags",
                                                   dict).items()}
        suffix = sub.get("suffix")
        subs.append((suffix if isinstance(suffix, str) and suffix else ",".join(
            f"{k}:{v}" for k, v in tags.items()), tags))
    contains = data.get("contains")
    declared[name] = _Declared(contains if isinstance(contains, str) else "default", subs)


def _check_point(name: str, value: float, where: str) -> None:
    if name in ("http_req_failed", "checks") and value not in (0, 1):
        raise ParseError(f"{where}: {value:g} is not 0 or 1 (a {name} sample is true or "
                         "false)")
    if name in COUNTS and value < 0:
        raise ParseError(f"{where}: {value:g} is negative (a {name} sample counts up)")


def _samples(points: list[tuple[float, dict[str, Any]]], where: str) -> Latency:
    return samples((round(duration_ns(value, "ms", where)) for value, _ in points), where)


def _stream_failures(failed: list[tuple[float, dict[str, Any]]],
                     checks: list[tuple[float, dict[str, Any]]]) -> Failures | None:
    """Failed requests of all (http_req_failed samples), else failed checks of all."""
    failed_requests = int(sum(v for v, _ in failed))
    failed_checks = len(checks) - int(sum(v for v, _ in checks))
    words = []
    if failed_requests:
        words.append(f"http_req_failed {100 * failed_requests / len(failed):.2f}% "
                     f"{failed_requests} out of {len(failed)}")
    if failed_checks:
        by_name: dict[str, list[int]] = {}
        for value, tags in checks:
            counted = by_name.setdefault(str(tags.get("check", "?")), [0, 0])
            counted[0 if value else 1] += 1
        words.append(f"checks_failed {100 * failed_checks / len(checks):.2f}% {failed_checks} "
                     f"out of {len(checks)}" + "".join(
                         f"; ✗ {name} ✓ {passes} / ✗ {fails}"
                         for name, (passes, fails) in by_name.items() if fails))
    if not words:
        return None
    detail = "k6: " + "; ".join(words)
    detail = detail if len(detail) <= 500 else detail[:497] + "..."
    if failed_requests:
        return Failures(failed=failed_requests, total=len(failed), detail=detail)
    return Failures(failed=failed_checks, total=len(checks), detail=detail)


def _seconds(moment: str, where: str) -> float:
    """One of k6's RFC 3339 times (nanoseconds cut to microseconds) as seconds since the
    epoch."""
    try:
        return datetime.fromisoformat(re.sub(r"(\.\d{6})\d+", r"\1", moment.replace(
            "Z", "+00:00"))).timestamp()
    except ValueError as error:
        raise ParseError(f"{where}: not an RFC 3339 time ({error})") from None

