"""wrk2's output with `--latency` (and `--u_latency`): one run is one trial of one series.

wrk2 keeps every request in an HdrHistogram (microseconds, 3 significant digits) but prints
only its percentile spectrum ("Detailed Percentile spectrum": value in ms, percentile, total
count so far); the latency is rebuilt from its values and counts (`harness.cumulative`:
exact at each printed row, interpolated between two rows). The trial's summary is wrk2's
own where it printed it: the "Latency Distribution" percentiles (50, 90, 99, 99.9,
99.99 %) and `#[Mean = .., StdDeviation = ..]`; its min and max are HdrHistogram's
getMinValue and getMaxValue (the first row's bucket's lowest value, the last row's value).
The "Recorded Latency" spectrum is corrected for coordinated omission (measured from each
request's intended send time); the "Uncorrected Latency" one becomes `latency_uncorrected`.
Requests/sec is `throughput`; socket errors and non-2xx/3xx answers are `errors`, socket
timeouts `timeouts`.
"""

import re
from dataclasses import dataclass, field

from hdrh.histogram import HdrHistogram
from pydantic import ValidationError

from latlab_contract import hdr
from latlab_contract.latency import Latency
from latlab_contract.parsers.base import ParseContext, Parsed, ParseError, validation_message
from latlab_contract.parsers.harness import (
    REQUESTS,
    TRANSFER_PER_S,
    cumulative,
    ns,
    reported,
)
from latlab_contract.result import SeriesIn, TrialIn

_SECTION = re.compile(r"Latency Distribution \(HdrHistogram - (Recorded|Uncorrected) Latency")
_ROW = re.compile(r"^\s*([\d.]+)\s+([\d.]+)\s+(\d+)\s+([\d.]+|inf)\s*$")
_SUMMARY = re.compile(r"#\[Max\s*=\s*([\d.]+),\s*Total count\s*=\s*(\d+)\]")
_MEAN = re.compile(r"#\[Mean\s*=\s*([\d.]+),\s*StdDeviation\s*=\s*([\d.]+)\]")
_PRINTED = re.compile(r"^\s*([\d.]+)%\s+([\d.]+)(us|ms|s|m|h)\s*$")
_NUMBER = re.compile(r"^\s*[-+\d.]")
_PRINTED_UNITS = {"us": "us", "ms": "ms", "s": "s", "m": "min"}
# wrk2's histogram: 1 us .. 24 h, 3 significant digits (its `#[Buckets = 27, SubBuckets = 2048]`).
_LAYOUT = HdrHistogram(1, 24 * 3600 * 10**6, hdr.SIGNIFICANT_FIGURES)
_REQUESTS = re.compile(r"^\s*(\d+) requests in ([\d.]+)(\w+), ([\d.]+)(\w+) read")
_RATE = re.compile(r"^\s*Requests/sec:\s*([\d.]+)")
_TRANSFER = re.compile(r"^\s*Transfer/sec:\s*([\d.]+)(\w*)")
_SOCKET = re.compile(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)")
_NON_2XX = re.compile(r"Non-2xx or 3xx responses: (\d+)")
_BYTES = {"B": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3, "TB": 1024**4}

METRIC_INFO = {
    "requests": REQUESTS,
    "transfer_per_s": TRANSFER_PER_S,
}


def parse(text: str, context: ParseContext) -> Parsed:
    spectra: dict[str, Latency] = {}
    section: _Section | None = None
    metrics: dict[str, float] = {"errors": 0.0, "timeouts": 0.0}
    for number, line in enumerate(text.splitlines(), start=1):
        where = f"line {number}"
        if (found := _SECTION.search(line)) is not None:
            section = _Section(found.group(1))
        elif section is not None and (row := _ROW.match(line)) is not None:
            section.add_row(row.groups(), where)
        elif section is not None and (printed := _PRINTED.match(line)) is not None:
            percentile, value, unit = printed.groups()
            if unit not in _PRINTED_UNITS:
                raise ParseError(f"{where}: an hour-long latency ({line.strip()!r})")
            section.printed.append((float(percentile),
                                    ns(float(value), _PRINTED_UNITS[unit], where)))
        elif section is not None and _NUMBER.match(line):
            raise ParseError(f"{where}: not a spectrum row ('value percentile total "
                             f"1/(1-percentile)') nor a percentile line: {line.strip()[:80]!r}")
        elif section is not None and (mean := _MEAN.search(line)) is not None:
            section.mean = ns(float(mean.group(1)), "ms", where)
            section.stddev = ns(float(mean.group(2)), "ms", where)
        elif section is not None and (summary := _SUMMARY.search(line)) is not None:
            spectra[section.name] = section.latency(int(summary.group(2)), where)
            section = None
        elif (requests := _REQUESTS.match(line)) is not None:
            metrics["requests"] = float(requests.group(1))
        elif (rate := _RATE.match(line)) is not None:
            metrics["throughput"] = float(rate.group(1))
        elif (transfer := _TRANSFER.match(line)) is not None:
            metrics["transfer_per_s"] = _bytes(transfer.group(1), transfer.group(2), where)
        elif (socket := _SOCKET.search(line)) is not None:
            connect, read, write, timeout = (float(v) for v in socket.groups())
            metrics["errors"] += connect + read + write
            metrics["timeouts"] += timeout
        elif (non_2xx := _NON_2XX.search(line)) is not None:
            metrics["errors"] += float(non_2xx.group(1))
    if section is not None:
        raise ParseError(f"line {len(text.splitlines())}: the {section.name} spectrum is cut "
                         f"short")
    if "Recorded" not in spectra:
        raise ParseError("line 1: no 'Detailed Percentile spectrum' of the recorded latency "
                         "(run wrk2 with --latency)")
    trial = {"latency": spectra["Recorded"], "metrics": metrics}
    if "Uncorrected" in spectra:
        trial["latency_uncorrected"] = spectra["Uncorrected"]
    try:
        series = SeriesIn(trials=[TrialIn.model_validate(trial)])
    except ValidationError as error:
        raise ParseError(validation_message(error)) from error
    return Parsed(series=[series], metric_info=METRIC_INFO)


@dataclass
class _Section:
    """One latency section: its printed percentiles, spectrum rows and statistics."""

    name: str
    printed: list[tuple[float, int]] = field(default_factory=list)
    rows: list[tuple[int, int]] = field(default_factory=list)  # (requests so far, ns)
    last_percentile: float = 0.0
    mean: int | None = None
    stddev: int | None = None

    def add_row(self, fields: tuple[str, ...], where: str) -> None:
        value, percentile, total, _ = fields
        if not 0.0 <= float(percentile) <= 1.0:
            raise ParseError(f"{where}: percentile {percentile} is outside 0 .. 1")
        if self.rows and int(total) < self.rows[-1][0]:
            raise ParseError(f"{where}: the total count {total} is below the row before's "
                             f"({self.rows[-1][0]})")
        self.rows.append((int(total), ns(float(value), "ms", where)))
        self.last_percentile = float(percentile)

    def latency(self, total: int, where: str) -> Latency:
        if not self.rows or self.last_percentile != 1.0 or self.rows[-1][0] != total:
            raise ParseError(f"{where}: the {self.name} spectrum does not end at 100 % of "
                             f"its total count")
        # getMinValue: the lowest value of the first row's bucket (in wrk2's microseconds)
        lowest = _LAYOUT.get_lowest_equivalent_value(self.rows[0][1] // 1000) * 1000
        points = [(q, v) for q, v in self.printed if q < 100.0]
        return cumulative(self.rows, where, reported(
            [(0.0, lowest), *points], mean=self.mean, stddev=self.stddev))


def _bytes(value: str, unit: str, where: str) -> float:
    if unit not in _BYTES:
        raise ParseError(f"{where}: unknown size unit '{unit}'")
    return float(value) * _BYTES[unit]
