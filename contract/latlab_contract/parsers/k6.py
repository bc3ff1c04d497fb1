"""k6's results: its end-of-test summary as JSON (the file of `k6 run
--summary-export=FILE`, the data `handleSummary(data)` receives written with
`JSON.stringify(data)`, in k6's classic or `--new-machine-readable-summary` shape), or every
sample (`k6 run --out json=FILE`, one JSON object a line).

From a summary, one run is one trial of the series of all requests (without labels; and
one of each sub-metric series, below). k6 keeps no distribution in it, only the
trend stats it was asked for (by default avg, min, med, max, p(90), p(95): no p(99)), so the
latency is rebuilt from `http_req_duration`'s min, med, p(..) and max over `http_reqs.count`
requests, keeping k6's avg as the histogram's mean (`harness.spectrum`: the values between
the printed percentiles interpolated, marked `rebuilt`). The trial's summary (`reported`)
holds only what k6 printed: min, med, its p(..), max and avg. The gate judges the highest
percentile k6 printed (p99 when asked for with `--summary-trend-stats`, else p95, p90 or the
median) and the throughput, never one interpolated between p(95) and the max; a note says
which stats k6 did not print and the `--summary-trend-stats` line that gives them (k6's
machine-readable summary keeps only avg, min, med, max, p90 and p95 whatever is asked for).
A script without HTTP requests gets its latency from `iteration_duration` over
`iterations.count`.

Failures: `http_req_failed` is a rate of failed requests (by default a status outside
200 .. 399 or no response): in the classic summary its `passes` count the requests that
FAILED (k6's rate counts the non-zero values, here "true, it failed", grafana/k6#2306) and
its `fails` the ones that did not; the machine-readable one has `matches` of `total`. A run
with failed requests carries them as the trial's `failures` (of `http_reqs.count`), with
k6's own words ("http_req_failed 95.00% 951 out of 1001") and its failed checks; a run whose
requests all succeeded but whose checks failed carries the failed checks of all checks.

Sub-metrics (`http_req_duration{expected_response:true}`: the successful requests only, or
any `{tag:value}` a threshold names) are kept in two ways. Of the latency trend, each one
whose count is known becomes a series of its own, labelled `submetric` with the tags as k6
writes them (`expected_response:true`), whose latency is rebuilt as above: a user comparing
runs compares the successful requests' p95 with the same series of the baseline, beside the
p95 of all requests (in a run where 95 % of the requests fail fast, the latter is the
failures' p95), and the gate judges it too. Its `requests` are its count and its
`throughput` that count over k6's test run duration, as k6 rates every counter (for
`{expected_response:true}`: the successful requests a second). Its count is
`http_req_failed`'s successes for `{expected_response:true}`, else the trend's own `count`
stat or the `http_reqs` sub-metric of the same tags; one without a count stays a set of
metrics only, and a note says so. Every sub-metric is also kept among the main trial's
metrics, as `<name>.<tags>_<stat>` (`http_req_duration.expected_response_true_p95`).

Metrics: `http_reqs`' rate is `throughput` (where k6 wrote no rate, as in its
machine-readable summary, its count over k6's test run duration, `config.duration` or
`state.testRunDurationMs`), a counter gives `<name>` (its count; `data_received` and
`data_sent` in bytes, in every format) and `<name>_rate` (per second), a rate `<name>` (a
ratio; k6 before v0.30.0 wrote 0 for every rate's value in --summary-export, so a 0 beside
passes is read as the passes' share, with a note), a gauge `<name>`, a trend
`<name>_<stat>` in ms (`http_req_duration_p99.9`; its `count` stat a count), and
`thresholds_failed` counts the thresholds k6 reported as crossed.
A trial holds at most `MAX_METRICS` metrics: k6's own metrics come first, then the script's
custom ones by name, each whole or not at all, and a note names the ones left out (a script
with hundreds of custom trends).

Every sample (`--out json`) is read by `k6_stream`; a summary's metrics are read and
checked by `k6_summary`.

Impossible input is refused, naming the JSON path (or line) and the rule: a negative count,
rate or time; a rate's ratio outside 0 .. 1 or not its passes' share; trend stats out of
order (min, med, p(..), max rising; avg between min and max); a gauge outside its min .. max
(`vus`, `vus_max` below 0).
"""

import hashlib
from typing import Any

from latlab_contract.fields import Scalar
from latlab_contract.latency import Latency
from latlab_contract.parsers import k6_stream
from latlab_contract.parsers.base import ParseContext, Parsed, ParseError
from latlab_contract.parsers.harness import (
    checked,
    duration_ns,
    load_object,
    metric_name,
    spectrum,
)
from latlab_contract.parsers.k6_stream import LATENCY, series_of
from latlab_contract.parsers.k6_summary import (
    OWN,
    Metric,
    described,
    percentile,
    rate_counts,
    whole,
)
from latlab_contract.result import MAX_METRICS, Failures
from latlab_contract.vocabulary import Direction, MetricSpec

_DIRECTIONS: dict[str, Direction] = {"http_req_failed": "lower", "checks": "higher",
                                     "checks_failed": "lower", "checks_succeeded": "higher"}
_UNITS = {"time": "ms", "data": "B"}
_STAT_ORDER = "avg,min,med,max,p(90),p(95),p(99)"


def parse(text: str, context: ParseContext) -> Parsed:
    if k6_stream.is_stream(text):
        return k6_stream.parse(text)
    document = load_object(text)
    machine = "results" in document and "metrics" not in document
    found, duration = described(document, machine)
    by_name = {m.name: m for m in found}
    notes: list[str] = []
    metrics, info = _all_metrics(found, document, notes)
    throughput = _throughput(by_name, duration)
    if throughput is not None:
        metrics["throughput"] = throughput
        info["throughput"] = MetricSpec(unit="req/s", direction="higher")
    trend, counter = next(((t, c) for t, c in LATENCY if t in by_name and c in by_name),
                          (None, None))
    if trend is None or counter is None:
        raise ParseError("$.metrics.http_req_duration: missing (and no iteration_duration)")
    latency_metric = by_name[trend]
    count = whole(by_name[counter], "count")
    failures = _failures(by_name, _checks(document, machine))
    series = [series_of({}, _latency(latency_metric, count), metrics, failures)]
    for sub in (m for m in found if m.base == trend and m.tags):
        sub_count = _sub_count(sub, by_name)
        if sub_count is None:
            notes.append(f"k6 printed {sub.name} without a count: kept as metrics "
                         f"({_key(sub.name)}_...), not as a series of its own (add count to "
                         f"--summary-trend-stats to get it as one)"[:500])
        elif sub_count > 0:
            sub_metrics = {"requests": float(sub_count)}
            if throughput is not None and count:
                sub_metrics["throughput"] = sub_count * throughput / count
            series.append(series_of({"submetric": sub.tags}, _latency(sub, sub_count),
                                  sub_metrics, None))
    repaired = [m.name for m in found if m.repaired]
    if repaired:
        notes.append(f"k6 wrote 0 as the value of {', '.join(repaired)} (k6 before v0.30.0 "
                     "wrote 0 for every rate in --summary-export): read as its passes' share "
                     "of passes and fails"[:500])
    gate, missing = _gate(latency_metric, throughput is not None)
    if missing:
        notes.insert(0, _missing_note(latency_metric, missing, gate[0], machine))
    context_found: dict[str, Scalar] = {}
    version = (document.get("metadata") or {}).get("k6_version") if machine else None
    if isinstance(version, str) and version:
        context_found["tool_version"] = version[:500]
    return Parsed(series=series, metric_info=info, gate=gate, context=context_found,
                  notes=notes[:20])


def _all_metrics(found: list[Metric], document: dict[str, Any], notes: list[str]
                 ) -> tuple[dict[str, float], dict[str, MetricSpec]]:
    """The trial's metrics: k6's own first, then the script's, each metric whole; those
    past `MAX_METRICS` left out and named in a note."""
    crossed = 0
    raw_metrics = document.get("metrics")
    if isinstance(raw_metrics, dict):
        for name, raw in raw_metrics.items():
            if isinstance(raw, dict):
                crossed += _crossed(raw.get("thresholds"), f"$.metrics[{name!r}].thresholds")
    metrics: dict[str, float] = {"thresholds_failed": float(crossed)}
    info = {"thresholds_failed": MetricSpec(unit="count", direction="lower",
                                            label="k6 thresholds crossed")}
    checks = next((m for m in found if m.name == "checks_succeeded"), None)
    if checks is not None and not any(m.name == "checks" for m in found):
        metrics["checks"] = checks.values["rate"]
        info["checks"] = MetricSpec(unit="ratio", direction="higher", label="checks passed")
    dropped: list[str] = []
    for metric in sorted(found, key=lambda m: (m.base not in OWN, m.base, m.tags)):
        entries = _metrics(metric)
        if len(metrics) + 1 + len(entries) > MAX_METRICS:  # one kept for throughput
            dropped.append(metric.name)
            continue
        for key, value, spec in entries:
            metrics[key] = value
            info[key] = spec
    if dropped:
        shown = ", ".join(dropped[:8]) + (", ..." if len(dropped) > 8 else "")
        notes.append(f"the lab keeps {MAX_METRICS:,} metrics a trial: left out {len(dropped)} "
                     f"of k6's {len(found)} metrics (the script's, last by name): {shown}; "
                     f"fewer --summary-trend-stats keep more of them"[:500])
    return metrics, info


def _metrics(metric: Metric) -> list[tuple[str, float, MetricSpec]]:
    key = _key(metric.name)
    unit = _UNITS.get(metric.contains, "")
    values = metric.values
    if metric.kind == "trend":
        found = []
        for stat, value in values.items():
            counted = stat == "count"
            spec = MetricSpec(unit="count" if counted else unit,
                              direction="lower" if unit == "ms" and not counted else "none",
                              label=f"{metric.name} {stat}"[:100])
            found.append((_key(metric.name, stat), value, spec))
        return found
    if metric.kind == "counter":
        count = values.get("count")
        if count is None:
            raise ParseError(f"{metric.path}.count: missing")
        found = [("requests" if metric.name == "http_reqs" else key, count,
                  MetricSpec(unit=unit or "count", direction="none",
                             label=None if metric.name == "http_reqs" else metric.name[:100]))]
        if "rate" in values and metric.name != "http_reqs":
            found.append((_key(metric.name, "rate"), values["rate"],
                          MetricSpec(unit=f"{unit or 'count'}/s", direction="none")))
        return found
    if metric.kind == "rate":
        ratio = values["rate"] if "rate" in values else values["value"]
        return [(key, ratio, MetricSpec(unit="ratio", direction=_DIRECTIONS.get(
            metric.name, "none"), label=metric.name[:100]))]
    return [(key, values["value"], MetricSpec(unit=unit, direction="none",
                                              label=metric.name[:100]))]


def _key(name: str, stat: str | None = None) -> str:
    """A metric's key: `http_req_duration.expected_response_true_p95` for the p(95) of
    `http_req_duration{expected_response:true}`; a key longer than 64 characters shortened,
    with a hash of the whole so that two never meet."""
    base, _, tags = name.partition("{")
    key = metric_name(base) + (f".{metric_name(tags.removesuffix('}'))}" if tags else "")
    if stat is not None:
        key += f"_{metric_name(stat)}"
    if len(key) <= 64:
        return key
    digest = hashlib.sha1(f"{name}\0{stat}".encode()).hexdigest()[:8]
    return f"{key[:55]}-{digest}"


def _throughput(by_name: dict[str, Metric], duration: float | None) -> float | None:
    """k6's rate of `http_reqs`, or its count over k6's test run duration."""
    requests = by_name.get("http_reqs")
    if requests is None:
        return None
    if "rate" in requests.values:
        return requests.values["rate"]
    if duration:
        return requests.values.get("count", 0.0) / duration
    return None


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


def _checks(document: dict[str, Any], machine: bool) -> list[tuple[str, int, int]]:
    """(name, passes, fails) of every check, from the root group and its groups (classic)
    or the machine-readable summary's check results."""
    found: list[tuple[str, int, int]] = []

    def add(raw: Any) -> None:
        if isinstance(raw, dict) and isinstance(raw.get("name"), str):
            passes, fails = raw.get("passes"), raw.get("fails")
            if isinstance(passes, int) and isinstance(fails, int):
                found.append((raw["name"], passes, fails))

    def walk(group: Any) -> None:
        if not isinstance(group, dict):
            return
        checks = group.get("checks")
        for raw in (checks.values() if isinstance(checks, dict) else checks or []):
            add(raw)
        groups = group.get("groups")
        for inner in (groups.values() if isinstance(groups, dict) else groups or []):
            walk(inner)

    if machine:
        results = document.get("results", {}).get("checks")
        for raw in (results or {}).get("results") or []:
            add(raw)
        walk({"groups": document["results"].get("groups")})
    else:
        walk(document.get("root_group"))
    return found


def _failures(by_name: dict[str, Metric], checks: list[tuple[str, int, int]]
              ) -> Failures | None:
    """Failed requests (of all requests) and failed checks, in k6's words."""
    words = []
    failed_requests = total_requests = 0
    request_rate = by_name.get("http_req_failed")
    if request_rate is not None:
        hits, total = rate_counts(request_rate)
        failed_requests, total_requests = int(hits), int(total)
        if failed_requests:
            words.append(f"http_req_failed {100 * hits / total:.2f}% {failed_requests} out of "
                         f"{total_requests}")
    failed_checks = sum(fails for _, _, fails in checks)
    all_checks = sum(passes + fails for _, passes, fails in checks)
    check_rate = by_name.get("checks") or by_name.get("checks_succeeded")
    if check_rate is not None and not checks:
        passes, all_checks = (int(n) for n in rate_counts(check_rate))
        failed_checks = all_checks - passes
    if failed_checks:
        words.append(f"checks_failed {100 * failed_checks / all_checks:.2f}% {failed_checks} "
                     f"out of {all_checks}" + "".join(
                         f"; ✗ {name} ✓ {passes} / ✗ {fails}"
                         for name, passes, fails in checks if fails))
    if not words:
        return None
    detail = "k6: " + "; ".join(words)
    detail = detail if len(detail) <= 500 else detail[:497] + "..."
    if failed_requests:
        return Failures(failed=failed_requests, total=total_requests, detail=detail)
    return Failures(failed=failed_checks, total=all_checks, detail=detail)


def _sub_count(sub: Metric, by_name: dict[str, Metric]) -> int | None:
    """How many values a sub-metric of the latency trend holds, where k6 says."""
    if "count" in sub.values:
        return whole(sub, "count")
    if sub.tags == "expected_response:true" and "http_req_failed" in by_name:
        failed, total = rate_counts(by_name["http_req_failed"])
        return int(total - failed)
    counter = by_name.get(f"http_reqs{{{sub.tags}}}")
    return None if counter is None else whole(counter, "count")


def _latency(metric: Metric, count: int) -> Latency:
    points = []
    for stat, value in metric.values.items():
        q = percentile(stat)
        if q is not None:
            points.append((q, duration_ns(value, "ms", f"{metric.path}.{stat}")))
    mean = metric.values.get("avg")
    return spectrum(points, count, metric.path, mean=None if mean is None else duration_ns(
        mean, "ms", f"{metric.path}.avg"))


_GATE_ORDER = ((99.0, "p99"), (95.0, "p95"), (90.0, "p90"), (50.0, "p50"), (99.9, "p999"),
               (99.99, "p9999"))


def _gate(metric: Metric, throughput: bool) -> tuple[list[str], list[str]]:
    """The gate's metrics (the highest of p99, p95, p90, med k6 printed, and throughput) and
    which of p(90), p(95), p(99) k6 did not print."""
    printed = {percentile(stat) for stat in metric.values}
    gated = next((key for q, key in _GATE_ORDER if q in printed), "max")
    missing = [f"p({q:g})" for q in (90.0, 95.0, 99.0) if q not in printed]
    return [gated, *(["throughput"] if throughput else [])], missing


def _missing_note(metric: Metric, missing: list[str], gated: str, machine: bool) -> str:
    stat = {"p50": "med", "p999": "p(99.9)", "p9999": "p(99.99)"}.get(
        gated, f"p({gated[1:]})" if gated.startswith("p") else gated)
    how = (f'run k6 with --summary-trend-stats "{_STAT_ORDER}"' if not machine else
           "k6's machine-readable summary keeps only avg, min, med, max, p90 and p95: write "
           f'the summary without --new-machine-readable-summary, with --summary-trend-stats '
           f'"{_STAT_ORDER}"')
    shown = "p99" if "p(99)" in missing else missing[-1].replace("(", "").replace(")", "")
    return (f"k6 printed no {', '.join(missing)} of {metric.name}: gated on k6's {stat}; the "
            f"{shown} shown is interpolated, not k6's; {how} to gate on "
            f"{'p(99)' if 'p(99)' in missing else missing[-1]}")[:500]
