"""The load generators' adapters against the real tools' output: wrk (golden/adapters/wrk),
vegeta (vegeta/), oha (oha/) and ghz (ghz/). Every golden file found is parsed, and the result
is compared with the numbers the tool itself printed, read here from its own output: wrk's
text, vegeta's JSON and text reports of the same attack, oha's JSON and the SQLite store of
every request of the same run, ghz's JSON and its own printer's summary of it. Where our
latency is every request's, the tool's numbers are derived from our samples with the tool's
own rule (its percentile index, its floating point). Nothing expected is typed in by hand.
Malformed input is refused as a ParseError naming its line or JSON path."""

import bisect
import contextlib
import json
import math
import re
import sqlite3
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hdrh.histogram import HdrHistogram

from latlab_contract.latency import Latency, Reported
from latlab_contract.parsers import ParseContext, ParseError, ghz, oha, vegeta, wrk
from latlab_contract.result import TrialIn

GOLDEN = Path(__file__).parent / "golden" / "adapters"
CONTEXT = ParseContext()
# Nanoseconds per unit, as the tools print units (wrk's `m` is minutes).
UNIT_NS = {"ns": 1.0, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9, "m": 60e9}
HDR_PRECISION = 1e-3  # the rebuilt histograms' 3 significant digits
REPORTED = set(Reported.model_fields)


def only_trial(module: ModuleType, path: Path) -> TrialIn:
    parsed = module.parse(path.read_text(), CONTEXT)
    (series,) = parsed.series
    assert series.labels == {}
    (trial,) = series.trials
    assert isinstance(trial, TrialIn)
    return trial


def histogram(latency: Latency) -> HdrHistogram:
    assert latency.hdr is not None
    return HdrHistogram.decode(latency.hdr)


def at_rank(ours: HdrHistogram, rank: int) -> int:
    """The value of the rank-th smallest value of a histogram (its bucket's highest)."""
    for item in ours.get_recorded_iterator():
        if item.total_count_to_this_value >= rank:
            return int(item.value_iterated_to)
    raise AssertionError(f"rank {rank} beyond the histogram's {ours.get_total_count()}")


def nearest_rank(percentile: float, count: int) -> int:
    return max(1, math.ceil(Fraction(repr(percentile)) * count / 100))


def close(ours: float, theirs: float, relative: float = HDR_PRECISION) -> bool:
    return abs(ours - theirs) <= relative * abs(theirs)


def same(ours: float | None, theirs: float) -> bool:
    """Equal to 1e-9 relative (a unit's conversion to ns in floating point)."""
    return ours is not None and math.isclose(ours, theirs, rel_tol=1e-9)


def summary_key(percentile: str) -> str:
    """`Reported`'s key of a percentile as tools write it: 99.9 -> p999, 50 -> p50."""
    return "p" + f"{float(percentile):g}".replace(".", "")


def printed_as(ours: float, printed: str, unit: str) -> str:
    """Our value in the unit and to the decimals of a number the tool printed."""
    decimals = len(printed.partition(".")[2])
    return f"{ours / UNIT_NS[unit]:.{decimals}f}"


def relative(path: Path) -> str:
    return str(path.relative_to(GOLDEN))


def printed_stats(latency: Latency) -> dict[str, float]:
    assert latency.reported is not None
    return latency.reported.model_dump(exclude_none=True)


# wrk 4.1.0: its text with --latency, and the README's example without.

WRK = GOLDEN / "wrk"
WRK_FILES = sorted(WRK.glob("*.txt"))
WRK_TIME = r"([\d.]+)(us|ms|s|m)"


def wrk_printed(text: str) -> dict[str, Any]:
    """What wrk printed: thread stats' latency (value, unit) x 3, the percentile lines, the
    requests, the rates and the error lines."""
    thread = re.search(rf"^\s+Latency\s+{WRK_TIME}\s+{WRK_TIME}\s+{WRK_TIME}\s+[\d.]+%$",
                       text, re.MULTILINE)
    requests = re.search(r"^\s+(\d+) requests in ([\d.]+)(us|ms|s|m), ", text, re.MULTILINE)
    socket = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)",
                       text)
    non_2xx = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
    transfer = re.search(r"^Transfer/sec:\s+([\d.]+)([KMGTP]?)B$", text, re.MULTILINE)
    assert thread is not None and requests is not None and transfer is not None
    connect, read, write, timeout = (int(v) for v in socket.groups()) if socket else (0,) * 4
    return {
        "mean": thread.group(1, 2), "stddev": thread.group(3, 4), "max": thread.group(5, 6),
        "percentiles": re.findall(rf"^\s+(\d+)%\s+{WRK_TIME}$", text, re.MULTILINE),
        "requests": int(requests.group(1)),
        "seconds": float(requests.group(2)) * UNIT_NS[requests.group(3)] / 1e9,
        "throughput": float(re.search(r"^Requests/sec:\s+([\d.]+)$", text,
                                      re.MULTILINE).group(1)),
        "transfer_per_s": float(transfer.group(1)) * 1024 ** "_KMGTP".find(
            transfer.group(2) or "_"),
        "errors": connect + read + write + (int(non_2xx.group(1)) if non_2xx else 0),
        "timeouts": timeout,
    }


WRK_LATENCY_FILES = [p for p in WRK_FILES if "Latency Distribution" in p.read_text()]


@pytest.mark.parametrize("path", WRK_LATENCY_FILES, ids=relative)
def test_wrk_summary_is_what_wrk_printed(path: Path) -> None:
    printed = wrk_printed(path.read_text())
    trial = only_trial(wrk, path)
    assert trial.latency.rebuilt
    ours = histogram(trial.latency)
    # wrk records no latency of a request that timed out (its `stats_record` refuses it)
    count = printed["requests"] - printed["timeouts"]
    assert ours.get_total_count() == count
    stats = printed_stats(trial.latency)
    assert set(stats) == {"p50", "p90", "p99", "max", "mean", "stddev"}  # wrk prints no min
    for key in ("mean", "stddev", "max"):
        value, unit = printed[key]
        assert printed_as(stats[key], value, unit) == value, key
    assert close(ours.get_max_value(), float(printed["max"][0]) * UNIT_NS[printed["max"][1]])
    assert [p for p, _, _ in printed["percentiles"]] == ["50", "75", "90", "99"]
    for percent, value, unit in printed["percentiles"]:
        key = summary_key(percent)
        if key in REPORTED:
            assert printed_as(stats[key], value, unit) == value, key
        # every printed point is in the rebuilt histogram, at its nearest rank
        assert close(at_rank(ours, nearest_rank(float(percent), count)),
                     float(value) * UNIT_NS[unit]), percent
    for metric in ("requests", "throughput", "errors", "timeouts"):
        assert trial.metrics[metric] == printed[metric], metric
    assert math.isclose(trial.metrics["transfer_per_s"], printed["transfer_per_s"])


def test_wrk_errors_and_timeouts_come_from_their_lines() -> None:
    """The golden runs that printed them: all 404 (Non-2xx), and 18 socket timeouts."""
    assert only_trial(wrk, WRK / "t2-c10-d5s-404.txt").metrics["errors"] == 206305
    timed_out = only_trial(wrk, WRK / "t2-c400-d5s-timeout1s-slow-server.txt")
    assert timed_out.metrics["timeouts"] == 18 and timed_out.metrics["errors"] == 0


def test_wrk_latency_statistics_are_corrected_for_coordinated_omission() -> None:
    """One connection sends one request at a time, so its requests' latencies add up to at
    most the run's time: their mean is at most 3.04 s / 97940 = 31 us. wrk printed an Avg of
    1.61 ms (and a 75 % of 833 us): its statistics include the values its `stats_correct`
    adds for slow requests, as the adapter's documentation says."""
    path = WRK / "t1-c1-d3s.txt"
    text = path.read_text()
    assert "1 threads and 1 connections" in text
    printed = wrk_printed(text)
    bound = printed["seconds"] * 1e9 / printed["requests"]
    stats = printed_stats(only_trial(wrk, path).latency)
    assert stats["mean"] > 50 * bound


@pytest.mark.parametrize("path", [p for p in WRK_FILES if p not in WRK_LATENCY_FILES],
                         ids=relative)
def test_wrk_without_latency_flag_is_refused(path: Path) -> None:
    with pytest.raises(ParseError, match=r"run wrk with --latency"):
        wrk.parse(path.read_text(), CONTEXT)


def test_wrk_refuses_wrk2_output() -> None:
    with pytest.raises(ParseError, match="read it with the wrk2 adapter"):
        wrk.parse((GOLDEN / "wrk2" / "latency.txt").read_text(), CONTEXT)


# vegeta v12.13.0 and v12.8.4: the JSON report and every request of one attack, with vegeta's
# text report of it; the README's examples.

VEGETA = GOLDEN / "vegeta"
# v12.8 and later (v11.3.0's older layout, without min, 90th and throughput, is read by
# test_loadgen_honesty).
VEGETA_REPORTS = sorted(p for p in VEGETA.rglob("*.json") if "v11.3.0" not in p.parts)
VEGETA_RESULTS = sorted(VEGETA.rglob("*results.jsonl"))
VEGETA_LATENCIES = {"min": 0.0, "50th": 50.0, "90th": 90.0, "95th": 95.0, "99th": 99.0,
                    "max": 100.0}
VEGETA_KEYS = {"min": "min", "mean": "mean", "max": "max", "50th": "p50", "90th": "p90",
               "95th": "p95", "99th": "p99"}


def vegeta_errors(codes: dict[str, int]) -> int:
    return sum(count for code, count in codes.items() if not 200 <= int(code) < 400)


@pytest.mark.parametrize("path", VEGETA_REPORTS, ids=relative)
def test_vegeta_report_keeps_vegetas_statistics(path: Path) -> None:
    document = json.loads(path.read_text())
    latencies = document["latencies"]
    trial = only_trial(vegeta, path)
    assert trial.latency.rebuilt
    ours = histogram(trial.latency)
    count = document["requests"]
    assert ours.get_total_count() == count
    assert printed_stats(trial.latency) == {VEGETA_KEYS[key]: float(value)
                                            for key, value in latencies.items()
                                            if key in VEGETA_KEYS}
    for key, percentile in VEGETA_LATENCIES.items():
        assert close(at_rank(ours, nearest_rank(percentile, count)), latencies[key]), key
    assert trial.metrics == {
        "throughput": document["throughput"], "rate": document["rate"],
        "requests": count, "success_rate": document["success"],
        "errors": vegeta_errors(document["status_codes"])}


def go_duration(nanoseconds: int) -> str:
    """Go's time.Duration.String() of a duration under a minute."""
    assert 0 <= nanoseconds < 60 * 10**9
    if nanoseconds == 0:
        return "0s"
    if nanoseconds < 1000:
        return f"{nanoseconds}ns"
    scale, unit = next((s, u) for s, u in ((10**9, "s"), (10**6, "ms"), (10**3, "µs"))
                       if nanoseconds >= s)
    whole, rest = divmod(nanoseconds, scale)
    digits = str(rest).rjust(len(str(scale)) - 1, "0").rstrip("0")
    return f"{whole}.{digits}{unit}" if digits else f"{whole}{unit}"


def vegeta_round(nanoseconds: int) -> int:
    """`round` of vegeta's lib/reporters.go: to whole units of the unit below the value's own
    (Go's Duration.Round: halves away from zero)."""
    for unit, below in ((3600 * 10**9, 60 * 10**9), (60 * 10**9, 10**9), (10**9, 10**6),
                        (10**6, 10**3), (10**3, 1)):
        if nanoseconds >= unit:
            rest = nanoseconds % below
            return nanoseconds - rest + (below if rest + rest >= below else 0)
    return nanoseconds


def vegeta_text(path: Path) -> Path:
    """vegeta's text report of the same attack as a JSON report."""
    return path.with_name(path.name.replace(".json", ".txt"))


@pytest.mark.parametrize("path", [p for p in VEGETA_REPORTS if vegeta_text(p).exists()
                                  and "upstream" not in p.parts], ids=relative)
def test_vegeta_report_is_vegetas_text_report(path: Path) -> None:
    """(The README's text example is from another attack than its JSON one.)"""
    text = vegeta_text(path).read_text()
    trial = only_trial(vegeta, path)
    stats = printed_stats(trial.latency)
    total, rate, throughput = re.search(
        r"^Requests\s+\[total, rate, throughput\]\s+(\d+), ([\d.]+), ([\d.]+)$", text,
        re.MULTILINE).groups()
    assert trial.metrics["requests"] == int(total)
    assert f"{trial.metrics['rate']:.2f}" == rate
    assert f"{trial.metrics['throughput']:.2f}" == throughput
    names, values = re.search(r"^Latencies\s+\[([^]]+)\]\s+(.+?)$", text, re.MULTILINE).groups()
    assert names.split(", ") == ["min", "mean", "50", "90", "95", "99", "max"]
    for name, value in zip(names.split(", "), values.split(", "), strict=True):
        key = name if name in ("min", "mean", "max") else summary_key(name)
        assert go_duration(vegeta_round(int(stats[key]))) == value, name
    success = re.search(r"^Success\s+\[ratio\]\s+([\d.]+)%$", text, re.MULTILINE).group(1)
    assert f"{trial.metrics['success_rate'] * 100:.2f}" == success
    codes = re.search(r"^Status Codes\s+\[code:count\]\s+(.*)$", text, re.MULTILINE).group(1)
    counted = dict(item.split(":") for item in codes.split())
    assert trial.metrics["errors"] == vegeta_errors({k: int(v) for k, v in counted.items()})


def go_seconds(nanoseconds: int) -> float:
    """Go's Duration.Seconds()."""
    whole, rest = divmod(nanoseconds, 10**9)
    return float(whole) + rest / 1e9


@pytest.mark.parametrize("path", VEGETA_RESULTS, ids=relative)
def test_vegeta_results_are_every_request_of_its_report(path: Path) -> None:
    """`vegeta encode` of the attack `vegeta report -type=json` summed up: its exact
    statistics follow from our samples, and its t-digest percentiles lie within 1 % of the
    requests of the nearest ranks."""
    results = [json.loads(line) for line in path.read_text().splitlines()]
    report = json.loads(path.with_name(path.name.replace("results.jsonl", "report.json"))
                        .read_text())
    trial = only_trial(vegeta, path)
    assert trial.latency.samples_ns == [r["latency"] for r in results]
    assert trial.latency.reported is None and not trial.latency.rebuilt
    ordered = sorted(trial.latency.samples_ns)
    count = len(ordered)
    latencies = report["latencies"]
    assert count == report["requests"]
    assert ordered[0] == latencies["min"] and ordered[-1] == latencies["max"]
    assert sum(ordered) == latencies["total"]
    assert int(sum(ordered) / count) == latencies["mean"]  # Go: Duration(float64 / float64)
    for key, percentile in VEGETA_LATENCIES.items():
        rank = bisect.bisect_left(ordered, latencies[key])
        assert abs(rank - nearest_rank(percentile, count)) <= max(1, count // 100), key
    # rate and throughput as vegeta computes them, to the last bit
    assert trial.metrics == {
        "requests": report["requests"], "success_rate": report["success"],
        "errors": vegeta_errors(report["status_codes"]), "rate": report["rate"],
        "throughput": report["throughput"]}
    duration = report["duration"]
    assert trial.metrics["rate"] == count / go_seconds(duration)


def test_vegeta_named_attacks_are_series_of_their_own() -> None:
    lines = (VEGETA / "v12.13.0" / "results.jsonl").read_text().splitlines()
    named = [line.replace('"attack":""', f'"attack":"{"ab"[i % 2]}"', 1)
             for i, line in enumerate(lines)]
    parsed = vegeta.parse("\n".join(named), CONTEXT)
    by_name = {s.labels["attack"]: s.trials[0] for s in parsed.series}
    assert set(by_name) == {"a", "b"}
    every = [json.loads(line)["latency"] for line in lines]
    assert by_name["a"].latency.samples_ns == every[0::2]
    assert by_name["b"].latency.samples_ns == every[1::2]
    assert by_name["a"].metrics["requests"] == len(every[0::2])


@pytest.mark.parametrize("path", sorted(VEGETA.rglob("*.txt")), ids=relative)
def test_vegeta_text_reports_are_refused(path: Path) -> None:
    with pytest.raises(ParseError, match=r"line 1: not vegeta's JSON"):
        vegeta.parse(path.read_text(), CONTEXT)


# oha 1.16.0 and 1.8.0: the JSON, and every request of its run in oha's SQLite store.

OHA = GOLDEN / "oha"
OHA_RUNS = sorted(OHA.rglob("oha.json"))


def oha_rank(percentile: float, count: int) -> int:
    """oha's `percentile_iter`: index (p / 100 x n) as usize, in floating point; 1-based."""
    return int(percentile / 100.0 * count) + 1


@pytest.mark.parametrize("path", OHA_RUNS, ids=relative)
def test_oha_summary_is_ohas_own(path: Path) -> None:
    document = json.loads(path.read_text())
    summary = document["summary"]
    trial = only_trial(oha, path)
    assert trial.latency.rebuilt
    ours = histogram(trial.latency)
    count = sum(document["statusCodeDistribution"].values())
    assert ours.get_total_count() == count
    stats = printed_stats(trial.latency)
    assert set(stats) == {"min", "max", "mean", "p50", "p90", "p95", "p99", "p999", "p9999"}
    assert same(stats["min"], summary["fastest"] * 1e9)
    assert same(stats["max"], summary["slowest"] * 1e9)
    assert same(stats["mean"], summary["average"] * 1e9)
    assert close(at_rank(ours, 1), summary["fastest"] * 1e9)
    assert close(at_rank(ours, count), summary["slowest"] * 1e9)
    for name, value in document["latencyPercentiles"].items():
        percentile = float(name.removeprefix("p"))
        key = summary_key(name.removeprefix("p"))
        if key in REPORTED:
            assert same(stats[key], value * 1e9), name
        # each point at oha's own rank of it
        assert close(at_rank(ours, oha_rank(percentile, count)), value * 1e9), name
    failed = sum(document["errorDistribution"].values())
    assert trial.metrics == {
        "throughput": summary["requestsPerSec"], "requests": count + failed,
        "success_rate": summary["successRate"], "errors": 0, "timeouts": 0, "aborted": 0}


@pytest.mark.parametrize("path", OHA_RUNS, ids=relative)
def test_oha_summary_is_the_stored_requests(path: Path) -> None:
    """The run's every request (`--db-url`): oha's percentiles are its index rule over them,
    and the latency's summary is theirs. Where p/100 x n is whole (all but p99.99 of 2000
    requests), oha's rank is one above the nearest rank."""
    with contextlib.closing(sqlite3.connect(f"file:{path.with_name('oha-json.db')}?mode=ro",
                                            uri=True)) as db:
        durations = sorted(row[0] for row in db.execute("SELECT duration FROM oha"))
    document = json.loads(path.read_text())
    count = len(durations)
    assert count == sum(document["statusCodeDistribution"].values())
    stats = printed_stats(only_trial(oha, path).latency)
    assert same(stats["min"], durations[0] * 1e9)
    assert same(stats["max"], durations[-1] * 1e9)
    assert math.isclose(stats["mean"], sum(durations) / count * 1e9, rel_tol=1e-12)
    for name, value in document["latencyPercentiles"].items():
        percentile = float(name.removeprefix("p"))
        rank = oha_rank(percentile, count)
        assert durations[rank - 1] == value, name
        key = summary_key(name.removeprefix("p"))
        if key in REPORTED:
            assert same(stats[key], durations[rank - 1] * 1e9), name
        whole = Fraction(repr(percentile)) * count % 100 == 0
        assert rank == nearest_rank(percentile, count) + whole, name


@pytest.mark.parametrize("path", [p for p in OHA_RUNS if "metrics" in json.loads(p.read_text())],
                         ids=relative)
def test_oha_summary_is_its_latency_ms(path: Path) -> None:
    """1.16's second printing of the same statistics, in ms rounded to 3 decimals."""
    printed = json.loads(path.read_text())["metrics"]["latency_ms"]
    stats = printed_stats(only_trial(oha, path).latency)
    for key, value in printed.items():
        assert abs(stats[key] / 1e6 - value) <= 0.0005 + 1e-12, key


@pytest.mark.parametrize("path", sorted(OHA.rglob("oha.txt")) + sorted(OHA.rglob("oha.csv")),
                         ids=relative)
def test_oha_text_and_csv_are_refused(path: Path) -> None:
    with pytest.raises(ParseError, match=r"line 1: oha's .* run oha with --output-format json"):
        oha.parse(path.read_text(), CONTEXT)


# ghz v0.121.0 and v0.93.0: the JSON with every call, and ghz's printer's summary of it;
# ghz's upstream samples, whose details are not every call.

GHZ = GOLDEN / "ghz"
GHZ_RUNS = sorted(GHZ.glob("v*/ghz.json"))
GHZ_PARTIAL = sorted((GHZ / "upstream").glob("*.json"))


def ghz_duration(seconds: float) -> int:
    """Go's time.Duration(seconds * float64(time.Second)): truncated."""
    return int(seconds * 1e9)


def ghz_index(percentage: int, count: int) -> int:
    """ghz's index of a percentile (runner/reporter.go `latencies`)."""
    product = percentage / 100.0 * count
    index = int(product)
    if product == index:
        index -= 1
    return max(index, 0)


def ghz_percentile(latencies: list[int], percentage: int) -> int:
    """ghz's percentile of latencies in ns: over float seconds, and back."""
    seconds = sorted(go_seconds(v) for v in latencies)
    return ghz_duration(seconds[ghz_index(percentage, len(seconds))])


def ghz_metrics(document: dict[str, Any]) -> dict[str, float]:
    timeouts = (document["statusCodeDistribution"] or {}).get("DeadlineExceeded", 0)
    return {"throughput": document["rps"], "requests": document["count"],
            "errors": sum(document["errorDistribution"].values()) - timeouts,
            "timeouts": timeouts}


@pytest.mark.parametrize("path", GHZ_RUNS, ids=relative)
def test_ghz_details_are_every_call_and_give_ghzs_numbers(path: Path) -> None:
    document = json.loads(path.read_text())
    trial = only_trial(ghz, path)
    samples = trial.latency.samples_ns
    assert samples is not None and not trial.latency.rebuilt
    assert len(document["details"]) == document["count"]
    assert samples == [d["latency"] for d in document["details"] if d["error"] == ""]
    # ghz's own statistics, by ghz's code from our samples
    assert ghz_duration(min(go_seconds(v) for v in samples)) == document["fastest"]
    assert ghz_duration(max(go_seconds(v) for v in samples)) == document["slowest"]
    total = 0.0
    for value in samples:  # in the order ghz summed them
        total += go_seconds(value)
    assert ghz_duration(total / document["count"]) == document["average"]
    for entry in document["latencyDistribution"]:
        assert ghz_percentile(samples, entry["percentage"]) == entry["latency"]
    # the summary keeps ghz's min, max and mean, and leaves the percentiles to the samples
    assert printed_stats(trial.latency) == {"min": document["fastest"],
                                            "max": document["slowest"],
                                            "mean": document["average"]}
    assert trial.metrics == ghz_metrics(document)


def format_nano_unit(nanoseconds: int) -> str:
    """ghz's printer `formatNanoUnit`."""
    if nanoseconds < 10000:
        return f"{nanoseconds:+d} ns"
    if nanoseconds / 1e6 < 1000:
        return f"{nanoseconds / 1e6:4.2f} ms"
    return f"{nanoseconds / 1e9:4.2f} s"


@pytest.mark.parametrize("path", GHZ_RUNS, ids=relative)
def test_ghz_printer_summary_is_ours(path: Path) -> None:
    """`ghz.json.summary.txt`: ghz's printer package's -O summary of the same JSON."""
    text = path.with_name("ghz.json.summary.txt").read_text()

    def field(name: str) -> str:
        return re.search(rf"^\s+{name}:\s+(.+?)\s*$", text, re.MULTILINE).group(1)

    trial = only_trial(ghz, path)
    stats = printed_stats(trial.latency)
    assert trial.metrics["requests"] == int(field("Count"))
    assert f"{trial.metrics['throughput']:4.2f}" == field("Requests/sec")
    for name, key in (("Slowest", "max"), ("Fastest", "min"), ("Average", "mean")):
        assert format_nano_unit(int(stats[key])) == field(name), name
    lines = re.findall(r"^\s+(\d+) % in (.+?)\s*$", text, re.MULTILINE)
    assert [int(p) for p, _ in lines] == [10, 25, 50, 75, 90, 95, 99]
    samples = trial.latency.samples_ns or []
    for percentage, value in lines:
        assert format_nano_unit(ghz_percentile(samples, int(percentage))) == value, percentage
    statuses = dict(re.findall(r"^\s+\[(\w+)\]\s+(\d+) responses", text, re.MULTILINE))
    assert trial.metrics["errors"] + trial.metrics["timeouts"] == sum(
        int(n) for status, n in statuses.items() if status != "OK")


@pytest.mark.parametrize("path", GHZ_PARTIAL, ids=relative)
def test_ghz_report_without_every_call_is_rebuilt_from_its_summary(path: Path) -> None:
    """ghz's published samples hold fewer details than calls (191 and 193 of 200): their
    summary is the run's, so the latency is rebuilt from it, over the OK calls."""
    document = json.loads(path.read_text())
    assert len(document["details"]) < document["count"]
    trial = only_trial(ghz, path)
    assert trial.latency.rebuilt
    ours = histogram(trial.latency)
    failed = sum(document["errorDistribution"].values())
    count = document["count"] - failed
    assert ours.get_total_count() == count
    expected = {"min": document["fastest"], "max": document["slowest"],
                **{summary_key(str(e["percentage"])): e["latency"]
                   for e in document["latencyDistribution"]
                   if summary_key(str(e["percentage"])) in REPORTED}}
    if failed == 0:  # ghz's average is over every call, its percentiles over the OK ones
        expected["mean"] = document["average"]
    assert printed_stats(trial.latency) == expected
    for entry in document["latencyDistribution"]:
        rank = ghz_index(entry["percentage"], count) + 1
        assert close(at_rank(ours, rank), entry["latency"]), entry["percentage"]
    assert trial.metrics == ghz_metrics(document)


@pytest.mark.parametrize("path", sorted(GHZ.rglob("*.txt")), ids=relative)
def test_ghz_text_is_refused(path: Path) -> None:
    with pytest.raises(ParseError, match=r"line 1: not ghz's JSON report: run ghz with -O json"):
        ghz.parse(path.read_text(), CONTEXT)


# Malformed input: each golden file broken one way, refused naming the line or JSON path.


def text_of(path: Path) -> Callable[[Callable[[str], str]], str]:
    return lambda change: change(path.read_text())


def json_of(path: Path, change: Callable[[Any], object]) -> str:
    document = json.loads(path.read_text())
    change(document)
    return json.dumps(document)


def lines_without(text: str, number: int) -> str:
    lines = text.splitlines()
    return "\n".join(lines[:number - 1] + lines[number:])


WRK_TEXT = text_of(WRK / "t1-c1-d3s.txt")
VEGETA_REPORT = VEGETA / "v12.13.0" / "report.json"
VEGETA_LINES = text_of(VEGETA / "v12.13.0" / "errors-results.jsonl")
OHA_JSON = OHA / "1.16.0" / "oha.json"
GHZ_JSON = GHZ / "v0.93.0" / "ghz.json"


def _set(path: list[str | int], value: object) -> Callable[[Any], object]:
    def change(document: Any) -> None:
        for key in path[:-1]:
            document = document[key]
        document[path[-1]] = value
    return change


def _delete(path: list[str | int]) -> Callable[[Any], object]:
    def change(document: Any) -> None:
        for key in path[:-1]:
            document = document[key]
        del document[path[-1]]
    return change


def _on_line(number: int, old: str, new: str) -> Callable[[str], str]:
    def change(text: str) -> str:
        lines = text.splitlines()
        assert old in lines[number - 1]
        lines[number - 1] = lines[number - 1].replace(old, new, 1)
        return "\n".join(lines)
    return change


def _all_failed(document: Any) -> None:
    for detail in document["details"]:
        detail["error"], detail["status"] = "rpc error: code = Internal", "Internal"
    document["errorDistribution"] = {"rpc error: code = Internal": document["count"]}


def _summary_only(document: Any) -> None:
    del document["details"]
    document["latencyDistribution"][2]["latency"] = -1


MALFORMED: list[tuple[str, ModuleType, str, str]] = [
    ("wrk-cut", wrk, WRK_TEXT(lambda t: "\n".join(t.splitlines()[:9])),
     r"^line 9: no 'N requests in' line"),
    ("wrk-negative", wrk, WRK_TEXT(_on_line(7, "15.00us", "-15.00us")),
     r"^line 7: '-15.00us' is not a time"),
    ("wrk-nan", wrk, WRK_TEXT(_on_line(4, "1.61ms", "-nan")), r"^line 4: '-nan' is not a time"),
    ("wrk-missing", wrk, WRK_TEXT(lambda t: lines_without(t, 4)),
     r"^line 12: no thread stats 'Latency' line"),
    ("wrk-huge-count", wrk, WRK_TEXT(_on_line(11, "97940 requests", f"{2**60} requests")),
     r"^line 11: a count of 1152921504606846976 is outside"),
    ("wrk-disorder", wrk, WRK_TEXT(_on_line(9, "3.46ms", "1.00us")),
     r"^line 9: the 90 % \(1\.00us\) is not above the 75 % \(833\.00us\): percentiles out "
     "of order"),
    ("vegeta-cut", vegeta, VEGETA_REPORT.read_text()[:150], r"^line 1: not JSON"),
    ("vegeta-negative", vegeta, json_of(VEGETA_REPORT, _set(["latencies", "min"], -1)),
     r"^\$\.latencies\.min: -1 is negative: vegeta prints no negative time"),
    ("vegeta-nan", vegeta, json_of(VEGETA_REPORT, _set(["latencies", "mean"], math.nan)),
     r"^\$\.latencies\.mean: not a finite number"),
    ("vegeta-missing", vegeta, json_of(VEGETA_REPORT, _delete(["latencies", "99th"])),
     r"^\$\.latencies\.99th: missing"),
    ("vegeta-huge-count", vegeta, json_of(VEGETA_REPORT, _set(["requests"], 2**60)),
     r"^\$\.requests: a count of 1,152,921,504,606,846,976 is outside"),
    ("vegeta-codes", vegeta, json_of(VEGETA_REPORT, _set(["status_codes"], {"200": 599})),
     r"^\$\.status_codes: its counts sum to 599, not the 600 requests"),
    ("vegeta-lines-cut", vegeta, VEGETA_LINES(lambda t: t[:-100]), r"^line 50: not JSON"),
    ("vegeta-lines-negative", vegeta, VEGETA_LINES(_on_line(3, '"latency":', '"latency":-')),
     r"^line 3\.latency: latency -\d+ ns is outside 0 \.\. 1 h"),
    ("vegeta-lines-nan", vegeta, VEGETA_LINES(_on_line(2, '"latency":324664', '"latency":NaN')),
     r"^line 2\.latency: not a finite number"),
    ("vegeta-lines-missing", vegeta, VEGETA_LINES(_on_line(2, '"code":0,', "")),
     r"^line 2\.code: missing"),
    ("vegeta-lines-time", vegeta, VEGETA_LINES(_on_line(2, "T23:30:37", " 23:30:37")),
     r"^line 2\.timestamp: .* is not an RFC 3339 time"),
    ("vegeta-lines-huge", vegeta, VEGETA_LINES(_on_line(2, '"latency":324664',
                                                        f'"latency":{2**60}')),
     r"^line 2\.latency: latency 1152921504606846976 ns is outside"),
    ("oha-cut", oha, OHA_JSON.read_text()[:900], r"^line \d+: not JSON"),
    ("oha-negative", oha, json_of(OHA_JSON, _set(["summary", "fastest"], -0.001)),
     r"^\$\.summary\.fastest: -0\.001 is negative: oha prints no negative time"),
    ("oha-nan", oha, json_of(OHA_JSON, _set(["latencyPercentiles", "p99"], math.nan)),
     r"^\$\.latencyPercentiles\['p99'\]: not a finite number"),
    ("oha-missing", oha, json_of(OHA_JSON, _delete(["statusCodeDistribution"])),
     r"^\$\.statusCodeDistribution: missing"),
    ("oha-huge-count", oha, json_of(OHA_JSON, _set(["statusCodeDistribution", "200"], 2**60)),
     r"^\$\.statusCodeDistribution\['200'\]: a count of .* is outside"),
    ("oha-no-response", oha, json_of(OHA_JSON, _set(["statusCodeDistribution"], {})),
     r"^\$\.statusCodeDistribution: no request got a response"),
    ("oha-disorder", oha, json_of(OHA_JSON, _set(["latencyPercentiles", "p90"], 1e-6)),
     r"^\$\.latencyPercentiles\.p75: 0\.000236347 is above \$\.latencyPercentiles\.p90 "
     r"\(1e-06\): percentiles out of order$"),
    ("ghz-cut", ghz, GHZ_JSON.read_text()[:5000], r"^line \d+: not JSON"),
    ("ghz-negative", ghz, json_of(GHZ_JSON, _set(["details", 3, "latency"], -5)),
     r"^\$\.details\[3\]\.latency: latency -5 ns is outside"),
    ("ghz-nan", ghz, json_of(GHZ_JSON, _set(["average"], math.nan)),
     r"^\$\.average: not a finite number"),
    ("ghz-missing", ghz, json_of(GHZ_JSON, _delete(["count"])), r"^\$\.count: missing"),
    ("ghz-huge-count", ghz, json_of(GHZ_JSON, _set(["count"], 2**60)),
     r"^\$\.count: a count of 1,152,921,504,606,846,976 is outside"),
    ("ghz-all-failed", ghz, json_of(GHZ_JSON, _all_failed), r"^\$\.details: no call succeeded"),
    ("ghz-summary-negative", ghz, json_of(GHZ_JSON, _summary_only),
     r"^\$\.latencyDistribution\[2\]\.latency: latency -1 ns is outside"),
]


@pytest.mark.parametrize(("module", "text", "message"), [case[1:] for case in MALFORMED],
                         ids=[case[0] for case in MALFORMED])
def test_malformed_output_is_refused_naming_where(module: ModuleType, text: str,
                                                  message: str) -> None:
    with pytest.raises(ParseError, match=message):
        module.parse(text, CONTEXT)
