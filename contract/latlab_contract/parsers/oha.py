"""oha's JSON output (`oha --output-format json`, `--json` before 1.9): one run is one trial of
one series. oha's text output is not read, nor its CSV (`--output-format csv`: the requests
answered, without the failed ones or the run's time).

oha's latency statistics are over the requests that got a response (of any status; requests
that failed without one have no latency in oha): `summary.fastest`, `slowest` and `average`
and `latencyPercentiles` (p10 .. p99.99), in seconds. oha's percentile is no interpolation
and not the nearest rank: the value at index floor(p/100 x n) of the n sorted latencies, the
(floor(p/100 x n) + 1)-th fastest. The latency is rebuilt over n (the responses counted in
`statusCodeDistribution`) with each printed point at that rank of oha's, the fastest at
rank 1 and the slowest at rank n, the values between interpolated (`harness.cumulative`:
exact at each point); the trial's summary is oha's own fastest, percentiles, slowest and
average. (1.16's `metrics.latency_ms` repeats these in ms, rounded: not read.)

Metrics: `throughput` is `summary.requestsPerSec` (every request, answered or not, over the
run's time), `requests` the responses and the errors of `errorDistribution`, `success_rate`
oha's success rate (the share of requests answered, whatever their status; requests cut off
by `-z`'s deadline left out), `errors` the responses of status 400 and above and the
requests without a response, but for `timeouts` (oha's "timeout" error) and `aborted` (its
"aborted due to deadline": requests still running when `-z` ended, not the server's
failure).

The responses of status 400 and above and the requests that failed without one (timeouts
included, `-z`'s cut-off ones not) are the trial's `failures`, of the requests less the cut-off
ones, with oha's status code and error distributions as the detail. Percentiles out of order
or above the slowest, the average outside fastest .. slowest, and negative times or rates are
refused, naming the JSON path.
"""

import itertools
import re
from typing import Any

from pydantic import ValidationError

from latlab_contract.fields import MAX_COUNT, MAX_MEASURED
from latlab_contract.latency import Latency, order_problem
from latlab_contract.parsers.base import ParseContext, Parsed, ParseError, validation_message
from latlab_contract.parsers.harness import (
    REQUESTS,
    REQUESTS_PER_S,
    checked,
    cumulative,
    duration_ns,
    load_json,
    member,
    no_negative,
    reported,
)
from latlab_contract.result import Failures, SeriesIn, TrialIn
from latlab_contract.vocabulary import MetricSpec

_PERCENTILE_KEY = re.compile(r"^p\d+(?:\.\d+)?$")
# oha's ClientError texts of the errors that are not counted in `errors`.
_TIMEOUT = "timeout"
_DEADLINE = "aborted due to deadline"

METRIC_INFO = {
    "throughput": REQUESTS_PER_S,
    "requests": REQUESTS,
    "success_rate": MetricSpec(unit="ratio", direction="higher",
                               label="share of requests answered (any status)"),
    "errors": MetricSpec(unit="count", direction="lower",
                         label="responses of status 400 and above, requests failed"),
    "timeouts": MetricSpec(unit="count", direction="lower", label="requests timed out"),
    "aborted": MetricSpec(unit="count", direction="none",
                          label="requests cut off by the end of the run (-z)"),
}


def parse(text: str, context: ParseContext) -> Parsed:
    if text.lstrip().startswith("Summary:"):
        raise ParseError("line 1: oha's text output: run oha with --output-format json "
                         "(--json before 1.9)")
    if text.lstrip().startswith("request-start,"):
        raise ParseError("line 1: oha's CSV output lists only the requests answered, without "
                         "the failed ones or the run's time: run oha with --output-format json")
    document = checked(_load(text), "$", dict)
    no_negative(document, "$", "oha")
    _bounds(document, "$")
    summary = member(document, "summary", "$", dict)
    statuses = _counts(member(document, "statusCodeDistribution", "$", dict),
                       "$.statusCodeDistribution")
    failures = _counts(member(document, "errorDistribution", "$", dict),
                       "$.errorDistribution")
    answered = sum(statuses.values())
    if answered == 0:
        errors = "; ".join(f"[{n}] {text}" for text, n in failures.items())[:300]
        raise ParseError("$.statusCodeDistribution: no request got a response: oha measured "
                         "no latency" + (f" (its errors: {errors})" if errors else ""))
    requests = answered + sum(failures.values())
    if requests > MAX_COUNT:
        raise ParseError(f"$.statusCodeDistribution: {requests:,} requests in all, more than "
                         f"{MAX_COUNT:,}")
    timeouts, aborted = failures.get(_TIMEOUT, 0), failures.get(_DEADLINE, 0)
    success = member(summary, "successRate", "$.summary", float)
    if not 0.0 <= success <= 1.0:
        raise ParseError(f"$.summary.successRate: {success} is not a ratio 0 .. 1")
    metrics = {
        "throughput": _rate(summary),
        "requests": float(requests),
        "success_rate": success,
        "errors": float(sum(count for code, count in statuses.items()
                            if _status(code, f"$.statusCodeDistribution[{code!r}]") >= 400)
                        + sum(failures.values()) - timeouts - aborted),
        "timeouts": float(timeouts),
        "aborted": float(aborted),
    }
    failed = int(metrics["errors"] + metrics["timeouts"])
    trial_failures = None
    if failed:
        words = "oha status codes " + ", ".join(f"{code}: {n}" for code, n in statuses.items())
        if failures:
            words += "; errors: " + "; ".join(f"[{n}] {text}" for text, n in failures.items())
        trial_failures = Failures(failed=failed, total=requests - aborted,
                                  detail=words if len(words) <= 500 else words[:497] + "...")
    try:
        series = SeriesIn(trials=[TrialIn(latency=_latency(document, summary, answered),
                                          metrics=metrics, failures=trial_failures)])
    except ValidationError as error:
        raise ParseError(validation_message(error)) from error
    return Parsed(series=[series], metric_info=METRIC_INFO)


def _latency(document: dict[str, Any], summary: dict[str, Any], answered: int) -> Latency:
    fastest, slowest, average = (
        duration_ns(member(summary, key, "$.summary", float), "s", f"$.summary.{key}")
        for key in ("fastest", "slowest", "average"))
    path = "$.latencyPercentiles"
    printed: list[tuple[float, float]] = []
    for key, value in member(document, "latencyPercentiles", "$", dict).items():
        where = f"{path}[{key!r}]"
        percentile = _percentile(key, where)
        printed.append((percentile, duration_ns(checked(value, where, float), "s", where)))
    if not printed:
        raise ParseError(f"{path}: no percentiles")
    values = [fastest, *(value for _, value in sorted(printed)), slowest]
    names = ["fastest", *(f"p{q:g}" for q, _ in sorted(printed)), "slowest"]
    for index in range(1, len(values)):
        if values[index - 1] > values[index] * 1.005 + 1:
            raise ParseError(f"{path}: the {names[index - 1]} ({values[index - 1]:g} ns) is "
                             f"above the {names[index]} ({values[index]:g} ns): oha's latencies "
                             "contradict each other")
    problem = order_problem({"min": fastest, "max": slowest, "mean": average})
    if problem is not None:
        raise ParseError(f"$.summary.average: the {problem}: oha's latencies contradict each "
                         "other")
    ranks = [(1, round(fastest)), (answered, round(slowest))]
    # oha's `percentile_iter`: index `(p / 100.0 * n) as usize`, in the same floating point
    ranks += [(int(q / 100.0 * answered) + 1, round(value)) for q, value in printed]
    try:
        return cumulative(ranks, path, reported(
            [(0.0, fastest), *printed, (100.0, slowest)], mean=average))
    except ValidationError as error:
        raise ParseError(f"{path}: {validation_message(error)}") from error


def _bounds(value: Any, path: str) -> None:
    """Every least .. most pair oha prints (`fastest` .. `slowest` of the summary and of its
    connection details, `min` .. `max` of its rates and ms latencies) in order."""
    if isinstance(value, dict):
        for low, high in (("fastest", "slowest"), ("min", "max")):
            least, most = value.get(low), value.get(high)
            if isinstance(least, int | float) and isinstance(most, int | float) and (
                    least > most):
                raise ParseError(f"{path}.{low}: {least:g} is above {path}.{high} ({most:g})")
        # percentiles (`p50`, `p99.9`: latencyPercentiles, metrics.latency_ms, rps) rise
        points = sorted((float(key[1:]), key) for key, item in value.items()
                        if _PERCENTILE_KEY.match(key) and isinstance(item, int | float))
        for (_, low), (_, high) in itertools.pairwise(points):
            if value[low] > value[high]:
                raise ParseError(f"{path}.{low}: {value[low]:g} is above {path}.{high} "
                                 f"({value[high]:g}): percentiles out of order")
        for key, item in value.items():
            _bounds(item, f"{path}.{key}")


def _rate(summary: dict[str, Any]) -> float:
    value: float = member(summary, "requestsPerSec", "$.summary", float)
    if not 0.0 <= value <= MAX_MEASURED:
        raise ParseError(f"$.summary.requestsPerSec: {value} is outside 0 .. {MAX_MEASURED:g}")
    return value


def _percentile(key: str, where: str) -> float:
    try:
        percentile = float(key.removeprefix("p")) if key.startswith("p") else -1.0
    except ValueError:
        percentile = -1.0
    if not 0.0 <= percentile < 100.0:
        raise ParseError(f"{where}: not a percentile key ('p99.9')")
    return percentile


def _status(code: str, where: str) -> int:
    if not code.isdigit() or len(code) != 3:
        raise ParseError(f"{where}: {code[:20]!r} is not an HTTP status")
    return int(code)


def _counts(document: dict[str, Any], path: str) -> dict[str, int]:
    found = {}
    for key, value in document.items():
        where = f"{path}[{key!r}]"
        count = checked(value, where, int)
        if not 0 <= count <= MAX_COUNT:
            raise ParseError(f"{where}: a count of {count:,} is outside 0 .. {MAX_COUNT:,}")
        found[key] = count
    return found


def _load(text: str) -> Any:
    try:
        return load_json(text)
    except ValueError as error:  # an integer of thousands of digits (json names no line)
        raise ParseError(f"line 1: JSON that cannot be read ({error})") from None
