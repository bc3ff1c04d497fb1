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
import itertools
import math
import struct
import zlib
from collections.abc import Iterable
from fractions import Fraction

import numpy as np
import numpy.typing as npt
from hdrh.histogram import HdrHistogram

from latlab_contract.fields import HIGHEST_NS, MAX_COUNT

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


def rebuilt(points: Iterable[tuple[int, int]], mean: float | None = None,
            floor: int | None = None) -> HdrHistogram:
    """A histogram rebuilt from (rank, value in ns) points of a distribution, such as the
    percentiles a tool printed: every point's value at its rank, and between two points the
    ranks on a rising curve from the lower value to the higher (`_spread`), so no value is
    invented beyond the points. Of points on one rank the highest value is kept.

    Below the first point the ranks take its value, or, given a `floor` (a tool that prints
    no minimum), run from the floor up to it on the same curve. The curve is value = low +
    (high - low) x t^k, t the rank's place between the points, with one k for every segment:
    k = 1 (straight lines) without a `mean`; given the tool's mean, the k whose histogram has
    that mean (`_exponent`). A mean no rising curve reaches (beyond a printed value's rounding)
    contradicts the points and is refused. The ranks between two points are counted bucket by
    bucket, so a billion requests cost no more than ten."""
    by_rank: dict[int, int] = {}
    for rank, value in points:
        if not 0 <= value <= HIGHEST_NS:
            raise HdrError(f"latency {value} ns is outside 0 .. {HIGHEST_NS} ns (one hour)")
        if not 1 <= rank <= MAX_COUNT:
            raise HdrError(f"a count of {rank:,} values is outside 1 .. {MAX_COUNT:,}")
        by_rank[rank] = max(value, by_rank.get(rank, value))
    ordered = sorted(by_rank.items())
    for (low_rank, low_value), (rank, value) in itertools.pairwise(ordered):
        if value < low_value:
            raise HdrError(f"the value at rank {rank:,} ({value} ns) is below the value at "
                           f"rank {low_rank:,} ({low_value} ns)")
    histogram = new_histogram()
    if not ordered:
        return histogram
    counts = np.frombuffer(histogram.counts, dtype=np.int64)
    (first_rank, first_value), held = ordered[0], ordered[0][0]
    segments = [(*low, *high) for low, high in itertools.pairwise(ordered)]
    if floor is not None and first_rank > 1:
        if not 0 <= floor <= first_value:
            raise HdrError(f"the floor {floor} ns is outside 0 .. {first_value} ns")
        segments.insert(0, (0, floor, first_rank, first_value))
        held = 0
    k = 1.0 if mean is None else _exponent((held, first_value), segments, mean)
    if held:
        counts[_index(np.array([first_value]))] += held
    for segment in segments:
        _spread(counts, segment, k)
    nonzero = np.flatnonzero(counts)
    histogram.set_internal_tacking_values(int(nonzero[0]), int(nonzero[-1]),
                                          int(counts.sum()))
    return histogram


Segment = tuple[int, int, int, int]  # low rank, low value, high rank, high value
# A mean a printed value's rounding can move: 0.5 % and 1 ns (as `result.order_problem`).
_ROUNDING = 5e-3
# The steepest curves tried, k = 2^-40 .. 2^40: every value at its segment's top or bottom.
_STEEPEST = 40


def _exponent(held: tuple[int, int], segments: list[Segment], mean: float) -> float:
    """The k of value = low + (high - low) x t^k whose rebuilt histogram has `mean`: the
    mean falls as k grows, from the one with every rank at its segment's top (k -> 0) to the
    one with every rank but the points at its segment's bottom (k -> infinity); k is found
    by bisection of log2 k on the sum of the values (`_power_sum`). A mean within rounding of
    those ends takes the end; beyond it, an HdrError. `held`: the ranks below the first
    segment, all at one value."""
    count = segments[-1][2] if segments else held[0]
    fixed = held[0] * held[1] + sum((high_rank - low_rank) * low
                                    for low_rank, low, high_rank, _ in segments)
    spans = [(high_rank - low_rank, high - low) for low_rank, low, high_rank, high in segments]

    def total(k: float) -> float:
        return fixed + sum(span * _power_sum(ranks, k) for ranks, span in spans if span)

    least, most = fixed + sum(span for _, span in spans), fixed + sum(n * s for n, s in spans)
    target = mean * count
    if target < least:
        if mean * (1 + _ROUNDING) + 1 < least / count:
            raise HdrError(f"the mean ({mean:g} ns) is below the least the points allow "
                           f"({least / count:g} ns, every value at the point below it)")
        return math.ldexp(1.0, _STEEPEST)
    if target > most:
        if mean > (most / count) * (1 + _ROUNDING) + 1:
            raise HdrError(f"the mean ({mean:g} ns) is above the most the points allow "
                           f"({most / count:g} ns, every value at the point above it)")
        return math.ldexp(1.0, -_STEEPEST)
    low, high = float(-_STEEPEST), float(_STEEPEST)
    for _ in range(60):
        middle = (low + high) / 2
        if total(math.pow(2.0, middle)) > target:
            low = middle
        else:
            high = middle
    return math.pow(2.0, (low + high) / 2)


# The top ranks of a segment summed one by one; those below by Euler-Maclaurin.
_EXACT_RANKS = 1024


def _power_sum(ranks: int, k: float) -> float:
    """sum (i / ranks)^k for i = 1 .. ranks: the last `_EXACT_RANKS` terms exactly, the
    others as the integral of t^k over 0 .. x, x the last of them, plus half the term at x."""
    exact = min(ranks, _EXACT_RANKS)
    tail = float(np.sum((np.arange(ranks - exact + 1, ranks + 1) / ranks) ** k))
    if exact == ranks:
        return tail
    x = (ranks - exact) / ranks
    return tail + ranks * math.pow(x, k + 1) / (k + 1) + math.pow(x, k) / 2


def _spread(counts: npt.NDArray[np.int64], segment: Segment, k: float = 1.0) -> None:
    """Adds to a canonical histogram's counts the ranks low+1 .. high, rank r at low's value
    + (high's - low's) x ((r - low) / (high - low))^k, each in the bucket its value falls
    in (the ranks whose value is at most a bucket's highest value, less those of the buckets
    below)."""
    low_rank, low_value, high_rank, high_value = segment
    ranks, span = high_rank - low_rank, high_value - low_value
    if not span:
        counts[_index(np.array([high_value]))] += ranks
        return
    indexes = np.arange(_index(np.array([low_value + 1]))[0],
                        _index(np.array([high_value]))[0] + 1)
    tops = np.minimum(_highest(indexes), high_value)
    if k == 1.0:
        # exact in integers, as wide as they need to be
        wide = ranks * span >= 2**62
        steps = tops.astype(object) if wide else tops
        reached = np.asarray((steps - low_value) * ranks // span, dtype=np.int64)
    else:
        reached = np.floor(ranks * ((tops - low_value) / span) ** (1 / k)).astype(np.int64)
        reached = np.minimum(reached, ranks - 1)
    reached[-1] = ranks
    reached = np.maximum.accumulate(reached)
    counts[indexes] += np.diff(reached, prepend=0)


# The canonical layout (1 ns, 3 significant digits): 2,048 sub-buckets, half of them 1,024.
_SUB_BUCKETS, _HALF_MAGNITUDE = 2048, 10


def _index(values: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """The canonical layout's counts index of each value (HdrHistogram's countsArrayIndex)."""
    values = values.astype(np.int64)
    # the bit length of values up to an hour in ns (< 2^53, exact as floats)
    bucket = np.frexp((values | (_SUB_BUCKETS - 1)).astype(np.float64))[1] - _HALF_MAGNITUDE - 1
    sub_bucket = values >> bucket
    return np.asarray(((bucket + 1) << _HALF_MAGNITUDE) + sub_bucket - (_SUB_BUCKETS >> 1),
                      dtype=np.int64)


def _highest(indexes: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """The highest value of each canonical counts index's bucket."""
    bucket = (indexes >> _HALF_MAGNITUDE) - 1
    sub_bucket = (indexes & ((_SUB_BUCKETS >> 1) - 1)) + (_SUB_BUCKETS >> 1)
    first = bucket < 0
    sub_bucket = np.where(first, sub_bucket - (_SUB_BUCKETS >> 1), sub_bucket)
    bucket = np.where(first, 0, bucket)
    return (sub_bucket << bucket) + (1 << bucket) - 1


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
