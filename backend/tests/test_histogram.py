"""Percentiles, one definition: nearest rank. From samples, the sample of rank ceil(p/100 n)
(numpy's inverted_cdf, but with the rank computed exactly); from a histogram, exactly what
HdrHistogram returns (checked against `hdrh` on histograms written by each load client's own
library)."""

import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hdrh.histogram import HdrHistogram
from hypothesis import given, settings
from hypothesis import strategies as st

from latlab.core.errors import Unprocessable
from latlab.runs.histogram import Histogram
from latlab_contract.fields import HIGHEST_NS
from latlab_contract.vocabulary import SUMMARY_PERCENTILES

QS = list(SUMMARY_PERCENTILES.values())
GOLDEN = Path(__file__).parent / "golden" / "histograms"
# Written by Java's HdrHistogram (the actor-iot suite's MiniTB, its own golden output).
JAVA = Path(__file__).parents[2] / "workers/suites/actor-iot/tests/golden/minitb-actor-10.json"
sample_sets = st.lists(st.integers(min_value=0, max_value=HIGHEST_NS), min_size=1, max_size=3000)
skewed_sets = st.lists(
    st.floats(min_value=0, max_value=12).map(lambda e: int(10**e)), min_size=1, max_size=3000
)


def exact_rank(percentile: float, count: int) -> int:
    """The nearest rank in rational arithmetic (the reference)."""
    return max(1, math.ceil(Fraction(str(percentile)) * count / 100))


def hdrh_value(histogram: HdrHistogram, percentile: float) -> int:
    """hdrh's value at the nearest rank. hdrh rounds p/100 n to the nearest integer where
    nearest rank takes the ceiling, so it is asked for the percentile of the exact rank."""
    count = histogram.get_total_count()
    return int(histogram.get_value_at_percentile(100 * exact_rank(percentile, count) / count))


@settings(max_examples=200, deadline=None)
@given(st.one_of(sample_sets, skewed_sets))
def test_percentiles_from_samples_are_the_nearest_rank_sample(values: list[int]) -> None:
    array = np.asarray(values, dtype=np.int64)
    summary = Histogram.from_samples(array).summary()
    ordered = np.sort(array)
    for key, q in SUMMARY_PERCENTILES.items():
        assert getattr(summary, key) == ordered[exact_rank(q, len(values)) - 1], key
        # numpy's inverted_cdf agrees, but where q n is an integer it computes in floating
        # point and may land one rank high (P99.9 of 1,000 values: the 1,000th).
        numpy_value = np.percentile(array, q, method="inverted_cdf")
        on_a_rank = (Fraction(str(q)) * len(values) / 100).denominator == 1
        assert getattr(summary, key) == numpy_value or on_a_rank, key
    assert summary.count == len(values)
    assert summary.min == array.min() and summary.max == array.max()
    assert summary.mean == pytest.approx(array.mean())
    assert summary.stddev == pytest.approx(array.std(), rel=1e-9, abs=1e-6)


def test_numpy_and_exact_ranks_differ_only_by_floating_point() -> None:
    values = np.arange(1, 1001, dtype=np.int64)
    summary = Histogram.from_samples(values).summary()
    assert summary.p999 == 999  # rank ceil(0.999 x 1000) = 999
    assert np.percentile(values, 99.9, method="inverted_cdf") == 1000  # 999.0000000000001


@settings(max_examples=200, deadline=None)
@given(st.one_of(sample_sets, skewed_sets))
def test_percentiles_from_hdr_are_hdrhistograms(values: list[int]) -> None:
    array = np.asarray(values, dtype=np.int64)
    reference = HdrHistogram(1, HIGHEST_NS, 3)
    for value in array:
        reference.record_value(max(int(value), 1))
    ours = Histogram.from_hdr(Histogram.from_samples(np.maximum(array, 1)).to_hdr()).summary()
    for key, q in SUMMARY_PERCENTILES.items():
        assert getattr(ours, key) == hdrh_value(reference, q), key
        exact = np.sort(np.maximum(array, 1))[exact_rank(q, len(values)) - 1]
        assert exact <= getattr(ours, key) <= exact * 1.001 + 1
    assert ours.count == len(values)


@pytest.mark.parametrize("path", [*sorted(GOLDEN.glob("*.json")), JAVA],
                         ids=lambda p: p.stem)
def test_histograms_written_by_each_clients_library_read_as_hdrh_reads_them(path: Path) -> None:
    encoded = json.loads(path.read_text())["latency_hdr"]
    reference = HdrHistogram.decode(encoded)
    ours = Histogram.from_hdr(encoded)
    qs = [*QS, 10.0, 25.0, 75.0, 99.5, 99.95]
    assert ours.percentiles(qs) == [hdrh_value(reference, q) for q in qs]
    summary = ours.summary()
    assert summary.count == reference.get_total_count() >= 10_000
    assert summary.max == reference.get_max_value()
    if reference.get_total_count() % 100 == 0:  # rank 99 % of n is then exact
        assert summary.p99 == reference.get_value_at_percentile(99)


def test_other_layouts_are_moved_into_the_canonical_one_without_going_below() -> None:
    coarse = HdrHistogram(1000, 10_000_000_000, 2)
    values = np.random.default_rng(5).integers(10_000, 9_000_000, 2000)
    for value in values:
        coarse.record_value(int(value))
    summary = Histogram.from_hdr(coarse.encode().decode()).summary()
    assert summary.count == 2000
    assert summary.p50 == hdrh_value(coarse, 50)


def test_encoding_round_trips_through_hdrh() -> None:
    values = np.random.default_rng(9).integers(1, 10**9, 20_000)
    ours = Histogram.from_samples(values)
    theirs = HdrHistogram.decode(ours.to_hdr())
    assert theirs.get_total_count() == 20_000
    assert theirs.get_value_at_percentile(99.9) == pytest.approx(
        np.percentile(values, 99.9, method="inverted_cdf"), rel=0.001
    )


@pytest.mark.parametrize(
    ("encoded", "message"),
    [
        ("not base64!", "not valid base64"),
        ("SElTVEZBQUFB", "not a compressed HdrHistogram V2"),
        ("HISTFAAAAAxx", "says its compressed payload is 12 bytes long, but it is 1"),
    ],
)
def test_malformed_hdr_is_refused(encoded: str, message: str) -> None:
    with pytest.raises(Unprocessable, match=message):
        Histogram.from_hdr(encoded, "$.x")


def test_spectrum_rises_to_the_maximum() -> None:
    histogram = Histogram.from_samples(np.arange(1, 100_001, dtype=np.int64))
    points = histogram.spectrum()
    values = [p["value"] for p in points]
    assert values == sorted(values)
    assert points[0]["percentile"] == 0.0 and points[-1]["percentile"] == 100.0
    assert values[-1] == 100_000
    assert any(abs(p["percentile"] - 99.99) < 1e-9 for p in points)
