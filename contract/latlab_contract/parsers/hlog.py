"""HdrHistogram interval logs (`.hlog`: jHiccup, wrk2 forks, Cassandra's and YCSB's tools, the
HdrHistogram libraries' log writers), log format 1.2 and 1.3.

A log is one trial per tag: untagged intervals form the series with no labels, `Tag=X`
intervals the series labelled `tag: X`. The trial's latency is the sum of its intervals, and
each interval is kept (window start and length, count, percentiles and its own histogram),
so the trial exports again as a log. The format does not record the values' unit: it is the
context's `latency_unit` (nanoseconds, the HdrHistogram tools' convention, unless told).
A log in another layout than latlab's (another unit, lowest value or precision) is moved
into latlab's bucket by bucket, and the trial's summary is the one HdrHistogram itself gives
of the summed log in its own layout (`hdr.statistics`: what HistogramLogProcessor prints).

Timestamps follow the log readers' rule: relative to `#[BaseTime: ]` when given, else
absolute when within a year of `#[StartTime: ]` (or of the first interval), else relative to
the start time. Window times in the result are seconds since the log's start.
"""

import re
from dataclasses import dataclass

from hdrh.histogram import HdrHistogram
from pydantic import ValidationError

from latlab_contract import hdr
from latlab_contract.fields import MAX_COUNT
from latlab_contract.parsers.base import ParseContext, Parsed, ParseError, validation_message
from latlab_contract.result import SeriesIn, TrialIn
from latlab_contract.vocabulary import SUMMARY_PERCENTILES, TIME_UNITS

_START_TIME = re.compile(r"#\[StartTime: *([\d.]+)")
_BASE_TIME = re.compile(r"#\[BaseTime: *([\d.]+)")
# Java's writer may stamp the first intervals a little before its base time (negative).
_INTERVAL = re.compile(r"^(?:Tag=([^,]*),)?(-?[\d.]+),([\d.]+),([\d.]+),(\S+)\s*$")
_YEAR_S = 365 * 24 * 3600.0
_INTERVAL_PERCENTILES = {"p50": 50.0, "p90": 90.0, "p99": 99.0, "p999": 99.9}


@dataclass
class _Series:
    total: HdrHistogram  # in latlab's layout, ns
    sources: list[HdrHistogram]  # the intervals in the log's own layout and unit
    intervals: list[dict[str, object]]


def parse(text: str, context: ParseContext) -> Parsed:
    scale = TIME_UNITS.get(context.latency_unit)
    if scale is None:
        raise ParseError(f"unknown latency unit '{context.latency_unit}' "
                         f"(known: {', '.join(TIME_UNITS)})")
    start: float | None = None
    base: float | None = None
    by_tag: dict[str | None, _Series] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        where = f"line {number}"
        if line.startswith("#"):
            if (found := _START_TIME.match(line)) is not None:
                start = float(found.group(1))
            elif (found := _BASE_TIME.match(line)) is not None:
                base = float(found.group(1))
            continue
        if not line.strip() or line.startswith('"StartTimestamp"'):
            continue
        interval = _INTERVAL.match(line)
        if interval is None:
            raise ParseError(f"{where}: not an interval line "
                             f"('[Tag=X,]start,length,max,histogram'): {line[:80]!r}")
        tag, stamp, length, _, payload = interval.groups()
        if base is None:
            base = start if start is not None and float(stamp) < start - _YEAR_S else 0.0
        if start is None:
            start = base + float(stamp)
        source = _decoded(payload, where)
        histogram = _in_ns(source, scale, where)
        series = by_tag.setdefault(tag or None, _Series(hdr.new_histogram(), [], []))
        if series.total.get_total_count() + histogram.get_total_count() > MAX_COUNT:
            raise ParseError(f"{where}: the log counts more than {MAX_COUNT:,} values")
        series.total.add(histogram)
        series.sources.append(source)
        series.intervals.append(_window(histogram, round(base + float(stamp) - start, 6),
                                        float(length)))
    if not by_tag:
        raise ParseError("line 1: the log holds no interval histograms")
    try:
        series_list = [
            SeriesIn(labels={} if tag is None else {"tag": tag},
                     trials=[TrialIn.model_validate({
                         "latency": _latency(series, scale),
                         "intervals": series.intervals})])
            for tag, series in by_tag.items()
        ]
    except ValidationError as error:
        raise ParseError(validation_message(error)) from error
    return Parsed(series=series_list)


def _decoded(payload: str, where: str) -> HdrHistogram:
    try:
        return hdr.decode(payload)
    except hdr.HdrError as error:
        raise ParseError(f"{where}: {error}") from error


def _in_ns(histogram: HdrHistogram, scale: float, where: str) -> HdrHistogram:
    """The interval's histogram in latlab's layout, its values in nanoseconds (another layout
    is moved over bucket by bucket at each bucket's highest value, as the api does)."""
    if scale == 1.0 and hdr.is_canonical(histogram):
        return histogram
    try:
        return hdr.from_counts(
            (round(item.value_iterated_to * scale), item.count_added_in_this_iter_step)
            for item in histogram.get_recorded_iterator())
    except hdr.HdrError as error:
        raise ParseError(f"{where}: {error}") from error


def _latency(series: _Series, scale: float) -> dict[str, object]:
    """The trial's histogram, and when the log is in another layout, the statistics
    HdrHistogram gives of its sum in that layout (the log processor's: the first interval's
    layout, grown to hold the largest value, as Java's auto-resizing histogram grows)."""
    latency: dict[str, object] = {"hdr": hdr.encode(series.total)}
    # Logs whose buckets are latlab's (1 ns, 3 digits; any highest value) give the same
    # statistics in either layout.
    if series.total.get_total_count() and (scale != 1.0 or any(
            (source.lowest_trackable_value, source.significant_figures)
            != (1, hdr.SIGNIFICANT_FIGURES) for source in series.sources)):
        own = hdr.statistics(hdr.summed(series.sources), SUMMARY_PERCENTILES)
        latency["reported"] = {key: value * scale for key, value in own.items()}
    return latency


def _window(histogram: HdrHistogram, t_s: float, length_s: float) -> dict[str, object]:
    window: dict[str, object] = {"t_s": max(t_s, 0.0), "length_s": length_s,
                                 "count": histogram.get_total_count()}
    if histogram.get_total_count():
        window.update({key: float(histogram.get_value_at_percentile(q))
                       for key, q in _INTERVAL_PERCENTILES.items()})
        window["max"] = float(histogram.get_max_value())
    window["hdr"] = hdr.encode(histogram)
    return window
