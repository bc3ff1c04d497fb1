"""wrk read as wrk printed it (issue 44), against real wrk 4.1.0 output (golden/adapters/wrk,
4.1.0/ made for these tests against source/server.py, see the README): no invented minimum,
a mean below the median read as the normal thing it is, several runs of one file kept apart,
socket errors and non-2xx responses as the trial's failures, impossible numbers refused
naming their line and rule, and a rebuilt histogram that keeps wrk's count, mean and max, so
that merged trials keep wrk's Avg. Each test names the figure wrk printed that it checks."""

import math
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hdrh.histogram import HdrHistogram

from latlab_contract import hdr
from latlab_contract.latency import Latency, order_problem
from latlab_contract.parsers import ParseContext, ParseError, wrk
from latlab_contract.parsers.harness import spectrum
from latlab_contract.result import TrialIn
from latlab_contract.vocabulary import SUMMARY_PERCENTILES

WRK = Path(__file__).parent / "golden" / "adapters" / "wrk"
NEW = WRK / "4.1.0"
CONTEXT = ParseContext()
UNIT_NS = {"us": 1e3, "ms": 1e6, "s": 1e9, "m": 60e9}
LATENCY_FILES = sorted(p for p in [*WRK.glob("*.txt"), *NEW.glob("*.txt")]
                       if "Latency Distribution" in p.read_text())
HDR_PRECISION = 1e-3  # the rebuilt histograms' 3 significant digits


def ns(printed: str) -> float:
    """A time as wrk prints it, in ns."""
    found = re.fullmatch(r"([\d.]+)(us|ms|s|m)", printed)
    assert found is not None, printed
    return float(found.group(1)) * UNIT_NS[found.group(2)]


def runs_printed(text: str) -> list[dict[str, str]]:
    """Each run's thread-stats Latency line and its count lines, as wrk printed them."""
    runs = []
    for block in re.split(r"^(?=Running )", text, flags=re.MULTILINE):
        thread = re.search(r"^\s+Latency\s+(\S+)\s+(\S+)\s+(\S+)\s+\S+%$", block, re.MULTILINE)
        if thread is None:
            continue
        requests = re.search(r"^\s+(\d+) requests in", block, re.MULTILINE)
        timeout = re.search(r"timeout (\d+)$", block, re.MULTILINE)
        url = re.search(r"^Running \S+ test @ (\S+)$", block, re.MULTILINE)
        assert requests is not None
        runs.append({"avg": thread.group(1), "stdev": thread.group(2), "max": thread.group(3),
                     "requests": requests.group(1), "timeout": timeout.group(1) if timeout
                     else "0", "url": url.group(1) if url else "",
                     "p50": re.search(r"^\s+50%\s+(\S+)$", block, re.MULTILINE).group(1)})
    return runs


def trials(path: Path) -> list[TrialIn]:
    return [t for s in wrk.parse(path.read_text(), CONTEXT).series for t in s.trials]


def decoded(latency: Latency) -> HdrHistogram:
    assert latency.hdr is not None
    return hdr.decode(latency.hdr)


def summary(histogram: HdrHistogram) -> dict[str, float]:
    """A histogram's statistics as the backend's `Histogram.summary` gives them: each bucket's
    values at its middle for the mean, nearest-rank percentiles at their bucket's highest."""
    counts = np.frombuffer(histogram.counts, dtype=np.int64)
    indexes = np.flatnonzero(counts)
    weights = counts[indexes]
    highest = np.array([histogram.get_highest_equivalent_value(
        histogram.get_value_from_index(int(i))) for i in indexes], dtype=np.int64)
    lowest = np.array([histogram.get_lowest_equivalent_value(
        histogram.get_value_from_index(int(i))) for i in indexes], dtype=np.int64)
    middle = lowest + (highest - lowest + 1) // 2
    total = int(weights.sum())
    ranks = np.cumsum(weights)
    found = {"min": float(lowest[0]), "max": float(highest[-1]),
             "mean": float(np.dot(weights, middle) / total)}
    for key, percentile in SUMMARY_PERCENTILES.items():
        rank = max(1, math.ceil(Fraction(repr(percentile)) * total / 100))
        found[key] = float(highest[int(np.searchsorted(ranks, rank))])
    return found


def described(latency: Latency) -> dict[str, float]:
    """The trial's summary as the backend describes it (`Summary.described`): the rebuilt
    histogram's statistics with those wrk printed in their place, held to the same order
    rule."""
    assert latency.reported is not None
    shown = summary(decoded(latency)) | latency.reported.model_dump(exclude_none=True)
    assert order_problem(shown) is None, order_problem(shown)
    return shown


def test_a_mean_below_the_median_is_read_and_no_minimum_is_invented() -> None:
    """wrk printed Avg 7.61ms and 50% 10.36ms (7 of 10 requests sleep 10 ms, 3 answer at
    once): the file was refused ("the mean is outside min .. max") while the rebuilt minimum
    was the 50 % value. Now it is read, the summary holds only what wrk printed, and the
    rebuilt minimum lies below the mean, marked interpolated (not in `reported`)."""
    (trial,) = trials(NEW / "skewed.txt")
    assert trial.latency.reported is not None and trial.latency.rebuilt
    printed = trial.latency.reported.model_dump(exclude_none=True)
    assert set(printed) == {"p50", "p90", "p99", "max", "mean", "stddev"}
    assert printed["mean"] == pytest.approx(ns("7.61ms")) and printed["p50"] == ns("10.36ms")
    shown = described(trial.latency)
    assert "min" not in printed and shown["min"] < shown["mean"] < shown["p50"]


@pytest.mark.parametrize("path", LATENCY_FILES, ids=lambda p: str(p.relative_to(WRK)))
def test_the_rebuilt_histogram_keeps_wrks_count_mean_and_max(path: Path) -> None:
    """Each run: as many values as wrk recorded (its requests less its timeouts), its Avg as
    the histogram's mean (0.5 %: wrk's two decimals and the histogram's buckets), its Max as
    the largest value, its 50 % at its rank; and two identical trials merged into a series
    keep wrk's Avg within 0.5 % (the straight-line rebuild moved it: +28 % for t2-c10-d5s,
    where wrk printed Avg 1.18ms, +46 % for the 404 run's 5.25ms)."""
    for trial, printed in zip(trials(path), runs_printed(path.read_text()), strict=True):
        ours = decoded(trial.latency)
        assert ours.get_total_count() == int(printed["requests"]) - int(printed["timeout"])
        stats = summary(ours)
        assert stats["mean"] == pytest.approx(ns(printed["avg"]), rel=5e-3)
        assert stats["max"] == pytest.approx(ns(printed["max"]), rel=HDR_PRECISION)
        assert stats["p50"] == pytest.approx(ns(printed["p50"]), rel=HDR_PRECISION)
        merged = summary(hdr.summed([ours, decoded(trial.latency)]))
        assert merged["mean"] == pytest.approx(ns(printed["avg"]), rel=5e-3)
        described(trial.latency)


def test_runs_of_one_url_are_trials_of_one_series() -> None:
    """Two runs of one URL in one file (`for round in 1 2; do wrk ...; done`): two trials,
    each with its own run's figures (wrk printed Avg 8.06ms on 2101 requests, then 7.53ms on
    2120), not one trial mixing the first run's percentiles with the last one's counts."""
    parsed = wrk.parse((NEW / "two-rounds.txt").read_text(), CONTEXT)
    (series,) = parsed.series
    assert series.labels == {}
    assert [t.metrics["requests"] for t in series.trials] == [2101, 2120]
    assert [t.latency.reported.mean for t in series.trials if t.latency.reported] == [
        pytest.approx(ns("8.06ms")), pytest.approx(ns("7.53ms"))]
    assert [t.latency.reported.p99 for t in series.trials if t.latency.reported] == [
        ns("16.66ms"), ns("13.62ms")]


def test_runs_of_different_urls_are_series_labelled_by_url() -> None:
    """A loop over two URLs: /skewed (wrk printed Avg 7.52ms, 1700 requests) and /fast (Avg
    1.86ms, 11152 requests) are two series labelled `url`."""
    parsed = wrk.parse((NEW / "two-urls.txt").read_text(), CONTEXT)
    found = {s.labels["url"]: s.trials for s in parsed.series}
    assert set(found) == {"http://127.0.0.1:28090/skewed", "http://127.0.0.1:28090/fast"}
    for url, (avg, requests) in {"skewed": ("7.52ms", 1700), "fast": ("1.86ms", 11152)}.items():
        (trial,) = found[f"http://127.0.0.1:28090/{url}"]
        assert trial.metrics["requests"] == requests
        assert trial.latency.reported is not None
        assert trial.latency.reported.mean == pytest.approx(ns(avg))


def test_runs_that_differ_in_connections_are_series_labelled_by_them() -> None:
    """The same URL at 10 and at 20 connections is two series, not repetitions of one."""
    text = (NEW / "two-rounds.txt").read_text()
    second = text.index("Running", 1)
    text = text[:second] + text[second:].replace("10 connections", "20 connections", 1)
    parsed = wrk.parse(text, CONTEXT)
    assert [s.labels for s in parsed.series] == [{"connections": "10"}, {"connections": "20"}]


@pytest.mark.parametrize(("name", "failed", "total", "detail"), [
    # "181 requests in 3.01s", "Socket errors: connect 0, read 0, write 0, timeout 10": the
    # timed-out responses are among the 181 (wrk counts them complete, records no latency)
    ("timeout.txt", 10, 181, "socket errors: timeout 10"),
    # "17130 requests in 3.10s", "read 1904": a read error loses its request
    ("drop.txt", 1904, 17130 + 1904, "socket errors: read 1904"),
    # "25878 requests in 3.10s", "Non-2xx or 3xx responses: 7764"
    ("5xx.txt", 7764, 25878, "7764 non-2xx or 3xx responses"),
])
def test_socket_errors_and_non_2xx_are_the_trials_failures(
        name: str, failed: int, total: int, detail: str) -> None:
    (trial,) = trials(NEW / name)
    assert trial.failures is not None
    assert (trial.failures.failed, trial.failures.total, trial.failures.detail) == (
        failed, total, detail)


def test_a_clean_run_has_no_failures() -> None:
    (trial,) = trials(NEW / "skewed.txt")
    assert trial.failures is None


def _skewed(old: str, new: str, line: int) -> str:
    """skewed.txt with `old` replaced by `new` on its line `line`."""
    lines = (NEW / "skewed.txt").read_text().splitlines()
    assert old in lines[line - 1], lines[line - 1]
    lines[line - 1] = lines[line - 1].replace(old, new, 1)
    return "\n".join(lines)


@pytest.mark.parametrize(("text", "message"), [
    (_skewed("7.61ms", "25.00ms", 4), r"^line 4: wrk's Avg \(25\.00ms\) is above its Max "
     r"\(23\.98ms\)$"),
    (_skewed("10.55ms", "10.00ms", 8), r"^line 8: the 75 % \(10\.00ms\) is not above the 50 % "
     r"\(10\.36ms\): percentiles out of order$"),
    (_skewed("14.19ms", "24.00ms", 10), r"^line 10: the 99 % \(24\.00ms\) is above the Max "
     r"\(23\.98ms, line 4\)$"),
    # a quarter of the values at least 10.36ms, 15 % at least 10.55ms, ...: at least 5.30ms
    (_skewed("7.61ms", "2.00ms", 4), r"^line 4: wrk's Avg \(2\.00ms\) is below the least its "
     r"percentiles allow \(5\.30ms: at least 50 % of the values are at or above the 50 % "
     r"line\)$"),
    (_skewed("7.61ms", "12.00ms", 4), r"^line 4: wrk's Avg \(12\.00ms\) is above the most its "
     r"percentiles and Max allow \(10\.98ms: every value at the line above it\)$"),
    # values in 0 .. 23.98ms with mean 7.61ms spread at most sqrt(16.37 x 7.61) = 11.16ms
    (_skewed("4.80ms", "12.00ms", 4), r"^line 4: wrk's Stdev \(12\.00ms\) is larger than values "
     r"between 0 and the Max \(23\.98ms\) with the Avg \(7\.61ms\) can spread"),
    (_skewed("10.98ms", "-10.98ms", 9), r"^line 9: '-10\.98ms' is not a time as wrk prints it "
     r"\('1\.16ms'\) \(a negative time\)$"),
    (_skewed("3265 requests", "0 requests", 11), r"^line 13: no request completed"),
    ((NEW / "skewed.txt").read_text().replace(
        "Requests/sec", "  Socket errors: connect 0, read 0, write 0, timeout 3265\n"
        "Requests/sec"), r"^line 14: every one of the 3265 requests timed out"),
], ids=["avg-above-max", "disorder", "p99-above-max", "avg-too-low", "avg-too-high",
        "stdev-too-wide", "negative", "no-requests", "all-timed-out"])
def test_impossible_numbers_are_refused_naming_line_and_rule(text: str, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        wrk.parse(text, CONTEXT)


def test_an_avg_above_the_99_percent_line_is_possible_and_read() -> None:
    """A mean above the 99 % line needs a top 1 % far above it: with wrk's 99% 14.19ms and a
    Max of 10.00s, an Avg of 20.00ms is possible (the top 1 % averaging about 1.3 s) and is
    kept as printed, the rebuilt histogram holding it."""
    text = _skewed("23.98ms", "10.00s", 4).replace("7.61ms", "20.00ms", 1)
    (trial,) = wrk.parse(text, CONTEXT).series[0].trials
    assert trial.latency.reported is not None
    assert trial.latency.reported.mean == ns("20.00ms") > trial.latency.reported.p99
    assert summary(decoded(trial.latency))["mean"] == pytest.approx(ns("20.00ms"), rel=5e-3)


def test_spectrum_keeps_the_mean_given_and_refuses_one_no_curve_reaches() -> None:
    """`harness.spectrum` for any tool: the histogram's mean is the mean given (with a min
    point or without), each point stays at its rank; a mean beyond what a rising fill of the
    points can reach contradicts them."""
    points = [(0.0, 1_000.0), (50.0, 2_000.0), (90.0, 4_000.0), (99.0, 9_000.0),
              (100.0, 50_000.0)]
    for given, mean in ((points, 3_000.0), (points, 2_100.0), (points[1:], 1_500.0)):
        latency = spectrum(given, 10_000, "$", mean=mean)
        stats = summary(decoded(latency))
        assert stats["mean"] == pytest.approx(mean, rel=2e-3)
        assert (stats["p50"], stats["p90"], stats["p99"]) == pytest.approx(
            (2_000, 4_000, 9_000), rel=HDR_PRECISION)
    with pytest.raises(ParseError, match=r"^\$: the mean \(1700 ns\) is below the least"):
        spectrum(points, 10_000, "$", mean=1_700.0)
    with pytest.raises(ParseError, match=r"^\$: the mean \(8000 ns\) is above the most"):
        spectrum(points, 10_000, "$", mean=8_000.0)


def test_without_a_mean_the_rebuild_is_the_straight_line_it_was() -> None:
    """No mean given: each rank on the straight line between its points, as before."""
    latency = spectrum([(0.0, 1_000.0), (100.0, 2_000.0)], 1_001, "$")
    stats = summary(decoded(latency))
    assert stats["mean"] == pytest.approx(1_500.0, rel=HDR_PRECISION)


def test_a_run_with_failures_keeps_its_metrics() -> None:
    """The metrics of before stay: errors (connect + read + write + non-2xx), timeouts."""
    (trial,) = trials(NEW / "drop.txt")
    assert (trial.metrics["errors"], trial.metrics["timeouts"]) == (1904, 0)
