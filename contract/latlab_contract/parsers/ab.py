"""ApacheBench (`ab` 2.3) text output: one trial of one series.

ab keeps no histogram. What it prints is taken as printed: requests per second, the mean time
per request, the failure counters, and the "served within" table (the 50, 66, 75, 80, 90, 95,
98 and 99th percentiles and the longest request, rounded by ab to whole milliseconds) as
metrics in ms.

The contract needs a latency distribution per trial, so the trial's histogram stands for that
table and nothing more: ab's percentile row p (value v, the floor(n*p/100)+1-th fastest of the
n complete requests) becomes a step holding the requests ranked after the previous row, up to
and including that one, all recorded at v; the longest request holds the rest. Its count is
ab's complete requests, and its percentiles at ab's rows are ab's values (for n >= 200, where
every row is at least two requests apart). Between rows it gives the next row's value (an upper
bound), below 0.5 ms it gives 0 (ab's rounding), and its mean is not ab's (`mean_ms` is).

ab's failures are the trial's `failures`: its `Failed requests` (connect, receive, length
and exception failures: ab counts a response whose length differs from the first one's as
failed) and its `Non-2xx responses`, of its complete requests, with ab's own lines as the
detail. ab's counters overlap (a request can fail on receive and on length, a 503 differ in
length from a 200), so where they add up to more than the complete requests the share is
unknown (`total` None). A negative count or time, and a served-within table that decreases,
are refused naming the line.
"""

import re

from pydantic import ValidationError

from latlab_contract import hdr
from latlab_contract.parsers.base import ParseContext, Parsed, ParseError, validation_message
from latlab_contract.result import Failures, SeriesIn, TrialIn
from latlab_contract.vocabulary import MetricSpec

NS_PER_MS = 1_000_000
PERCENTS = (50, 66, 75, 80, 90, 95, 98, 99)

_COUNT = MetricSpec(unit="count", direction="lower")
# The metrics the lab may not know; `throughput` (req/s) and `errors` (failed + non-2xx) are
# generic.
METRICS: dict[str, MetricSpec] = {
    "mean_ms": MetricSpec(unit="ms", direction="lower", label="time per request (ab's mean)"),
    "requests": MetricSpec(unit="count", direction="none", label="complete requests"),
    "failed": MetricSpec(unit="count", direction="lower", label="failed requests"),
    "failed_connect": _COUNT,
    "failed_receive": _COUNT,
    "failed_length": _COUNT,
    "failed_exceptions": _COUNT,
    "write_errors": _COUNT,
    "non_2xx": MetricSpec(unit="count", direction="lower", label="non-2xx responses"),
    "keepalive_requests": MetricSpec(unit="count", direction="none"),
    "duration_s": MetricSpec(unit="s", direction="none", label="time measured"),
    **{f"ab_p{p}_ms": MetricSpec(unit="ms", direction="lower", label=f"served within, {p} %")
       for p in PERCENTS},
    "ab_max_ms": MetricSpec(unit="ms", direction="lower", label="longest request"),
}

_NUMBER = r"(-?\d+(?:\.\d+)?)"
_FIELDS = {
    "requests": rf"^Complete requests:\s+{_NUMBER}\s*$",
    "failed": rf"^Failed requests:\s+{_NUMBER}\s*$",
    "throughput": rf"^Requests per second:\s+{_NUMBER} \[#/sec\] \(mean\)\s*$",
    "mean_ms": rf"^Time per request:\s+{_NUMBER} \[ms\] \(mean\)\s*$",
    "duration_s": rf"^Time taken for tests:\s+{_NUMBER} seconds\s*$",
}
_OPTIONAL = {
    "non_2xx": rf"^Non-2xx responses:\s+{_NUMBER}\s*$",
    "write_errors": rf"^Write errors:\s+{_NUMBER}\s*$",
    "keepalive_requests": rf"^Keep-Alive requests:\s+{_NUMBER}\s*$",
}
_BREAKDOWN = re.compile(r"^\s+\(Connect: (\d+), Receive: (\d+), Length: (\d+), "
                        r"Exceptions: (\d+)\)\s*$", re.MULTILINE)
_ROW = re.compile(r"^\s*(\d+)%\s+(-?\d+)(?: \(longest request\))?\s*$", re.MULTILINE)
_TABLE = "Percentage of the requests served within a certain time (ms)"


def parse(text: str, context: ParseContext) -> Parsed:
    metrics: dict[str, float] = {}
    lines: dict[str, str] = {}
    for name, pattern in _FIELDS.items():
        found = re.search(pattern, text, re.MULTILINE)
        if found is None:
            raise ParseError(f"no line matching '{pattern}': ab printed no results "
                             f"(its output ends with {text.strip()[-200:]!r})")
        metrics[name] = _non_negative(found, text)
        lines[name] = " ".join(found.group(0).split())
    for name, pattern in _OPTIONAL.items():
        found = re.search(pattern, text, re.MULTILINE)
        metrics[name] = _non_negative(found, text) if found else 0.0
        if found:
            lines[name] = " ".join(found.group(0).split())
    breakdown = _BREAKDOWN.search(text)
    for index, name in enumerate(("connect", "receive", "length", "exceptions"), start=1):
        metrics[f"failed_{name}"] = float(breakdown.group(index)) if breakdown else 0.0
    metrics["errors"] = metrics["failed"] + metrics["non_2xx"]
    table = _table(text)
    for percent, value in table.items():
        metrics["ab_max_ms" if percent == 100 else f"ab_p{percent}_ms"] = float(value)
    latency = _step_histogram(int(metrics["requests"]), table)
    try:
        trial = TrialIn.model_validate({
            "latency": {"hdr": latency, "resolution_ns": NS_PER_MS}, "metrics": metrics,
            "failures": _failures(metrics, lines, breakdown)})
    except ValidationError as error:
        raise ParseError(validation_message(error)) from error
    return Parsed(series=[SeriesIn(trials=[trial])], metric_info=METRICS)


def _failures(metrics: dict[str, float], lines: dict[str, str],
              breakdown: re.Match[str] | None) -> Failures | None:
    """ab's failed requests and non-2xx responses, in its words."""
    failed = int(metrics["failed"] + metrics["non_2xx"])
    if failed == 0:
        return None
    complete = int(metrics["requests"])
    words = [lines["failed"]]
    if breakdown is not None:
        words[0] += " " + breakdown.group(0).strip()
    words += [lines[name] for name in ("non_2xx", "write_errors") if name in lines]
    return Failures(failed=failed, total=complete if failed <= complete else None,
                    detail=f"ab: {'; '.join(words)}"[:500])


def _non_negative(found: re.Match[str], text: str) -> float:
    value = float(found.group(1))
    if value < 0:
        number = text.count("\n", 0, found.start()) + 1
        raise ParseError(f"line {number}: {found.group(0).strip()!r}: a count, rate or time "
                         "cannot be negative")
    return value


def _table(text: str) -> dict[int, int]:
    """ab's percentile rows, checked: all of them, non-decreasing."""
    start = text.find(_TABLE)
    if start < 0:
        raise ParseError(f"no '{_TABLE}' table (ab prints it when it completed two requests "
                         f"or more)")
    rows: dict[int, int] = {}
    for found in _ROW.finditer(text, start + len(_TABLE)):
        number = text.count("\n", 0, found.start()) + 1
        percent, value = int(found.group(1)), int(found.group(2))
        if value < 0:
            raise ParseError(f"line {number}: {found.group(0).strip()!r}: a time cannot be "
                             "negative")
        if rows and value < max(rows.values()):
            below = max(rows, key=lambda p: (rows[p], -p))
            raise ParseError(f"line {number}: the {percent} % row ({value} ms) is below the "
                             f"{below} % row ({rows[below]} ms): the served-within table "
                             "must not decrease")
        rows[percent] = value
    expected = (*PERCENTS, 100)
    if tuple(rows) != expected:
        raise ParseError(f"the served-within table has rows {list(rows)}, not {list(expected)}")
    return rows


def _step_histogram(count: int, table: dict[int, int]) -> str:
    """The histogram the module docstring describes, as standard compressed HdrHistogram V2
    (`hdr.from_counts`: values and counts bounded before HdrHistogram's C code sees them)."""
    if count < 2:
        raise ParseError(f"ab completed {count} request(s); its table needs two or more")
    steps, below = [], 0
    for percent, value_ms in table.items():
        rank = count if percent == 100 else count * percent // 100 + 1
        if rank > below:
            steps.append((value_ms * NS_PER_MS, rank - below))
            below = rank
    try:
        return hdr.encode(hdr.from_counts(steps))
    except hdr.HdrError as error:
        raise ParseError(f"the served-within table: {error}") from error
