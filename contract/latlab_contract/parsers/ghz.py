"""ghz's JSON report (`ghz -O json` or `-O pretty`): one run is one trial of one series. ghz's
other formats (`-O summary`, csv, html, influx) are not read.

ghz's latency statistics are over the OK calls (every call with `--count-errors`, the
report's `options.count-errors`): `fastest`, `slowest` and `latencyDistribution` (10, 25,
50, 75, 90, 95 and 99 %: the value at index floor(p/100 x n), less one when p/100 x n is
whole, of the n sorted latencies, which is the nearest rank but where the floating point
product misses a whole number); `average` is over every call. All are integer nanoseconds.

The report's `details` hold every call (latency, status, error), up to ghz's 1,000,000: when
they are all there (as many as `count`, or ghz's 1,000,000 of a longer run, which its own
statistics are computed from too), the latency is the latency of each call of ghz's set
(OK ones, or all with `--count-errors`), exact, and the trial's summary is ghz's fastest and
slowest and, when those calls are every call, its average. ghz's percentiles are left to the
samples. A report without its `details` (or with fewer than `count`, as in edited samples)
gives the latency rebuilt from `latencyDistribution`, the fastest (rank 1) and the slowest
(rank n) over n = `count` less the errors (all `count` with `--count-errors`), each printed
point at ghz's own rank of it (`harness.cumulative`: exact at each point, interpolated
between); the trial's summary is ghz's fastest, percentiles, slowest, and average when n is
every call. Entries of `latencyDistribution` with a percentage of 0 (ghz writes them for a
latency of 0) are left out.

Calls that did not end OK are the trial's `failures`: of `count` calls, the calls not counted OK
in `statusCodeDistribution` (or, without it, those of `errorDistribution`),
with ghz's status codes and error texts as the detail. A latency distribution out of order
(a percentile above the next or the slowest, the average outside fastest .. slowest) and
negative times or rates are refused, naming the JSON path.

Metrics: `throughput` is ghz's `rps` (every call over the run's `total` time), `requests`
its `count`, `timeouts` the calls of status DeadlineExceeded, `errors` the other failed
calls (`errorDistribution`).
"""

from typing import Any

from pydantic import ValidationError

from latlab_contract.fields import MAX_COUNT, MAX_MEASURED
from latlab_contract.latency import Latency, order_problem
from latlab_contract.parsers.base import ParseContext, Parsed, ParseError, validation_message
from latlab_contract.parsers.harness import (
    checked,
    cumulative,
    duration_ns,
    load_json,
    member,
    ns,
    reported,
    samples,
)
from latlab_contract.result import Failures, SeriesIn, TrialIn
from latlab_contract.vocabulary import MetricSpec

# ghz keeps the details of at most this many calls (`maxResult` in runner/requester.go).
MAX_DETAILS = 1_000_000

METRIC_INFO = {
    "throughput": MetricSpec(unit="req/s", direction="higher", label="calls per second"),
    "requests": MetricSpec(unit="count", direction="none", label="calls"),
    "errors": MetricSpec(unit="count", direction="lower", label="calls failed"),
    "timeouts": MetricSpec(unit="count", direction="lower",
                           label="calls of status DeadlineExceeded"),
}


def parse(text: str, context: ParseContext) -> Parsed:
    if not text.lstrip().startswith("{"):
        raise ParseError("line 1: not ghz's JSON report: run ghz with -O json (or -O pretty)")
    document = checked(_load(text), "$", dict)
    count = _count(member(document, "count", "$", int), "$.count")
    if count == 0:
        raise ParseError("$.count: no calls: ghz measured no latency")
    failures = _counts(member(document, "errorDistribution", "$", (dict, type(None))),
                       "$.errorDistribution")
    statuses = _counts(member(document, "statusCodeDistribution", "$", (dict, type(None))),
                       "$.statusCodeDistribution")
    failed = sum(failures.values())
    timeouts = statuses.get("DeadlineExceeded", 0)
    if timeouts > failed:
        raise ParseError(f"$.statusCodeDistribution.DeadlineExceeded: {timeouts:,} calls, more "
                         f"than the {failed:,} of the errorDistribution")
    rps = member(document, "rps", "$", float)
    if not 0.0 <= rps <= MAX_MEASURED:
        raise ParseError(f"$.rps: {rps} is outside 0 .. {MAX_MEASURED:g}")
    metrics = {"throughput": rps, "requests": float(count),
               "errors": float(failed - timeouts), "timeouts": float(timeouts)}
    options = member(document, "options", "$", dict) if "options" in document else {}
    all_calls = options.get("count-errors") is True
    details = document.get("details")
    if isinstance(details, list) and len(details) in (count, min(count, MAX_DETAILS)):
        latency = _samples(document, details, all_calls, count)
    else:
        for index, detail in enumerate(details if isinstance(details, list) else []):
            where = f"$.details[{index}]"  # not read, but printed by ghz: held to its rules
            duration_ns(member(checked(detail, where, dict), "latency", where, float), "ns",
                        f"{where}.latency")
        latency = _rebuilt(document, count if all_calls else count - failed, count)
    try:
        series = SeriesIn(trials=[TrialIn(latency=latency, metrics=metrics,
                                          failures=_failures(count, statuses, failures))])
    except ValidationError as error:
        raise ParseError(validation_message(error)) from error
    return Parsed(series=[series], metric_info=METRIC_INFO)


def _failures(count: int, statuses: dict[str, int], errors: dict[str, int]
              ) -> Failures | None:
    """The calls that did not end OK, in ghz's words."""
    if sum(statuses.values()) > count:
        raise ParseError(f"$.statusCodeDistribution: {sum(statuses.values()):,} calls, more "
                         f"than the {count:,} of $.count")
    # Older ghz lists only the OK calls' status (its sample pretty.json: OK 191 of 200).
    failed = max(count - statuses.get("OK", 0) if statuses else 0, sum(errors.values()))
    if failed == 0:
        return None
    if failed > count:
        raise ParseError(f"$.errorDistribution: {failed:,} failed calls, more than the "
                         f"{count:,} of $.count")
    words = "ghz status codes " + ", ".join(f"{code}: {n}" for code, n in statuses.items())
    if errors:
        words += "; errors: " + "; ".join(f"[{n}] {text}" for text, n in errors.items())
    return Failures(failed=failed, total=count,
                    detail=words if len(words) <= 500 else words[:497] + "...")


def _samples(document: dict[str, Any], details: list[Any], all_calls: bool,
             count: int) -> Latency:
    """Every call's latency, of the calls ghz's statistics are over."""
    chosen = []
    for index, detail in enumerate(details):
        where = f"$.details[{index}]"
        checked(detail, where, dict)
        value = ns(member(detail, "latency", where, float), "ns", f"{where}.latency")
        if all_calls or member(detail, "error", where, str) == "":
            chosen.append(value)
    if not chosen:
        raise ParseError("$.details: no call succeeded: ghz computes no latency distribution "
                         "(run it with --count-errors to keep failed calls' latency)")
    fastest, slowest, average = _statistics(document)
    # ghz's percentiles are left to the samples, but must hold together as printed
    entries = member(document, "latencyDistribution", "$", (list, type(None))) or []
    printed = _distribution(entries)
    _ordered("$.latencyDistribution", fastest, slowest,
             average if len(chosen) == count else None, {},
             [value for _, value in sorted(printed)])
    latency = samples(chosen, "$.details")
    try:
        return latency.model_copy(update={"reported": reported(
            [(0.0, fastest), (100.0, slowest)],
            mean=average if len(chosen) == count else None)})
    except ValidationError as error:
        raise ParseError(f"$: {validation_message(error)}") from error


def _rebuilt(document: dict[str, Any], answered: int, count: int) -> Latency:
    """The latency rebuilt from ghz's summary over `answered` calls."""
    path = "$.latencyDistribution"
    if answered <= 0:
        raise ParseError(f"{path}: no call succeeded ({count:,} calls, as many failed): ghz "
                         "computes no latency distribution")
    fastest, slowest, average = _statistics(document)
    printed = _distribution(member(document, "latencyDistribution", "$", list))
    ranks = [(1, round(fastest)), (answered, round(slowest))]
    ranks += [(_rank(int(percentage), answered), round(value)) for percentage, value in printed]
    summary = {f"p{p:g}": value for p, value in printed if p in (50.0, 90.0, 95.0, 99.0)}
    _ordered(path, fastest, slowest, average if answered == count else None, summary,
             [value for _, value in sorted(printed)])
    try:
        return cumulative(ranks, path, reported(
            [(0.0, fastest), *printed, (100.0, slowest)],
            mean=average if answered == count else None))
    except ValidationError as error:
        raise ParseError(f"{path}: {validation_message(error)}") from error


def _distribution(entries: list[Any]) -> list[tuple[float, float]]:
    """`latencyDistribution` as (percentage, ns) points, ghz's placeholders for a latency of
    0 left out."""
    path = "$.latencyDistribution"
    printed: list[tuple[float, float]] = []
    for index, entry in enumerate(entries):
        where = f"{path}[{index}]"
        percentage = member(entry, "percentage", where, int)
        value = duration_ns(member(entry, "latency", where, float), "ns", f"{where}.latency")
        if percentage == 0 and value == 0:  # ghz's placeholder for a latency of 0
            continue
        if not 0 < percentage < 100:
            raise ParseError(f"{where}.percentage: {percentage} is outside 1 .. 99")
        printed.append((float(percentage), value))
    return printed


def _ordered(path: str, fastest: float, slowest: float, average: float | None,
             summary: dict[str, float], values: list[float]) -> None:
    """Refuse a distribution out of order: each printed percentile at most the next, all
    within fastest .. slowest, the average too (where it is over the same calls)."""
    for (low, high) in zip([fastest, *values], [*values, slowest], strict=True):
        if low > high * 1.005 + 1:
            raise ParseError(f"{path}: {low:g} ns is above the next point of the distribution "
                             f"({high:g} ns; fastest, percentiles, slowest): ghz's latencies "
                             "contradict each other")
    problem = order_problem({"min": fastest, "max": slowest, **summary,
                             **({} if average is None else {"mean": average})})
    if problem is not None:
        raise ParseError(f"{path}: the {problem}: ghz's latencies contradict each other")


def _rank(percentage: int, n: int) -> int:
    """The rank of ghz's percentile among n values (`latencies` in runner/reporter.go, in the
    same floating point)."""
    product = percentage / 100.0 * n
    index = int(product)
    if product == index:
        index -= 1
    return max(index, 0) + 1


def _statistics(document: dict[str, Any]) -> tuple[float, float, float]:
    fastest, slowest, average = (duration_ns(member(document, key, "$", float), "ns", f"$.{key}")
                                 for key in ("fastest", "slowest", "average"))
    return fastest, slowest, average


def _count(value: int, where: str) -> int:
    if not 0 <= value <= MAX_COUNT:
        raise ParseError(f"{where}: a count of {value:,} is outside 0 .. {MAX_COUNT:,}")
    return value


def _counts(document: dict[str, Any] | None, path: str) -> dict[str, int]:
    return {key: _count(checked(value, f"{path}[{key!r}]", int), f"{path}[{key!r}]")
            for key, value in (document or {}).items()}


def _load(text: str) -> Any:
    try:
        return load_json(text)
    except ValueError as error:  # an integer of thousands of digits (json names no line)
        raise ParseError(f"line 1: JSON that cannot be read ({error})") from None
