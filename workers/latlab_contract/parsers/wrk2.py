"""wrk2's output with `--latency` (and `--u_latency`): one run is one trial of one series.

wrk2 keeps every request in an HdrHistogram but prints only its percentile spectrum
("Detailed Percentile spectrum": value in ms, percentile, total count so far); the latency
is rebuilt from its values and counts (`harness.cumulative_hdr`: exact at each printed
row, the values between two rows counted at the later one's). The
"Recorded Latency" spectrum is corrected for coordinated omission (measured from each
request's intended send time); the "Uncorrected Latency" one becomes `latency_uncorrected`.
Requests/sec is `throughput`; socket errors and non-2xx/3xx answers are `errors`, socket
timeouts `timeouts`.
"""

import re

from pydantic import ValidationError

from latlab_contract.parsers import ParseContext, Parsed, ParseError, validation_message
from latlab_contract.parsers.harness import cumulative_hdr, ns
from latlab_contract.result import Latency, MetricSpec, SeriesIn, TrialIn

_SECTION = re.compile(r"Latency Distribution \(HdrHistogram - (Recorded|Uncorrected) Latency")
_ROW = re.compile(r"^\s*([\d.]+)\s+([\d.]+)\s+(\d+)\s+([\d.]+|inf)\s*$")
_SUMMARY = re.compile(r"#\[Max\s*=\s*([\d.]+),\s*Total count\s*=\s*(\d+)\]")
_REQUESTS = re.compile(r"^\s*(\d+) requests in ([\d.]+)(\w+), ([\d.]+)(\w+) read")
_RATE = re.compile(r"^\s*Requests/sec:\s*([\d.]+)")
_TRANSFER = re.compile(r"^\s*Transfer/sec:\s*([\d.]+)(\w*)")
_SOCKET = re.compile(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)")
_NON_2XX = re.compile(r"Non-2xx or 3xx responses: (\d+)")
_BYTES = {"B": 1, "KB": 1024, "MB": 1024**2, "GB": 1024**3, "TB": 1024**4}

METRIC_INFO = {
    "requests": MetricSpec(unit="count", direction="none", label="requests"),
    "transfer_per_s": MetricSpec(unit="B/s", direction="none", label="transfer"),
}


def parse(text: str, context: ParseContext) -> Parsed:
    spectra: dict[str, Latency] = {}
    rows: list[tuple[int, int]] = []  # (requests so far, value in ns)
    section: str | None = None
    last_percentile = 0.0
    metrics: dict[str, float] = {"errors": 0.0, "timeouts": 0.0}
    for number, line in enumerate(text.splitlines(), start=1):
        where = f"line {number}"
        if (found := _SECTION.search(line)) is not None:
            section, rows = found.group(1), []
        elif section is not None and (row := _ROW.match(line)) is not None:
            value, percentile, total, _ = row.groups()
            rows.append((int(total), ns(float(value), "ms", where)))
            last_percentile = float(percentile)
        elif section is not None and (summary := _SUMMARY.search(line)) is not None:
            if not rows or last_percentile != 1.0 or rows[-1][0] != int(summary.group(2)):
                raise ParseError(f"{where}: the {section} spectrum does not end at 100 % of "
                                 f"its total count")
            spectra[section] = cumulative_hdr(rows, where)
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
        raise ParseError(f"line {len(text.splitlines())}: the {section} spectrum is cut short")
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


def _bytes(value: str, unit: str, where: str) -> float:
    if unit not in _BYTES:
        raise ParseError(f"{where}: unknown size unit '{unit}'")
    return float(value) * _BYTES[unit]
