"""HdrHistograms in latlab's one layout (1 ns .. 1 h, 3 significant digits), and checked
decoding of the standard compressed V2 encoding (base64), shared by the api and the parsers:
a malformed or oversized histogram is refused before the library decodes it, so a
compression bomb costs nothing.

Every value and count from outside passes through here before the HdrHistogram library (C
code writing into ctypes arrays) sees it: values within 0 .. 1 h, counts and their totals
within `MAX_COUNT`. A count the library would wrap around int64 aborts the process in its
encoder; here it is an `HdrError` naming the value.
"""

import base64
import binascii
import math
import struct
import zlib
from collections.abc import Iterable
from fractions import Fraction

import numpy as np
from hdrh.histogram import HdrHistogram

from latlab_contract.result import HIGHEST_NS, MAX_COUNT

SIGNIFICANT_FIGURES = 3
_V2_COMPRESSION_COOKIE_BASE = 0x1C849304
_V2_ENCODING_COOKIE_BASE = 0x1C849303
_PAYLOAD_HEADER = struct.Struct(">IIIIQQd")
# A generous bound on the decompressed payload: the canonical layout's 33,792 counts.
MAX_PAYLOAD_BYTES = _PAYLOAD_HEADER.size + 9 * 33_792 * 4


class HdrError(ValueError):
    """An encoding that is not a usable compressed HdrHistogram V2."""


def new_histogram() -> HdrHistogram:
    return HdrHistogram(1, HIGHEST_NS, SIGNIFICANT_FIGURES)


def is_canonical(histogram: HdrHistogram) -> bool:
    return (histogram.lowest_trackable_value, histogram.highest_trackable_value,
            histogram.significant_figures) == (1, HIGHEST_NS, SIGNIFICANT_FIGURES)


def encode(histogram: HdrHistogram) -> str:
    encoded: bytes = histogram.encode()
    return encoded.decode()


def from_counts(values: Iterable[tuple[int, int]]) -> HdrHistogram:
    """A histogram of (value in ns, count) pairs; values outside 0 .. 1 h, negative counts
    and counts adding up to more than `MAX_COUNT` are refused."""
    histogram = new_histogram()
    total = 0
    for value, count in values:
        if not 0 <= value <= HIGHEST_NS:
            raise HdrError(f"latency {value} ns is outside 0 .. {HIGHEST_NS} ns (one hour)")
        if count < 0:
            raise HdrError(f"a count of {count} at {value} ns is negative")
        total += count
        if total > MAX_COUNT:
            raise HdrError(f"the counts add up to more than {MAX_COUNT:,} values "
                           f"(a count of {count} at {value} ns)")
        if count > 0:
            histogram.record_value(value, count)
    return histogram


def rebuilt(points: Iterable[tuple[int, int]]) -> HdrHistogram:
    """A histogram rebuilt from (rank, value in ns) points of a distribution, such as the
    percentiles a tool printed: the value of rank r is interpolated linearly between the
    points around it (so every point's value is at its rank and no value is invented beyond
    the points), and ranks below the first point take its value. Of points on one rank the
    highest value is kept. The ranks between two points are counted bucket by bucket, so a
    billion requests cost no more than ten."""
    by_rank: dict[int, int] = {}
    for rank, value in points:
        if not 0 <= value <= HIGHEST_NS:
            raise HdrError(f"latency {value} ns is outside 0 .. {HIGHEST_NS} ns (one hour)")
        if not 1 <= rank <= MAX_COUNT:
            raise HdrError(f"a count of {rank:,} values is outside 1 .. {MAX_COUNT:,}")
        by_rank[rank] = max(value, by_rank.get(rank, value))
    histogram = new_histogram()
    previous: tuple[int, int] | None = None
    for rank, value in sorted(by_rank.items()):
        if previous is None:
            histogram.record_value(value, rank)
        elif value < previous[1]:
            raise HdrError(f"the value at rank {rank:,} ({value} ns) is below the value at "
                           f"rank {previous[0]:,} ({previous[1]} ns)")
        else:
            _spread(histogram, previous, (rank, value))
        previous = (rank, value)
    return histogram


def _spread(histogram: HdrHistogram, low: tuple[int, int], high: tuple[int, int]) -> None:
    """Records the ranks low+1 .. high, rank r at low's value + (high's - low's) x (r - low)
    / (high - low), one record per bucket the values fall in."""
    (low_rank, low_value), (high_rank, high_value) = low, high
    ranks, span = high_rank - low_rank, high_value - low_value
    placed, bottom = 0, low_value + 1 if span else high_value
    while placed < ranks:
        top = min(histogram.get_highest_equivalent_value(bottom), high_value)
        # the ranks whose interpolated value is at most `top`
        reached = ranks if top >= high_value else (top - low_value) * ranks // span
        if reached > placed:
            histogram.record_value(top, reached - placed)
            placed = reached
        bottom = top + 1


def summed(histograms: list[HdrHistogram]) -> HdrHistogram:
    """The histograms added in the first one's layout, grown to the largest highest value
    (as Java's auto-resizing histograms grow); counts of one layout are added as arrays."""
    first = histograms[0]
    total = HdrHistogram(first.lowest_trackable_value,
                         max(h.highest_trackable_value for h in histograms),
                         first.significant_figures)
    counts = np.frombuffer(total.counts, dtype=np.int64)
    for histogram in histograms:
        if (histogram.lowest_trackable_value, histogram.significant_figures) == (
                first.lowest_trackable_value, first.significant_figures):
            added = np.frombuffer(histogram.counts, dtype=np.int64)
            counts[:added.size] += added
        else:
            total.add(histogram)
    nonzero = np.flatnonzero(counts)
    if nonzero.size:
        total.set_internal_tacking_values(int(nonzero[0]), int(nonzero[-1]),
                                          int(counts.sum()))
    return total


def statistics(histogram: HdrHistogram, percentiles: dict[str, float]) -> dict[str, float]:
    """A histogram's statistics in its own layout and units, as HdrHistogram (Java) gives
    them: getMinValue, getMaxValue, getMean, getStdDeviation and getValueAtPercentile, whose
    rank is ceil(p/100 x count) (Python's `hdrh` rounds it half up instead)."""
    total = histogram.get_total_count()
    if total == 0:
        raise HdrError("the histogram holds no values")
    cumulative = np.cumsum(np.frombuffer(histogram.counts, dtype=np.int64))
    found = {"min": float(histogram.get_min_value()), "max": float(histogram.get_max_value()),
             "mean": float(histogram.get_mean_value()), "stddev": float(histogram.get_stddev())}
    for key, percentile in percentiles.items():
        rank = max(1, math.ceil(Fraction(repr(percentile)) * total / 100))
        index = int(np.searchsorted(cumulative, rank, side="left"))
        found[key] = float(histogram.get_highest_equivalent_value(
            histogram.get_value_from_index(index)))
    return found


def decode(encoded: str, max_payload: int = MAX_PAYLOAD_BYTES, max_count: int = MAX_COUNT
           ) -> HdrHistogram:
    """Decodes a base64 compressed histogram after checking its framing, its header and,
    with a bounded decompression, its size; its counts must add up to at most `max_count`.
    V2 is the encoding every library writes now; V1 and V0 (older jHiccup and YCSB logs,
    counts as plain 2, 4 or 8-byte words) are read as HdrHistogram (Java) reads them."""
    try:
        raw = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError) as error:
        raise HdrError("hdr is not valid base64") from error
    if len(raw) < 8:
        raise HdrError("hdr is too short to be a histogram")
    cookie, length = struct.unpack(">II", raw[:8])
    if cookie & ~0xF0 not in _COMPRESSION_COOKIES:
        raise HdrError("hdr is not a compressed HdrHistogram V2 (or V1, V0) encoding")
    if length != len(raw) - 8:
        raise HdrError(f"hdr says its compressed payload is {length} bytes long, but it is "
                       f"{len(raw) - 8}")
    decompressor = zlib.decompressobj()
    try:
        payload = decompressor.decompress(raw[8:], max_payload)
    except zlib.error as error:
        raise HdrError("hdr payload is not valid zlib data") from error
    if decompressor.unconsumed_tail:
        raise HdrError("hdr payload is larger than a histogram may be")
    if cookie & ~0xF0 == _V2_COMPRESSION_COOKIE_BASE:
        decoded = _v2(encoded, payload)
    else:
        decoded = _legacy(cookie & ~0xF0, payload)
    counts = np.frombuffer(decoded.counts, dtype=np.int64)
    if counts.size and int(counts.min()) < 0:
        raise HdrError("hdr holds negative counts")
    if counts.size and (int(counts.max()) > max_count
                        or float(counts.sum(dtype=np.float64)) > max_count):
        raise HdrError(f"hdr counts more than {max_count:,} values")
    return decoded


_V1_COMPRESSION_COOKIE_BASE = 0x1C849302
_V0_COMPRESSION_COOKIE_BASE = 0x1C849309
_COMPRESSION_COOKIES = {_V2_COMPRESSION_COOKIE_BASE: "V2", _V1_COMPRESSION_COOKIE_BASE: "V1",
                        _V0_COMPRESSION_COOKIE_BASE: "V0"}
_V1_ENCODING_COOKIE_BASE = 0x1C849301
_V0_ENCODING_COOKIE_BASE = 0x1C849308
_V1_HEADER = struct.Struct(">IIIIQQd")  # cookie, length, index offset, digits, lowest, highest
_V0_HEADER = struct.Struct(">IIQQQ")  # cookie, digits, lowest, highest, total count
_WORDS = {2: ">i2", 4: ">i4", 8: ">i8"}


def _checked_header(figures: int, lowest: int, highest: int) -> None:
    if not (1 <= figures <= 5 and lowest >= 1 and 2 * lowest <= highest < 2**62):
        raise HdrError("hdr header has an invalid range or precision")


def _v2(encoded: str, payload: bytes) -> HdrHistogram:
    if len(payload) < _PAYLOAD_HEADER.size:
        raise HdrError("hdr payload is shorter than its header")
    cookie, length, _, figures, lowest, highest, _ = _PAYLOAD_HEADER.unpack_from(payload)
    if cookie & ~0xF0 != _V2_ENCODING_COOKIE_BASE:
        raise HdrError("hdr payload cookie is not V2")
    if length != len(payload) - _PAYLOAD_HEADER.size:
        raise HdrError(f"hdr says its counts take {length} bytes, but they take "
                       f"{len(payload) - _PAYLOAD_HEADER.size}")
    _checked_header(figures, lowest, highest)
    try:
        return HdrHistogram.decode(encoded)
    except Exception as error:  # the library raises many kinds on bad input
        raise HdrError(f"hdr cannot be decoded: {error}") from error


def _legacy(base: int, payload: bytes) -> HdrHistogram:
    """A V1 or V0 payload: a header, then each count as a big-endian word of the size the
    cookie gives (Java's `decodeFromByteBuffer`)."""
    if base == _V1_COMPRESSION_COOKIE_BASE:
        header, encoding = _V1_HEADER, _V1_ENCODING_COOKIE_BASE
    else:
        header, encoding = _V0_HEADER, _V0_ENCODING_COOKIE_BASE
    if len(payload) < header.size:
        raise HdrError("hdr payload is shorter than its header")
    fields = header.unpack_from(payload)
    cookie = fields[0]
    if cookie & ~0xF0 != encoding:
        raise HdrError("hdr payload cookie does not match its encoding")
    if base == _V1_COMPRESSION_COOKIE_BASE:
        _, length, offset, figures, lowest, highest, _ = fields
        if offset != 0:
            raise HdrError("hdr is a shifted histogram (a normalizing index offset), which "
                           "latlab does not read")
        if length > len(payload) - header.size:
            raise HdrError(f"hdr says its counts take {length} bytes, but they take "
                           f"{len(payload) - header.size}")
    else:
        _, figures, lowest, highest, _ = fields
        length = len(payload) - header.size
    _checked_header(figures, lowest, highest)
    word = ((cookie & 0xF0) >> 4) & 0xE
    if word not in _WORDS:
        raise HdrError(f"hdr counts are {word}-byte words (2, 4 or 8 expected)")
    histogram = HdrHistogram(lowest, highest, figures)
    words = min(length, histogram.counts_len * word) // word
    counts = np.frombuffer(payload, dtype=_WORDS[word], count=words, offset=header.size)
    if counts.size and int(counts.min()) < 0:
        raise HdrError("hdr holds negative counts")
    np.frombuffer(histogram.counts, dtype=np.int64)[:words] = counts
    nonzero = np.flatnonzero(counts)
    if nonzero.size:
        histogram.set_internal_tacking_values(int(nonzero[0]), int(nonzero[-1]),
                                              int(counts.sum(dtype=np.float64)))
    return histogram
