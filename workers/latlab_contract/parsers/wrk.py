"""wrk's text output (wg/wrk 4.x, not wrk2) with `--latency`: one run is one trial of one
series.

wrk keeps its latencies in a table of microseconds but prints only a summary of it: the
thread stats' `Latency` line (Avg, Stdev, Max) and, with `--latency`, the "Latency
Distribution" at 50, 75, 90 and 99 % (in wrk's units `us`, `ms`, `s`, `m`, two decimals). The
latency is rebuilt from those percentiles and the Max over the "N requests in" count
(`harness.spectrum`: each printed point at its nearest rank, the values between
interpolated); wrk prints no min, so the ranks below the 50 % take its value. The trial's
summary is wrk's own, as printed: its 50, 90 and 99 %, Max, Avg (the mean) and Stdev (the
n - 1 form); the min is the rebuilt histogram's.

wrk 4 corrects its latency table for coordinated omission before it prints it
(`stats_correct`, since 4.0.0): for every latency of at least twice the mean time between two
requests of one connection it adds synthetic values (that latency less one, two, ... such
intervals). The printed percentiles, Avg and Stdev describe that corrected distribution, like
wrk2's recorded latency, and its count (more values than requests) is not printed: the
rebuilt histogram holds as many values as requests completed. A latency of `--timeout` or
more is not recorded at all (wrk counts it as a socket timeout).

`Requests/sec` is `throughput`, the "requests in" count `requests`, `Transfer/sec`
`transfer_per_s` (bytes per second); socket connect, read and write errors and the
"Non-2xx or 3xx responses" (wrk counts status 400 and above) are `errors`, socket timeouts
`timeouts`, as in the wrk2 adapter. Output without `--latency` is refused, and so is wrk2's
(read it with the wrk2 adapter).
"""

import re

from pydantic import ValidationError

from latlab_contract.parsers.base import ParseContext, Parsed, ParseError, validation_message
from latlab_contract.parsers.harness import duration_ns, spectrum
from latlab_contract.result import MAX_COUNT, SeriesIn, TrialIn
from latlab_contract.vocabulary import MetricSpec

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

METRIC_INFO = {
    "throughput": MetricSpec(unit="req/s", direction="higher", label="requests per second"),
    "requests": MetricSpec(unit="count", direction="none", label="requests"),
    "errors": MetricSpec(unit="count", direction="lower",
                         label="socket errors and responses of status 400 and above"),
    "timeouts": MetricSpec(unit="count", direction="lower", label="socket timeouts"),
    "transfer_per_s": MetricSpec(unit="B/s", direction="none", label="transfer"),
}


def parse(text: str, context: ParseContext) -> Parsed:
    lines = text.splitlines()
    for number, line in enumerate(lines, start=1):
        if "HdrHistogram" in line or "Detailed Percentile spectrum" in line:
            raise ParseError(f"line {number}: wrk2's output (an HdrHistogram spectrum): read it "
                             "with the wrk2 adapter")
    stats: tuple[float, float, float] | None = None  # mean, stddev, max in ns
    points: list[tuple[float, float]] = []
    distribution: int | None = None  # the line of "Latency Distribution"
    in_distribution = False
    requests: int | None = None
    metrics: dict[str, float] = {"errors": 0.0, "timeouts": 0.0}
    for number, line in enumerate(lines, start=1):
        where = f"line {number}"
        if in_distribution:
            if (percent := _PERCENT.match(line)) is not None:
                points.append((float(percent.group(1)), _time(percent.group(2), where)))
                continue
            if _PERCENTISH.match(line):
                raise ParseError(f"{where}: not a percentile line ('50%   1.20ms'): "
                                 f"{line.strip()[:80]!r}")
            in_distribution = False
        if (found := _THREAD_LATENCY.match(line)) is not None:
            mean, stddev, top = (_time(value, where) for value in found.groups())
            stats = (mean, stddev, top)
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
            connect, read, write, timeout = (_count(v, where) for v in found.groups())
            metrics["errors"] += connect + read + write
            metrics["timeouts"] += timeout
        elif (found := _NON_2XX.match(line)) is not None:
            metrics["errors"] += _count(found.group(1), where)
    last = f"line {max(len(lines), 1)}"
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
    mean, stddev, top = stats
    where = f"line {distribution}"
    try:
        latency = spectrum([*points, (100.0, top)], requests, where, mean=mean, stddev=stddev)
        series = SeriesIn(trials=[TrialIn(latency=latency, metrics=metrics)])
    except ValidationError as error:
        raise ParseError(f"{where}: {validation_message(error)}") from error
    return Parsed(series=[series], metric_info=METRIC_INFO)


def _time(text: str, where: str) -> float:
    """A time as wrk prints it (`15.00us`, `1.16ms`, `2.00s`, `1.50m`) in ns, unrounded."""
    found = _TIME.match(text)
    if found is None:
        raise ParseError(f"{where}: {text[:40]!r} is not a time as wrk prints it ('1.16ms')")
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
