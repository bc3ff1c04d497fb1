"""k6's results: its end-of-test summary as JSON (the file of `k6 run
--summary-export=FILE`, the data `handleSummary(data)` receives written with
`JSON.stringify(data)`, in k6's classic or `--new-machine-readable-summary` shape), or every
sample (`k6 run --out json=FILE`, one JSON object a line).

From every sample (`--out json`), the latency is each `http_req_duration` point (or
`iteration_duration` without HTTP requests), exact; `requests` and `errors` count the
`http_reqs` and `http_req_failed` points, `checks` is the share of checks passed, and
`throughput` is the requests over the time from the first point to the last (k6's own rate
divides by the whole test's duration, a little longer).

One run is one trial of one series. k6 keeps no distribution in its summary, only the trend
stats it was asked for, so the latency is rebuilt from `http_req_duration`'s min, med, p(..)
and max over `http_reqs.count` requests (`harness.spectrum`: interpolated between the
printed percentiles), and the trial's summary keeps k6's own min, med, p(..), max and avg
(ask for the tail with `--summary-trend-stats "avg,min,med,max,p(90),p(95),p(99),p(99.9)"`;
with k6's default stats, P99 and above are interpolated between p(95) and the max). A
script without HTTP requests gets its latency from `iteration_duration` over
`iterations.count`.

Every metric of the summary becomes metrics: `http_reqs`' rate is `throughput`, a counter
gives `<name>` (its count) and `<name>_rate` (per second), a rate `<name>` (a ratio), a gauge
`<name>`, a trend `<name>_<stat>` in ms (`http_req_duration_p99.9`), and
`thresholds_failed` counts the thresholds k6 reported as crossed. Submetrics
(`http_req_duration{expected_response:true}`) are left out.
"""

import re
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from latlab_contract.parsers.base import ParseContext, Parsed, ParseError, validation_message
from latlab_contract.parsers.harness import (
    checked,
    duration_ns,
    load_json,
    member,
    metric_name,
    samples,
    spectrum,
)
from latlab_contract.result import Latency, SeriesIn, TrialIn
from latlab_contract.vocabulary import Direction, MetricSpec

# The latency trend and the counter of its values, in order of preference.
_LATENCY = (("http_req_duration", "http_reqs"), ("iteration_duration", "iterations"))
_DIRECTIONS: dict[str, Direction] = {"http_req_failed": "lower", "checks": "higher"}
_UNITS = {"time": "ms", "data": "B"}


def parse(text: str, context: ParseContext) -> Parsed:
    if _is_stream(text):
        return _stream(text)
    document = checked(load_json(text), "$", dict)
    if "results" in document and "metrics" not in document:  # machine-readable summary
        described = {member(m, "name", f"$.results.metrics[{i}]", str): m for i, m in enumerate(
            member(member(document, "results", "$", dict), "metrics", "$.results", list))}
    else:
        described = member(document, "metrics", "$", dict)
    metrics: dict[str, float] = {"thresholds_failed": 0.0}
    info = {"thresholds_failed": MetricSpec(unit="count", direction="lower",
                                            label="k6 thresholds crossed")}
    kinds: dict[str, tuple[str, dict[str, Any]]] = {}
    for name, raw in described.items():
        if "{" in name:
            continue
        path = f"$.metrics[{name!r}]"
        kind, values, contains = _read(checked(raw, path, dict), path)
        kinds[name] = (kind, values)
        metrics["thresholds_failed"] += _crossed(raw.get("thresholds"), f"{path}.thresholds")
        for key, value, spec in _metrics(name, kind, values, contains, path):
            metrics[key] = value
            info[key] = spec
    latency = _latency(kinds)
    try:
        series = SeriesIn(trials=[TrialIn(latency=latency, metrics=metrics)])
    except ValidationError as error:
        raise ParseError(validation_message(error)) from error
    return Parsed(series=[series], metric_info=info)


def _read(raw: dict[str, Any], path: str) -> tuple[str, dict[str, Any], str]:
    """(kind, values, what it contains) of a metric in either summary format."""
    if "values" in raw:  # handleSummary's data
        kind = member(raw, "type", path, str)
        return kind, member(raw, "values", path, dict), str(raw.get("contains", "default"))
    values = {key: value for key, value in raw.items() if key != "thresholds"}
    if "count" in values and "rate" in values:
        return "counter", values, "default"
    if "passes" in values and "fails" in values:
        return "rate", values, "default"
    if "avg" in values or "med" in values:
        return "trend", values, "time"
    if "value" in values:
        return "gauge", values, "default"
    raise ParseError(f"{path}: not a k6 metric (no count/rate, passes/fails, value or trend "
                     "stats)")


def _metrics(name: str, kind: str, values: dict[str, Any], contains: str,
             path: str) -> list[tuple[str, float, MetricSpec]]:
    key = metric_name(name)
    unit = _UNITS.get(contains, "")
    if kind == "trend":
        return [(f"{key}_{metric_name(stat)}", checked(value, f"{path}.{stat}", float),
                 MetricSpec(unit=unit, direction="lower" if unit == "ms" else "none",
                            label=f"{name} {stat}"))
                for stat, value in values.items()]
    if kind == "counter":
        count = member(values, "count", path, float)
        rate = member(values, "rate", path, float) if "rate" in values else None
        found = [("requests" if name == "http_reqs" else key, count,
                  MetricSpec(unit=unit or "count", direction="none"))]
        if rate is not None and name == "http_reqs":
            found.append(("throughput", rate, MetricSpec(unit="req/s", direction="higher")))
        elif rate is not None:
            found.append((f"{key}_rate", rate, MetricSpec(unit=f"{unit or 'count'}/s",
                                                          direction="none")))
        return found
    if kind == "rate":
        return [(key, member(values, "value" if "value" in values else "rate", path, float),
                 MetricSpec(unit="ratio", direction=_DIRECTIONS.get(name, "none")))]
    if kind == "gauge":
        return [(key, member(values, "value", path, float),
                 MetricSpec(unit=unit or "", direction="none"))]
    raise ParseError(f"{path}.type: unknown metric type '{kind}'")


def _crossed(thresholds: Any, path: str) -> int:
    """How many thresholds k6 reported as crossed: `{"p(99)<500": false}` in the export
    (true = crossed), `{"p(99)<500": {"ok": true}}` in handleSummary's data."""
    if thresholds is None:
        return 0
    crossed = 0
    for expression, state in checked(thresholds, path, dict).items():
        if isinstance(state, dict):
            crossed += state.get("ok") is False
        elif isinstance(state, bool):
            crossed += state
        else:
            raise ParseError(f"{path}[{expression!r}]: expected true/false or {{ok}}")
    return crossed


def _latency(kinds: dict[str, tuple[str, dict[str, Any]]]) -> Latency:
    for trend, counter in _LATENCY:
        if trend not in kinds or counter not in kinds:
            continue
        values = kinds[trend][1]
        path = f"$.metrics.{trend}"
        points = []
        for stat, value in values.items():
            percentile = _percentile(stat)
            if percentile is not None:
                points.append((percentile, duration_ns(
                    checked(value, f"{path}.{stat}", float), "ms", f"{path}.{stat}")))
        count = member(kinds[counter][1], "count", f"$.metrics.{counter}", float)
        if count != int(count):
            raise ParseError(f"$.metrics.{counter}.count: {count} is not a whole number")
        mean = values.get("avg")
        return spectrum(points, int(count), path, mean=None if mean is None else duration_ns(
            checked(mean, f"{path}.avg", float), "ms", f"{path}.avg"))
    raise ParseError("$.metrics.http_req_duration: missing (and no iteration_duration)")


def _percentile(stat: str) -> float | None:
    if stat == "min":
        return 0.0
    if stat == "med":
        return 50.0
    if stat == "max":
        return 100.0
    # p(99.9) in k6's classic summaries, p99.9 in its machine-readable one
    number = stat[2:-1] if stat.startswith("p(") and stat.endswith(")") else stat[1:]
    if stat.startswith("p"):
        try:
            return float(number)
        except ValueError:
            return None
    return None


def _is_stream(text: str) -> bool:
    first = text.lstrip()[:200]
    return first.startswith('{"') and ('"type":"Metric"' in first or '"type":"Point"' in first
                                       or '"type": "Metric"' in first)


def _stream(text: str) -> Parsed:
    """Every sample of `k6 run --out json=FILE`."""
    durations: dict[str, list[int]] = {trend: [] for trend, _ in _LATENCY}
    counts = {"http_reqs": 0.0, "http_req_failed": 0.0, "checks": 0.0, "checks_total": 0.0}
    first: str | None = None
    last: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"line {number}"
        item = checked(load_json(line), where, dict)
        if item.get("type") != "Point":
            continue
        data = member(item, "data", where, dict)
        name = member(item, "metric", where, str)
        value = member(data, "value", f"{where}.data", float)
        moment = member(data, "time", f"{where}.data", str)
        first, last = first or moment, max(last or moment, moment)
        if name in durations:
            durations[name].append(round(duration_ns(value, "ms", f"{where}.data.value")))
        elif name in ("http_reqs", "http_req_failed"):
            counts[name] += value
        elif name == "checks":
            counts["checks"] += value
            counts["checks_total"] += 1
    trend = next((trend for trend, _ in _LATENCY if durations[trend]), None)
    if trend is None:
        raise ParseError("line 1: no http_req_duration or iteration_duration points (is it "
                         "`k6 run --out json` output?)")
    metrics = {"requests": counts["http_reqs"], "errors": counts["http_req_failed"]}
    info = {"requests": MetricSpec(unit="count", direction="none"),
            "errors": MetricSpec(unit="count", direction="lower", label="failed requests")}
    seconds = _seconds_between(first, last)
    if seconds > 0 and counts["http_reqs"]:
        metrics["throughput"] = counts["http_reqs"] / seconds
        info["throughput"] = MetricSpec(unit="req/s", direction="higher")
    if counts["checks_total"]:
        metrics["checks"] = counts["checks"] / counts["checks_total"]
        info["checks"] = MetricSpec(unit="ratio", direction="higher")
    try:
        series = SeriesIn(trials=[TrialIn(latency=samples(durations[trend], trend),
                                          metrics=metrics)])
    except ValidationError as error:
        raise ParseError(validation_message(error)) from error
    return Parsed(series=[series], metric_info=info)


def _seconds_between(first: str | None, last: str | None) -> float:
    """Seconds between two of k6's RFC 3339 times (nanoseconds cut to microseconds)."""
    if first is None or last is None:
        return 0.0
    try:
        start, end = (datetime.fromisoformat(re.sub(r"(\.\d{6})\d+", r"\1", moment.replace(
            "Z", "+00:00"))) for moment in (first, last))
    except ValueError as error:
        raise ParseError(f"a point's time is not RFC 3339: {error}") from None
    return (end - start).total_seconds()
