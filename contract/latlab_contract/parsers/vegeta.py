"""vegeta's results (tsenart/vegeta v10 .. v12): its JSON report (`vegeta report -type=json`) or
every request (`vegeta encode --to json`, one JSON object a line), told apart by their
content. vegeta's text report, histogram and binary (gob) results are not read.

From the JSON report, one run is one trial of one series. vegeta keeps no distribution in it,
only `latencies` (integer nanoseconds): an exact min, max and mean (the total over the
requests, truncated to whole ns) and its 50th, 90th, 95th and 99th percentiles, which are
t-digest estimates (compression 100), not order statistics. The latency is rebuilt from
min, those percentiles and max over `requests` (`harness.spectrum`: each printed point at its
nearest rank, the values between interpolated), and the trial's summary is vegeta's own min,
percentiles, max and mean. Failed requests are in vegeta's latencies, so they are in the
trial's too. Reports before v12.8 (v10, v11, early v12) print no `min` and no `90th`, and
before v12.6 no `throughput`: those are left out (never estimated), and a note says which.
Latencies out of order (a percentile above the next or the max, the mean outside min .. max)
and negative rates or latencies are refused, naming the JSON path.

From every request, the latency is each request's `latency` (ns), exact, failed ones
included as vegeta's report includes them; nothing in this format is a statistic vegeta
printed, so the trial has no `reported` summary. Results of named attacks (`vegeta attack
-name`, the `attack` field) are a series each, labelled `attack`; unnamed ones a series
without labels. The metrics are computed as vegeta's report computes them: `rate` is the
requests over the time from the first request's start to the last's, `throughput` the
successful requests over that time plus the wait for the last response (both left out when
all requests started at one instant).

Requests without a response of status 200 .. 399 (vegeta's success rule: a 5xx, a 4xx, or no
response at all, status 0, with an `errors` text) are the trial's `failures`: failed of all
requests, with vegeta's status codes and error set in its words. The report's `success` must
be those status codes' share, and its codes must sum to its requests.

Metrics: `throughput` is vegeta's throughput (successful requests per second), `rate`
vegeta's rate (requests sent per second), `requests` the requests, `success_rate` vegeta's
success ratio (status 200 .. 399), and `errors` the requests of any other status (0: no
response; vegeta gives each of them an error text), or, from every request, with an error.
"""

import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from latlab_contract.fields import MAX_COUNT, MAX_MEASURED
from latlab_contract.latency import order_problem
from latlab_contract.parsers.base import ParseContext, Parsed, ParseError, validation_message
from latlab_contract.parsers.harness import (
    REQUESTS,
    checked,
    duration_ns,
    load_json,
    member,
    no_negative,
    ns,
    reported,
    samples,
    spectrum,
)
from latlab_contract.result import Failures, SeriesIn, TrialIn
from latlab_contract.vocabulary import MetricSpec

# The report's latencies and where each is in the distribution (percent).
_LATENCIES = {"min": 0.0, "50th": 50.0, "90th": 90.0, "95th": 95.0, "99th": 99.0,
              "max": 100.0}
# Not printed before v12.8 (min, 90th) and v12.6 (throughput).
_SINCE_V12_8 = ("min", "90th")
_RFC3339 = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$")
_NS_PER_S = 1_000_000_000
# The report's latency keys as the lab's summary keys, for the order check.
_SUMMARY = {"50th": "p50", "90th": "p90", "95th": "p95", "99th": "p99"}

METRIC_INFO = {
    "throughput": MetricSpec(unit="req/s", direction="higher",
                             label="successful requests per second"),
    "rate": MetricSpec(unit="req/s", direction="none", label="requests sent per second"),
    "requests": REQUESTS,
    "success_rate": MetricSpec(unit="ratio", direction="higher",
                               label="share of responses of status 200 .. 399"),
    "errors": MetricSpec(unit="count", direction="lower",
                         label="requests without a response of status 200 .. 399"),
}


def parse(text: str, context: ParseContext) -> Parsed:
    if not text.lstrip().startswith("{"):
        raise ParseError("line 1: not vegeta's JSON (give `vegeta report -type=json` or "
                         "`vegeta encode --to json` output; the text report is not read)")
    first = next(line for line in text.splitlines() if line.strip())
    try:
        head = json.loads(first)
    except ValueError:
        head = None  # an indented report: its first line is not a whole object
    if isinstance(head, dict) and "latency" in head:
        return _results(text)
    return _report(text)


def _report(text: str) -> Parsed:
    """`vegeta report -type=json`."""
    document = checked(_load(text), "$", dict)
    no_negative(document, "$", "vegeta")
    latencies = member(document, "latencies", "$", dict)
    notes = []
    missing = [key for key in _SINCE_V12_8 if key not in latencies]
    printed = {key: duration_ns(member(latencies, key, "$.latencies", float), "ns",
                                f"$.latencies.{key}")
               for key in (*_LATENCIES, "mean") if key not in missing}
    if missing:
        notes.append(f"vegeta printed no {' and no '.join(missing)} latency (before v12.8): "
                     "left out, not estimated; vegeta v12.8 and later print them")
    problem = order_problem({_SUMMARY.get(key, key): value for key, value in printed.items()})
    if problem is not None:
        raise ParseError(f"$.latencies: the {problem}: vegeta's latencies contradict "
                         "each other")
    requests = _count(member(document, "requests", "$", int), "$.requests")
    if requests == 0:
        raise ParseError("$.requests: no requests: vegeta measured no latency")
    codes = member(document, "status_codes", "$", dict)
    answered = {key: _count(value, f"$.status_codes[{key!r}]") for key, value in codes.items()}
    if sum(answered.values()) != requests:
        raise ParseError(f"$.status_codes: its counts sum to {sum(answered.values()):,}, not "
                         f"the {requests:,} requests")
    failed = sum(count for code, count in answered.items()
                 if not _succeeded(_code(code, f"$.status_codes[{code!r}]")))
    success = member(document, "success", "$", float)
    if not 0.0 <= success <= 1.0:
        raise ParseError(f"$.success: {success} is not a ratio 0 .. 1")
    if abs(success * requests - (requests - failed)) > 0.5:
        raise ParseError(f"$.success: {success:g} of {requests:,} requests is not the "
                         f"{requests - failed:,} of status 200 .. 399 in $.status_codes")
    metrics = {
        "rate": _rate(document, "rate"),
        "requests": float(requests),
        "success_rate": success,
        "errors": float(failed),
    }
    if "throughput" in document:
        metrics["throughput"] = _rate(document, "throughput")
    else:
        notes.append("vegeta printed no throughput (before v12.6): left out; its rate "
                     "(requests sent per second) and success ratio are kept")
    failures = None
    if failed:
        errors = member(document, "errors", "$", (list, type(None))) or []
        failures = Failures(failed=failed, total=requests, detail=_detail(
            answered, [checked(e, f"$.errors[{i}]", str) for i, e in enumerate(errors)]))
    points = [(q, printed[key]) for key, q in _LATENCIES.items() if key in printed]
    try:
        try:
            latency = spectrum(points, requests, "$.latencies", mean=printed["mean"])
        except ParseError:
            # vegeta's percentiles are t-digest estimates, its mean exact: where no histogram
            # through the estimates has that mean, it stays vegeta's in the summary only.
            latency = spectrum(points, requests, "$.latencies")
            latency = latency.model_copy(update={"reported": reported(
                points, mean=printed["mean"])})
            notes.append("vegeta's percentiles (t-digest estimates) do not allow its exact "
                         "mean: the rebuilt histogram's mean is not vegeta's; the summary "
                         "shows vegeta's")
        series = SeriesIn(trials=[TrialIn(latency=latency, metrics=metrics,
                                          failures=failures)])
    except ValidationError as error:
        raise ParseError(validation_message(error)) from error
    return Parsed(series=[series], metric_info=METRIC_INFO, notes=notes)


def _detail(codes: dict[str, int], errors: list[str]) -> str:
    """Failures in vegeta's words: its `Status Codes [code:count]` and `Error Set`."""
    listed = "  ".join(f"{code}:{count}" for code, count in codes.items())
    text = f"vegeta status codes {listed}"
    if errors:
        text += f"; error set: {'; '.join(errors)}"
    return text if len(text) <= 500 else text[:497] + "..."


@dataclass
class _Attack:
    """The results of one attack name, and what vegeta's report sums up of them."""

    latencies: list[int] = field(default_factory=list)
    succeeded: int = 0  # status 200 .. 399, as vegeta counts its successes
    failed: int = 0  # any other status, or an error
    codes: dict[int, int] = field(default_factory=dict)
    errors: dict[str, int] = field(default_factory=dict)
    earliest: int | None = None  # ns since the epoch
    latest: int | None = None
    end: int | None = None

    def add(self, latency: int, code: int, error: str, moment: int) -> None:
        self.latencies.append(latency)
        self.succeeded += _succeeded(code)
        self.failed += not _succeeded(code) or error != ""
        self.codes[code] = self.codes.get(code, 0) + 1
        if error:
            self.errors[error] = self.errors.get(error, 0) + 1
        self.earliest = moment if self.earliest is None else min(self.earliest, moment)
        self.latest = moment if self.latest is None else max(self.latest, moment)
        self.end = moment + latency if self.end is None else max(self.end, moment + latency)

    def failures(self) -> Failures | None:
        if not self.failed:
            return None
        return Failures(failed=self.failed, total=len(self.latencies), detail=_detail(
            {str(code): count for code, count in sorted(self.codes.items())},
            list(self.errors)))

    def metrics(self) -> dict[str, float]:
        requests = len(self.latencies)
        found = {"requests": float(requests), "success_rate": self.succeeded / requests,
                 "errors": float(self.failed)}
        assert self.earliest is not None and self.latest is not None and self.end is not None
        duration, wait = self.latest - self.earliest, self.end - self.latest
        if duration > 0:  # vegeta's Metrics.Close
            found["rate"] = requests / _seconds(duration)
            found["throughput"] = self.succeeded / _seconds(duration + wait)
        return found


def _results(text: str) -> Parsed:
    """`vegeta encode --to json`: one result a line."""
    attacks: dict[str, _Attack] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"line {number}"
        try:
            item = json.loads(line)
        except json.JSONDecodeError as error:
            raise ParseError(f"{where}: not JSON ({error.msg})") from None
        except ValueError as error:  # an integer of thousands of digits
            raise ParseError(f"{where}: not JSON that can be read ({error})") from None
        checked(item, where, dict)
        latency = ns(member(item, "latency", where, float), "ns", f"{where}.latency")
        code = member(item, "code", where, int)
        if not 0 <= code <= 999:
            raise ParseError(f"{where}.code: {code} is not an HTTP status")
        error_text = member(item, "error", where, str)
        name = checked(item.get("attack", ""), f"{where}.attack", str)
        moment = _nanoseconds(member(item, "timestamp", where, str), f"{where}.timestamp")
        attacks.setdefault(name, _Attack()).add(latency, code, error_text, moment)
    if not attacks:
        raise ParseError("line 1: no results")
    series = []
    for name, attack in attacks.items():
        labels = {"attack": name} if name else {}
        where = f"the results of attack {name!r}" if name else "the results"
        try:
            series.append(SeriesIn(labels=labels, trials=[TrialIn(
                latency=samples(attack.latencies, where), metrics=attack.metrics(),
                failures=attack.failures())]))
        except ValidationError as error:
            raise ParseError(f"{where}: {validation_message(error)}") from error
    return Parsed(series=series, metric_info=METRIC_INFO)


def _rate(document: dict[str, Any], key: str) -> float:
    value: float = member(document, key, "$", float)
    if not 0.0 <= value <= MAX_MEASURED:
        raise ParseError(f"$.{key}: {value} per second is outside 0 .. {MAX_MEASURED:g}")
    return value


def _succeeded(code: int) -> bool:
    return 200 <= code < 400


def _code(text: str, where: str) -> int:
    if not text.isdigit() or len(text) > 3:
        raise ParseError(f"{where}: {text[:20]!r} is not an HTTP status")
    return int(text)


def _count(value: Any, where: str) -> int:
    count = int(checked(value, where, int))
    if not 0 <= count <= MAX_COUNT:
        raise ParseError(f"{where}: a count of {count:,} is outside 0 .. {MAX_COUNT:,}")
    return count


def _nanoseconds(text: str, where: str) -> int:
    """An RFC 3339 time with up to nanoseconds (as Go writes it) in ns since the epoch."""
    found = _RFC3339.match(text)
    try:
        if found is None:
            raise ValueError(text)
        whole, fraction, zone = found.groups()
        moment = datetime.fromisoformat(whole + ("+00:00" if zone == "Z" else zone))
    except ValueError:
        raise ParseError(f"{where}: {text[:40]!r} is not an RFC 3339 time") from None
    return int(moment.timestamp()) * _NS_PER_S + int((fraction or "").ljust(9, "0"))


def _seconds(nanoseconds: int) -> float:
    """Go's Duration.Seconds(): whole seconds plus the rest, so the rates are vegeta's to the
    last bit."""
    whole, rest = divmod(nanoseconds, _NS_PER_S)
    return float(whole) + rest / 1e9


def _load(text: str) -> Any:
    try:
        return load_json(text)
    except ValueError as error:  # an integer of thousands of digits (json names no line)
        raise ParseError(f"line 1: JSON that cannot be read ({error})") from None
