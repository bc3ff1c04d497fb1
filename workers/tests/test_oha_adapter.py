"""oha's adapter against oha 1.16.0 and 1.8.0: the JSON, compared with every request of its run in
oha's SQLite store, read here from the golden files."""

import contextlib
import json
import math
import sqlite3
from fractions import Fraction
from pathlib import Path

import pytest
from loadgen_support import (
    CONTEXT,
    OHA,
    REPORTED,
    at_rank,
    close,
    nearest_rank,
    only_trial,
    printed_stats,
    rebuilt,
    relative,
    same,
    summary_key,
)

from latlab_contract.parsers import ParseError, oha

OHA_RUNS = sorted(OHA.rglob("oha.json"))


def oha_rank(percentile: float, count: int) -> int:
    """oha's `percentile_iter`: index (p / 100 x n) as usize, in floating point; 1-based."""
    return int(percentile / 100.0 * count) + 1


@pytest.mark.parametrize("path", OHA_RUNS, ids=relative)
def test_oha_summary_is_ohas_own(path: Path) -> None:
    document = json.loads(path.read_text())
    summary = document["summary"]
    count = sum(document["statusCodeDistribution"].values())
    trial, ours = rebuilt(oha, path, count)
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
