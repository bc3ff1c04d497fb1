"""wrk's text output (wg/wrk 4.x, not wrk2) with `--latency`: each run one trial; the runs
of one file (a shell loop, each run from its own "Running 3s test @ URL" header on) are
trials of one series when they ran alike, else series labelled by what differs among them
(`url`, `duration`, `threads`, `connections`).

wrk keeps its latencies in a table of microseconds but prints only a summary of it: the
thread stats' `Latency` line (Avg, Stdev, Max) and, with `--latency`, the "Latency
Distribution" at 50, 75, 90 and 99 % (in wrk's units `us`, `ms`, `s`, `m`, two decimals). It
prints no minimum. The trial's summary (`reported`) is what wrk printed, as printed: its 50,
90 and 99 %, Max, Avg (the mean) and Stdev (the n - 1 form); the 75 % is no summary
statistic, the min is none of wrk's. The latency is rebuilt from those points
(`harness.spectrum`): each printed percentile and the Max at its nearest rank, the values
between on one rising curve chosen so that the histogram's mean is wrk's Avg, and the ranks
below the 50 % from 0 (the least a latency can be) up to it. Every statistic of the rebuilt
histogram that wrk did not print (its min, p95, p99.9) is interpolated and marked so.

wrk 4 corrects its latency table for coordinated omission before it prints it
(`stats_correct`, since 4.0.0): for every latency of at least twice the mean time between two
requests of one connection it adds synthetic values (that latency less one, two, ... such
intervals). The printed percentiles, Avg and Stdev describe that corrected distribution, like
wrk2's recorded latency, and its count (more values than requests) is not printed: the
rebuilt histogram holds as many values as wrk recorded, the requests less the timeouts.

What wrk counts (wrk.c, `response_complete` and the socket handlers): "N requests in" counts
every response completed, whatever its status, and so holds the responses of status 400 and
above ("Non-2xx or 3xx responses") and the socket timeouts (a response that came after
`--timeout`: counted, its latency not recorded). Connect, read and write errors lose the
request in flight and are not in N. So the trial's `failures` are the socket errors of
every kind and the non-2xx responses (a response both late and of status 400 or above counts
once, so no more fail than were sent), of N plus the connect, read and write errors. The
metrics stay as before: `Requests/sec` is `throughput`, the "requests in" count `requests`,
`Transfer/sec` `transfer_per_s` (bytes per second); socket connect, read and write errors
and the non-2xx responses are `errors`, socket timeouts `timeouts`, as in the wrk2 adapter.

Refused, naming the line and the rule: output without `--latency` and wrk2's (read it with
the wrk2 adapter); negative or malformed numbers; an Avg above the Max; percentiles out of
order or above the Max; an Avg outside what the percentiles allow (at least half the values
are at or above the 50 % line, none above the Max, none below 0); a Stdev larger than any
distribution between 0 and the Max with that mean can have (Bhatia-Davis: stddev^2 <= (max
- mean) x (mean - min), min >= 0); a run in which no request completed or every one timed
out (wrk recorded no latency).
"""

import math
import re
from dataclasses import dataclass

from pydantic import ValidationError

from latlab_contract.fields import MAX_COUNT
from latlab_contract.parsers.base import ParseContext, Parsed, ParseError, validation_message
from latlab_contract.parsers.harness import (
    REQUESTS,
    REQUESTS_PER_S,
    TRANSFER_PER_S,
    duration_ns,
    spectrum,
)
from latlab_contract.result import Failures, SeriesIn, TrialIn
from latlab_contract.vocabulary import MetricSpec

_HEADER = re.compile(r"^Running (\S+) test @ (\S+)\s*$")
_LOAD = re.compile(r"^\s*(\d+) threads? and (\d+) connections?\s*$")
_THREAD_LATENCY = re.compile(r"^\s*Latency\s+(\S+)\s+(\S+)\s+(\S+)\s+\S+\s*$")
_DISTRIBUTION = re.compile(r"^\s*Latency Distribution\s*$")
_PERCENT = re.compile(r"^\s*(\d+(?:\.\d+)?)%\s+(\S+)\s*$")
_PERCENTISH = re.compile(r"^\s*\S*%")
_REQUESTS = re.compile(r"^\s*(\d+) requests in (\S+), (\S+) read\s*$")
_RATE = re.compile(r"^\s*Requests/sec:\s*(\S+)\s*$")
_TRANSFER = re.compile(r"^\s*Transfer/sec:\s*(\S+)\s*$")
_SOCKET = re.compile(r"^\s*Socket errors: connect (\d+), read (\d+), write (\d+), "
                     r"timeout (\d+)\s*$")
_NON_2XX = re.compile(r"^\s*Non-2xx or 3xx responses: (\d+)\s*$")
_TIME = re.compile(r"^(\d+(?:\.\d+)?)(us|ms|s|m)$")
_NUMBER = re.compile(r"^\d+(?:\.\d+)?$")
_SIZE = re.compile(r"^(\d+(?:\.\d+)?)(B|KB|MB|GB|TB|PB)$")
# wrk's time units (`format_time_us`: us, ms, then s and m) as the harness writes them.
_UNITS = {"us": "us", "ms": "ms", "s": "s", "m": "min"}
# The largest metric the contract takes.
_HIGHEST = 1e18
_BYTES = {"B": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3, "TB": 1024**4, "PB": 1024**5}
# What printing moves a value by: wrk prints two decimals (at least three digits); as
# `result.order_problem`, 0.5 % and 1 ns.
_ROUNDING = 5e-3
_LABELS = ("url", "duration", "threads", "connections")

METRIC_INFO = {
    "throughput": REQUESTS_PER_S,
    "requests": REQUESTS,
    "errors": MetricSpec(unit="count", direction="lower",
                         label="socket errors and responses of status 400 and above"),
    "timeouts": MetricSpec(unit="count", direction="lower", label="socket timeouts"),
    "transfer_per_s": TRANSFER_PER_S,
}


@dataclass(frozen=True)
class _Run:
    labels: dict[str, str]  # what its header says: url, duration, threads, connections
    trial: TrialIn


def parse(text: str, context: ParseContext) -> Parsed:
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        if "HdrHistogram" in line or "Detailed Percentile spectrum" in line:
            raise ParseError(f"line {number}: wrk2's output (an HdrHistogram spectrum): read it "
                             "with the wrk2 adapter")
    starts = [number for number, line in enumerate(lines, start=1) if _HEADER.match(line)]
    bounds = list(zip([1, *starts[1:]], [*starts[1:], len(lines) + 1], strict=True))
    runs = [_run(lines, first, end) for first, end in bounds]
    differing = [key for key in _LABELS if len({run.labels.get(key) for run in runs}) > 1]
    grouped: dict[tuple[tuple[str, str], ...], list[TrialIn]] = {}
    for run in runs:
        key = tuple((name, run.labels[name]) for name in differing if name in run.labels)
        grouped.setdefault(key, []).append(run.trial)
    try:
        series = [SeriesIn(labels=dict(key), trials=trials) for key, trials in grouped.items()]
    except ValidationError as error:
        raise ParseError(f"line 1: {validation_message(error)}") from error
    return Parsed(series=series, metric_info=METRIC_INFO)


def _run(lines: list[str], first: int, end: int) -> _Run:
    """The run on lines first .. end - 1 (numbered from 1)."""
    labels: dict[str, str] = {}
    stats: tuple[int, float, float, float] | None = None  # its line; mean, stddev, max in ns
    points: list[tuple[int, float, float]] = []  # line, percentile, value in ns
    distribution: int | None = None  # the line of "Latency Distribution"
    in_distribution = False
    requests: int | None = None
    socket = {"connect": 0, "read": 0, "write": 0, "timeout": 0}
    non_2xx = 0
    metrics: dict[str, float] = {"errors": 0.0, "timeouts": 0.0}
    for number in range(first, end):
        line, where = lines[number - 1], f"line {number}"
        if in_distribution:
            if (percent := _PERCENT.match(line)) is not None:
                points.append((number, float(percent.group(1)),
                               _time(percent.group(2), where)))
                continue
            if _PERCENTISH.match(line):
                raise ParseError(f"{where}: not a percentile line ('50%   1.20ms'): "
                                 f"{line.strip()[:80]!r}")
            in_distribution = False
        if (found := _HEADER.match(line)) is not None:
            labels.update(duration=found.group(1), url=found.group(2))
        elif (found := _LOAD.match(line)) is not None:
            labels.update(threads=found.group(1), connections=found.group(2))
        elif (found := _THREAD_LATENCY.match(line)) is not None:
            mean, stddev, top = (_time(value, where) for value in found.groups())
            stats = (number, mean, stddev, top)
        elif _DISTRIBUTION.match(line):
            distribution, in_distribution = number, True
        elif (found := _REQUESTS.match(line)) is not None:
            requests = _count(found.group(1), where)
            metrics["requests"] = float(requests)
        elif (found := _RATE.match(line)) is not None:
            metrics["throughput"] = _number(found.group(1), where)
        elif (found := _TRANSFER.match(line)) is not None:
            metrics["transfer_per_s"] = _bytes(found.group(1), where)
        elif (found := _SOCKET.match(line)) is not None:
            for name, value in zip(socket, found.groups(), strict=True):
                socket[name] += _count(value, where)
        elif (found := _NON_2XX.match(line)) is not None:
            non_2xx += _count(found.group(1), where)
    last = f"line {max(end - 1, 1)}"
    if distribution is None:
        raise ParseError(f"{last}: no 'Latency Distribution' (run wrk with --latency)")
    if not points:
        raise ParseError(f"line {distribution}: the Latency Distribution has no percentiles")
    if stats is None:
        raise ParseError(f"{last}: no thread stats 'Latency' line (Avg, Stdev, Max)")
    if requests is None:
        raise ParseError(f"{last}: no 'N requests in' line (the output is cut short?)")
    if "throughput" not in metrics:
        raise ParseError(f"{last}: no 'Requests/sec:' line (the output is cut short?)")
    if requests == 0:
        raise ParseError(f"{last}: no request completed (0 requests): wrk measured no latency")
    recorded = requests - socket["timeout"]
    if recorded <= 0:
        raise ParseError(f"{last}: every one of the {requests} requests timed out: wrk "
                         "recorded no latency")
    metrics["errors"] = float(socket["connect"] + socket["read"] + socket["write"] + non_2xx)
    metrics["timeouts"] = float(socket["timeout"])
    _check(stats, points, recorded)
    _, mean, stddev, top = stats
    where = f"line {distribution}"
    try:
        latency = spectrum([*((q, v) for _, q, v in points), (100.0, top)], recorded, where,
                           mean=mean, stddev=stddev)
        trial = TrialIn(latency=latency, metrics=metrics,
                        failures=_failures(requests, socket, non_2xx))
    except ValidationError as error:
        raise ParseError(f"{where}: {validation_message(error)}") from error
    return _Run(labels=labels, trial=trial)


def _failures(requests: int, socket: dict[str, int], non_2xx: int) -> Failures | None:
    """wrk's socket errors and non-2xx responses, of the requests it completed and those it
    lost to connect, read and write errors (the module's docstring says which are which)."""
    lost = socket["connect"] + socket["read"] + socket["write"]
    failed = lost + min(socket["timeout"] + non_2xx, requests)
    if failed == 0:
        return None
    parts = []
    if any(socket.values()):  # wrk's words, the kinds it counted
        parts.append("socket errors: " + ", ".join(f"{k} {v}" for k, v in socket.items() if v))
    if non_2xx:
        parts.append(f"{non_2xx} non-2xx or 3xx responses")
    return Failures(failed=failed, total=requests + lost, detail="; ".join(parts))


def _check(stats: tuple[int, float, float, float], points: list[tuple[int, float, float]],
           count: int) -> None:
    """Refuses what no distribution of non-negative latencies can have printed (the module's
    docstring lists the rules); each comparison allows a printed value's rounding."""
    number, mean, stddev, top = stats
    where = f"line {number}"
    if mean > _most(top):
        raise ParseError(f"{where}: wrk's Avg ({_ms(mean)}) is above its Max ({_ms(top)})")
    previous: tuple[float, float] | None = None
    for line, percentile, value in points:
        if previous is not None and (percentile <= previous[0] or value < previous[1]):
            raise ParseError(f"line {line}: the {percentile:g} % ({_ms(value)}) is not above "
                             f"the {previous[0]:g} % ({_ms(previous[1])}): percentiles out of "
                             "order")
        if value > top:
            raise ParseError(f"line {line}: the {percentile:g} % ({_ms(value)}) is above the "
                             f"Max ({_ms(top)}, line {number})")
        previous = (percentile, value)
    # The least and most mean the percentiles allow: each value at the line below it (0
    # below the first) or at the line above it (the Max above the last).
    shares = [(q_above - q) / 100 for (_, q, _), q_above in zip(
        points, [*(q for _, q, _ in points[1:]), 100.0], strict=True)]
    least = sum(share * value for share, (_, _, value) in zip(shares, points, strict=True))
    values_above = [*(value for _, _, value in points[1:]), top]
    most = points[0][1] / 100 * points[0][2] + sum(
        share * value for share, value in zip(shares, values_above, strict=True))
    if _most(mean) < least:
        raise ParseError(f"{where}: wrk's Avg ({_ms(mean)}) is below the least its percentiles "
                         f"allow ({_ms(least)}: at least {100 - points[0][1]:g} % of the values "
                         f"are at or above the {points[0][1]:g} % line)")
    if mean > _most(most):
        raise ParseError(f"{where}: wrk's Avg ({_ms(mean)}) is above the most its percentiles "
                         f"and Max allow ({_ms(most)}: every value at the line above it)")
    # Bhatia-Davis with min >= 0, for wrk's n - 1 form (n at least the values recorded)
    widest = max(0.0, _most(top) - mean) * _most(mean) * count / max(count - 1, 1)
    if stddev / (1 + _ROUNDING) - 1 > math.sqrt(widest):
        raise ParseError(f"{where}: wrk's Stdev ({_ms(stddev)}) is larger than values between "
                         f"0 and the Max ({_ms(top)}) with the Avg ({_ms(mean)}) can spread "
                         f"(at most {_ms(math.sqrt(widest))}: stddev^2 <= (max - mean) x mean)")


def _most(value: float) -> float:
    """The most a value printed as `value` can have been."""
    return value * (1 + _ROUNDING) + 1.0


def _ms(ns: float) -> str:
    """A time as wrk prints it (`format_time_us`): two decimals of us, ms, s or m."""
    for unit, size in (("m", 60e9), ("s", 1e9), ("ms", 1e6)):
        if ns >= size:
            return f"{ns / size:.2f}{unit}"
    return f"{ns / 1e3:.2f}us"


def _time(text: str, where: str) -> float:
    """A time as wrk prints it (`15.00us`, `1.16ms`, `2.00s`, `1.50m`) in ns, unrounded."""
    found = _TIME.match(text)
    if found is None:
        negative = " (a negative time)" if text.startswith("-") else ""
        raise ParseError(f"{where}: {text[:40]!r} is not a time as wrk prints it "
                         f"('1.16ms'){negative}")
    return duration_ns(float(found.group(1)), _UNITS[found.group(2)], where)


def _count(text: str, where: str) -> int:
    count = int(text) if len(text) <= 20 else MAX_COUNT + 1
    if count > MAX_COUNT:
        raise ParseError(f"{where}: a count of {text[:40]} is outside 0 .. {MAX_COUNT:,}")
    return count


def _number(text: str, where: str, scale: int = 1) -> float:
    if _NUMBER.match(text) is None:
        raise ParseError(f"{where}: {text[:40]!r} is not a number")
    value = float(text) * scale
    if value > _HIGHEST:
        raise ParseError(f"{where}: {text[:40]} is out of range")
    return value


def _bytes(text: str, where: str) -> float:
    found = _SIZE.match(text)
    if found is None:
        raise ParseError(f"{where}: {text[:40]!r} is not a size as wrk prints it ('26.24MB')")
    return _number(found.group(1), where, _BYTES[found.group(2)])
