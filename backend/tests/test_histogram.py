"""Percentiles: exact from samples (numpy's linear definition), within 0.1 % from HDR."""

import numpy as np
import pytest
from hdrh.histogram import HdrHistogram
from hypothesis import given, settings
from hypothesis import strategies as st

from latlab.core.errors import Unprocessable
from latlab.runs.histogram import HIGHEST_NS, SUMMARY_PERCENTILES, Histogram

QS = list(SUMMARY_PERCENTILES.values())
sample_sets = st.lists(st.integers(min_value=0, max_value=HIGHEST_NS), min_size=1, max_size=3000)
skewed_sets = st.lists(
    st.floats(min_value=0, max_value=12).map(lambda e: int(10**e)), min_size=1, max_size=3000
)


@settings(max_examples=200, deadline=None)
@given(st.one_of(sample_sets, skewed_sets))
def test_percentiles_from_samples_equal_numpy(values: list[int]) -> None:
    array = np.asarray(values, dtype=np.int64)
    summary = Histogram.from_samples(array).summary()
    expected = np.percentile(array, QS)
    for key, want in zip(SUMMARY_PERCENTILES, expected, strict=True):
        assert round(getattr(summary, key)) == round(want)
    assert summary.count == len(values)
    assert summary.min == array.min() and summary.max == array.max()
    assert summary.mean == pytest.approx(array.mean())
    assert summary.stddev == pytest.approx(array.std(), rel=1e-9, abs=1e-6)


@settings(max_examples=200, deadline=None)
@given(st.one_of(sample_sets, skewed_sets))
def test_percentiles_from_hdr_within_precision_never_below(values: list[int]) -> None:
    array = np.asarray(values, dtype=np.int64)
    encoded = Histogram.from_samples(array).to_hdr()
    summary = Histogram.from_hdr(encoded).summary()
    exact = np.percentile(array, QS)
    for key, want in zip(SUMMARY_PERCENTILES, exact, strict=True):
        got = getattr(summary, key)
        assert got >= want - 1e-6
        assert got <= want * 1.001 + 1
    assert summary.count == len(values)


def test_reads_histograms_written_by_the_hdrh_library() -> None:
    reference = HdrHistogram(1, 60_000_000_000, 3)
    values = np.random.default_rng(3).integers(1_000, 5_000_000, 5000)
    for value in values:
        reference.record_value(int(value))
    summary = Histogram.from_hdr(reference.encode().decode()).summary()
    assert summary.count == 5000
    assert summary.p99 >= np.percentile(values, 99)
    assert summary.p99 <= np.percentile(values, 99) * 1.001 + 1
    assert summary.max == reference.get_max_value()


def test_other_layouts_are_moved_into_the_canonical_one_without_going_below() -> None:
    coarse = HdrHistogram(1000, 10_000_000_000, 2)
    values = np.random.default_rng(5).integers(10_000, 9_000_000, 2000)
    for value in values:
        coarse.record_value(int(value))
    summary = Histogram.from_hdr(coarse.encode().decode()).summary()
    assert summary.count == 2000
    assert summary.p50 >= np.percentile(values, 50)


def test_encoding_round_trips_through_hdrh() -> None:
    values = np.random.default_rng(9).integers(1, 10**9, 20_000)
    ours = Histogram.from_samples(values)
    theirs = HdrHistogram.decode(ours.to_hdr())
    assert theirs.get_total_count() == 20_000
    assert theirs.get_value_at_percentile(99.9) == pytest.approx(
        np.percentile(values, 99.9), rel=0.002
    )


@pytest.mark.parametrize(
    ("encoded", "message"),
    [
        ("not base64!", "not valid base64"),
        ("SElTVEZBQUFB", "not a compressed HdrHistogram V2"),
        ("HISTFAAAAAxx", "not a compressed HdrHistogram V2"),
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
