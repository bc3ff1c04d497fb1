"""A k6 summary's metrics, read in whichever shape k6 wrote them (its classic
`--summary-export` and `handleSummary` data, its `--new-machine-readable-summary`) and
checked: a negative count, rate or time, a rate's ratio outside 0 .. 1 or unlike its passes'
share, trend stats out of order or a gauge outside its min .. max is refused naming the JSON
path and the rule. What the adapter makes of them is `k6`'s.
"""

import itertools
from dataclasses import dataclass
from typing import Any

from latlab_contract.fields import MAX_COUNT
from latlab_contract.parsers.base import ParseError
from latlab_contract.parsers.harness import checked, member
from latlab_contract.parsers.k6_stream import COUNTS, DATA

# k6's own metrics the adapter reads (kept first when a trial has too many) and their kinds
# where a classic --summary-export does not say what a metric contains.
OWN = ("http_reqs", "http_req_duration", "http_req_failed", "checks", "iterations",
       "iteration_duration", "data_received", "data_sent", "dropped_iterations",
       "checks_total", "checks_failed", "checks_succeeded", "vus", "vus_max")
_TOLERANCE = 1e-9  # k6 writes its float64s in full; allow their last bit


@dataclass
class Metric:
    """One metric of a summary, in whichever shape k6 wrote it."""

    name: str  # as k6 names it, a sub-metric with its {tags}
    path: str
    kind: str  # counter, rate, trend, gauge
    values: dict[str, float]
    contains: str  # time, data, default
    repaired: bool = False  # a pre-v0.30 export's rate value of 0, read from its counts

    @property
    def base(self) -> str:
        return self.name.partition("{")[0]

    @property
    def tags(self) -> str:
        """A sub-metric's tags as k6 writes them (`expected_response:true`), else ''."""
        return self.name.partition("{")[2].removesuffix("}")


def described(document: dict[str, Any], machine: bool) -> tuple[list[Metric], float | None]:
    """Every metric of the summary, checked, and k6's test run duration in seconds where the
    summary has it."""
    found: list[Metric] = []
    if machine:
        results = member(document, "results", "$", dict)
        listed = [(f"$.results.metrics[{i}]", m) for i, m in enumerate(
            member(results, "metrics", "$.results", list))]
        checks = results.get("checks")
        if isinstance(checks, dict) and isinstance(checks.get("metrics"), list):
            listed += [(f"$.results.checks.metrics[{i}]", m)
                       for i, m in enumerate(checks["metrics"])]
        for path, raw in listed:
            raw = checked(raw, path, dict)
            found.append(_typed(member(raw, "name", path, str), raw, path))
        config = document.get("config")
        duration = None
        if isinstance(config, dict) and "duration" in config:
            duration = checked(config["duration"], "$.config.duration", float)
            _at_least_zero(duration, "$.config.duration", "a test run duration")
        return found, duration
    for name, raw in member(document, "metrics", "$", dict).items():
        path = f"$.metrics[{name!r}]"
        raw = checked(raw, path, dict)
        found.append(_typed(name, raw, path) if "values" in raw else _classic(name, raw, path))
    state = document.get("state")
    duration = None
    if isinstance(state, dict) and "testRunDurationMs" in state:
        duration = checked(state["testRunDurationMs"], "$.state.testRunDurationMs", float)
        _at_least_zero(duration, "$.state.testRunDurationMs", "a test run duration")
        duration /= 1000
    return found, duration


def _typed(name: str, raw: dict[str, Any], path: str) -> Metric:
    """A metric of handleSummary's data or the machine-readable summary: type, contains,
    values."""
    kind = member(raw, "type", path, str)
    values = member(raw, "values", path, dict)
    contains = raw.get("contains", "default")
    metric = Metric(name, f"{path}.values", kind, _numbers(values, f"{path}.values"),
                     contains if isinstance(contains, str) else "default")
    if metric.base in DATA:
        metric.contains = "data"
    _check(metric)
    return metric


def _classic(name: str, raw: dict[str, Any], path: str) -> Metric:
    """A metric of `--summary-export`: its kind told by its fields."""
    values = _numbers({k: v for k, v in raw.items() if k != "thresholds"}, path)
    base = name.partition("{")[0]
    if "count" in values and "rate" in values:
        kind, contains = "counter", "data" if base in DATA else "default"
    elif "passes" in values and "fails" in values:
        kind, contains = "rate", "default"
    elif "avg" in values or "med" in values:
        kind, contains = "trend", "time"
    elif "value" in values:
        kind, contains = "gauge", "default"
    else:
        raise ParseError(f"{path}: not a k6 metric (no count/rate, passes/fails, value or "
                         "trend stats)")
    metric = Metric(name, path, kind, values, contains)
    if kind == "rate" and values.get("value") == 0 and values["passes"] > 0:
        # k6 before v0.30.0 wrote 0 as every rate's value in --summary-export (its release
        # notes, "Bugs fixed"): the ratio is its passes' share.
        values["value"] = values["passes"] / (values["passes"] + values["fails"])
        metric.repaired = True
    _check(metric)
    return metric


def _numbers(values: dict[str, Any], path: str) -> dict[str, float]:
    return {key: checked(value, f"{path}.{key}", float) for key, value in values.items()}


def _check(metric: Metric) -> None:
    """Refuse what k6 cannot have written: negative counts, rates and times, ratios outside
    0 .. 1 or unlike their counts, trend stats out of order, a gauge outside min .. max."""
    values, path = metric.values, metric.path
    if metric.kind == "counter":
        if metric.base in COUNTS:
            for key in ("count", "rate"):
                if key in values:
                    _at_least_zero(values[key], f"{path}.{key}",
                                   f"a count of {metric.base}" if key == "count"
                                   else "a rate per second")
    elif metric.kind == "rate":
        for key in ("passes", "fails", "matches", "total"):
            if key in values:
                _at_least_zero(values[key], f"{path}.{key}", "a count of values")
                if values[key] != int(values[key]):
                    raise ParseError(f"{path}.{key}: {values[key]} is not a whole number "
                                     "(a count of values)")
        ratio_key = "rate" if "rate" in values else "value"
        ratio = values.get(ratio_key)
        if ratio is None:
            raise ParseError(f"{path}.{ratio_key}: missing")
        if not 0 <= ratio <= 1:
            raise ParseError(f"{path}.{ratio_key}: {ratio} is outside 0 .. 1 (a k6 rate is the "
                             "share of non-zero values)")
        hits, total = rate_counts(metric)
        if total and abs(ratio - hits / total) > 1e-9:
            raise ParseError(f"{path}.{ratio_key}: {ratio} is not the share of its counts "
                             f"({hits:g} of {total:g} = {hits / total:.9g})")
    elif metric.kind == "trend":
        _check_trend(metric)
    elif metric.kind == "gauge":
        if metric.base in OWN:  # vus, vus_max: counts of VUs
            for key, number in values.items():
                _at_least_zero(number, f"{path}.{key}", f"a count of {metric.base}")
        value, least, most = values.get("value"), values.get("min"), values.get("max")
        if value is not None and least is not None and most is not None and not (
                least <= value <= most):
            raise ParseError(f"{path}.value: {value} is outside its min .. max ({least} .. "
                             f"{most})")
    else:
        raise ParseError(f"{path}: unknown metric type '{metric.kind}'")


def _check_trend(metric: Metric) -> None:
    values, path = metric.values, metric.path
    if metric.contains == "time" or metric.base in OWN:
        for stat, value in values.items():
            if stat != "count" and value < 0:
                raise ParseError(f"{path}.{stat}: {value} is negative (a time cannot be)")
    if "count" in values:
        _at_least_zero(values["count"], f"{path}.count", "a count of values")
    ranked = sorted(((q, stat, values[stat]) for stat in values
                     if (q := percentile(stat)) is not None), key=lambda item: item[0])
    for (_, low, low_value), (_, high, high_value) in itertools.pairwise(ranked):
        if low_value > high_value + _TOLERANCE * abs(high_value):
            raise ParseError(f"{path}.{low}: {low_value} is above its {high} ({high_value}): "
                             "k6's trend stats rise from min through med and the "
                             "percentiles to max")
    avg, least, most = values.get("avg"), values.get("min"), values.get("max")
    if avg is not None and least is not None and most is not None and not (
            least - _TOLERANCE * abs(least) <= avg <= most + _TOLERANCE * abs(most)):
        raise ParseError(f"{path}.avg: {avg} is outside min .. max ({least} .. {most})")


def _at_least_zero(value: float, where: str, what: str) -> None:
    if value < 0:
        raise ParseError(f"{where}: {value:g} is negative ({what} cannot be)")


def rate_counts(metric: Metric) -> tuple[float, float]:
    """(non-zero values, all values) of a rate: passes of passes + fails in k6's classic
    shapes, matches of total in its machine-readable one."""
    values = metric.values
    if "matches" in values:
        return values["matches"], values.get("total", 0.0)
    passes, fails = values.get("passes", 0.0), values.get("fails", 0.0)
    return passes, passes + fails


def whole(metric: Metric, key: str) -> int:
    value = metric.values.get(key)
    if value is None:
        raise ParseError(f"{metric.path}.{key}: missing")
    if value != int(value) or not 0 <= value <= MAX_COUNT:
        raise ParseError(f"{metric.path}.{key}: {value} is not a whole count in 0 .. "
                         f"{MAX_COUNT:,}")
    return int(value)


def percentile(stat: str) -> float | None:
    """The percentile a trend stat is (`min` 0, `med` 50, `p(95)` or `p95` 95, `max` 100),
    or None (`avg`, `count`)."""
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
