"""Latency distributions: HdrHistogram V2 in, numpy counts inside, exact summaries out.

Every trial is stored as a compressed HdrHistogram V2 blob in one canonical layout
(1 ns .. 1 h, 3 significant digits), so trials of any run can be merged and compared.

One percentile definition everywhere, nearest rank, so a reported percentile is a value that
was observed: the value of rank ceil(p/100 x n) (at least 1), the rank computed exactly (not in
floating point, where 0.999 x 1000 lands one rank high). From raw samples it is that sample;
from a histogram it is the highest equivalent value of the bucket holding that rank, exactly
what HdrHistogram's getValueAtPercentile returns (Java, C, Go, Rust, Python `hdrh`). A
histogram's value is within its precision (3 significant digits: 0.1 %) above the sample's.
"""

import base64
import math
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt
from hdrh.histogram import HdrHistogram

from latlab.core.errors import Unprocessable
from latlab_contract import hdr
from latlab_contract.fields import HIGHEST_NS, MAX_COUNT
from latlab_contract.latency import Reported, order_problem
from latlab_contract.vocabulary import SUMMARY_PERCENTILES

LOWEST_NS = 1
SIGNIFICANT_FIGURES = 3

Counts = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Layout:
    """HdrHistogram's bucket layout, vectorised over numpy arrays."""

    lowest: int
    highest: int
    significant_figures: int

    @cached_property
    def unit_magnitude(self) -> int:
        return math.floor(math.log2(self.lowest))

    @cached_property
    def sub_bucket_half_count_magnitude(self) -> int:
        magnitude = math.ceil(math.log2(2 * 10**self.significant_figures))
        return max(magnitude - 1, 0)

    @cached_property
    def sub_bucket_half_count(self) -> int:
        return 1 << self.sub_bucket_half_count_magnitude

    @cached_property
    def counts_len(self) -> int:
        sub_bucket_count = 2 * self.sub_bucket_half_count
        smallest_untrackable = sub_bucket_count << self.unit_magnitude
        buckets = 1
        while smallest_untrackable <= self.highest:
            smallest_untrackable <<= 1
            buckets += 1
        return (buckets + 1) * self.sub_bucket_half_count

    def index_of(self, values: Counts) -> Counts:
        mask = (2 * self.sub_bucket_half_count - 1) << self.unit_magnitude
        # bit_length(v | mask); exact in float64 because values stay below 2**53.
        bit_length = np.frexp((values | mask).astype(np.float64))[1].astype(np.int64)
        bucket = bit_length - self.unit_magnitude - (self.sub_bucket_half_count_magnitude + 1)
        sub_bucket = values >> (bucket + self.unit_magnitude)
        return ((bucket + 1) << self.sub_bucket_half_count_magnitude) + (
            sub_bucket - self.sub_bucket_half_count
        )

    def bucket_bounds(self, indexes: Counts) -> tuple[Counts, Counts]:
        """Lowest and highest value each index stands for."""
        bucket = (indexes >> self.sub_bucket_half_count_magnitude) - 1
        sub_bucket = (indexes & (self.sub_bucket_half_count - 1)) + self.sub_bucket_half_count
        first = bucket < 0
        sub_bucket = np.where(first, sub_bucket - self.sub_bucket_half_count, sub_bucket)
        bucket = np.where(first, 0, bucket)
        lowest = sub_bucket << (bucket + self.unit_magnitude)
        highest = lowest + (np.int64(1) << (bucket + self.unit_magnitude)) - 1
        return lowest, highest


CANONICAL = Layout(LOWEST_NS, HIGHEST_NS, SIGNIFICANT_FIGURES)
# What merged histograms the lab stores may count (rollups of a day of trials): int64 with
# headroom.
MAX_MERGED = 2**62


@dataclass(frozen=True)
class Summary:
    """Latency statistics in nanoseconds (also the API's summary shape)."""

    count: int
    min: float
    max: float
    mean: float
    stddev: float
    p50: float
    p90: float
    p95: float
    p99: float
    p999: float
    p9999: float

    def as_dict(self) -> dict[str, float]:
        return dict(self.__dict__)

    @classmethod
    def of_values(cls, values: list[float]) -> "Summary":
        """The summary of exact values (not whole nanoseconds: go's 2.22 ns/op of each of a
        series' trials), nearest rank, the standard deviation over n as for samples."""
        ordered = sorted(values)
        count = len(ordered)
        mean = math.fsum(ordered) / count
        spread = math.sqrt(math.fsum((v - mean) ** 2 for v in ordered) / count)
        return cls(count, ordered[0], ordered[-1], mean, spread, *(
            ordered[nearest_rank(q, count) - 1] for q in SUMMARY_PERCENTILES.values()))

    def described(self, reported: Reported | None, rebuilt: bool,
                  resolution_ns: int | None = None) -> tuple["Summary", dict[str, Any] | None]:
        """This summary with the statistics a harness printed in place of the computed ones,
        and where each came from: `reported` (the tool's own) and `interpolated` (computed
        from a histogram rebuilt from a spectrum), and the step the tool prints values in
        (`resolution_ns`); None when all were computed at the lab's own resolution."""
        printed = {} if reported is None else reported.model_dump(exclude_none=True)
        if not printed and not rebuilt and resolution_ns is None:
            return self, None
        described = replace(self, **printed)
        problem = order_problem(described.as_dict())
        if problem is not None:  # the tool's numbers contradict its own distribution
            raise ValueError(f"with the statistics the harness printed, the {problem}")
        interpolated = [key for key in self.__dict__
                        if rebuilt and key != "count" and key not in printed]
        origin: dict[str, Any] = {"reported": sorted(printed), "interpolated": interpolated}
        if resolution_ns is not None:
            origin["resolution_ns"] = resolution_ns
        return described, origin


class Histogram:
    """Counts in the canonical layout, plus the exact samples (in chunks) when they were
    given."""

    def __init__(self, counts: Counts, chunks: list[npt.NDArray[Any]] | None = None) -> None:
        self.counts = counts
        self.chunks = chunks
        self._summary: Summary | None = None

    @property
    def samples(self) -> list[npt.NDArray[Any]] | None:
        """The raw samples, in chunks, when the histogram was built from them."""
        return self.chunks

    @classmethod
    def from_samples(cls, samples: Counts, path: str = "$") -> "Histogram":
        return cls.from_chunks(_chunks(samples), path)

    @classmethod
    def from_chunks(cls, chunks: list[npt.NDArray[Any]], path: str = "$") -> "Histogram":
        """From raw samples held in chunks (of any integer dtype), each chunk's temporaries
        bounded, so millions of samples cost little more than the samples themselves."""
        if sum(chunk.size for chunk in chunks) == 0:
            raise Unprocessable("at least one sample is required", path)
        if min(int(chunk.min()) for chunk in chunks if chunk.size) < 0:
            raise Unprocessable("latencies must be non-negative integers", path)
        if max(int(chunk.max()) for chunk in chunks if chunk.size) > HIGHEST_NS:
            raise Unprocessable(f"latencies above {HIGHEST_NS} ns (one hour) are refused", path)
        counts = np.zeros(CANONICAL.counts_len, dtype=np.int64)
        for chunk in chunks:
            counts += np.bincount(CANONICAL.index_of(chunk.astype(np.int64, copy=False)),
                                  minlength=CANONICAL.counts_len)
        return cls(counts, [chunk for chunk in chunks if chunk.size])

    @classmethod
    def from_hdr(cls, encoded: str, path: str = "$", *, allow_empty: bool = False,
                 max_count: int = MAX_COUNT) -> "Histogram":
        layout, counts = _decode_hdr(encoded, path, max_count)
        if counts.sum() == 0 and not allow_empty:
            raise Unprocessable("the histogram holds no values", path)
        if layout == CANONICAL:
            return cls(counts[: CANONICAL.counts_len].copy())
        # Another layout: move each bucket's highest value into the canonical layout, which
        # keeps "never below the exact value".
        nonzero = np.flatnonzero(counts).astype(np.int64)
        _, highest = layout.bucket_bounds(nonzero)
        if nonzero.size and int(highest.max()) > HIGHEST_NS:
            raise Unprocessable(f"latencies above {HIGHEST_NS} ns (one hour) are refused", path)
        rebinned = np.zeros(CANONICAL.counts_len, dtype=np.int64)
        np.add.at(rebinned, CANONICAL.index_of(highest), counts[nonzero])
        return cls(rebinned)

    @classmethod
    def from_blob(cls, blob: bytes) -> "Histogram":
        """A histogram the lab stored (a merged one may count more than a submitted one)."""
        return cls.from_hdr(base64.b64encode(blob).decode(), max_count=MAX_MERGED)

    @classmethod
    def merge(cls, histograms: list["Histogram"]) -> "Histogram":
        """The histograms added (a ValueError if they count more than `MAX_MERGED` values,
        where int64 would wrap)."""
        if sum(h.count for h in histograms) > MAX_MERGED:
            raise ValueError(f"the histograms count more than {MAX_MERGED:,} values")
        return cls(np.sum([h.counts for h in histograms], axis=0, dtype=np.int64))

    @property
    def count(self) -> int:
        return int(self.counts.sum())

    def summary(self) -> Summary:
        if self._summary is None:  # computed once: millions of samples take a moment
            self._summary = self._summarise()
        return self._summary

    def _summarise(self) -> Summary:
        if self.chunks is not None:
            return _exact_summary(self, self.chunks)
        nonzero = np.flatnonzero(self.counts).astype(np.int64)
        weights = self.counts[nonzero]
        lowest, highest = CANONICAL.bucket_bounds(nonzero)
        middle = lowest + (highest - lowest + 1) // 2
        count = int(weights.sum())
        mean = float(np.dot(weights, middle) / count)
        stddev = math.sqrt(float(np.dot(weights, (middle - mean) ** 2) / count))
        values = self.percentiles(list(SUMMARY_PERCENTILES.values()))
        return Summary(
            count, float(lowest[0]), float(highest[-1]), mean, stddev,
            *(float(v) for v in values),
        )

    def percentiles(self, qs: list[float]) -> list[float]:
        """Nearest-rank percentiles (the module's definition). From samples: the bucket
        holding each rank is found from the counts, and only that bucket's samples are
        gathered and partitioned, so no sorted copy of millions of values is made."""
        ranks = np.asarray([nearest_rank(q, self.count) for q in qs], dtype=np.int64)
        if self.chunks is not None:
            return _exact_percentiles(self.counts, self.chunks, ranks)
        nonzero = np.flatnonzero(self.counts).astype(np.int64)
        cumulative = np.cumsum(self.counts[nonzero])
        _, highest = CANONICAL.bucket_bounds(nonzero)
        return [float(v) for v in highest[np.searchsorted(cumulative, ranks, side="left")]]

    def spectrum(self) -> list[dict[str, float]]:
        """Percentile spectrum points for charts: ten per decade of 1/(1-p), then 100 %."""
        decades = math.log10(max(self.count, 10))
        steps = np.arange(0, int(decades * 10) + 1)
        qs = [float(q) for q in 100.0 * (1.0 - 10.0 ** (-steps / 10.0))] + [100.0]
        return [
            {"percentile": q, "value": v}
            for q, v in zip(qs, self.percentiles(qs), strict=True)
        ]

    def to_blob(self) -> bytes:
        """The compressed HdrHistogram V2 encoding, as bytes (base64 of it is the wire form)."""
        return base64.b64decode(self.to_hdr())

    def to_hdr(self) -> str:
        histogram = HdrHistogram(LOWEST_NS, HIGHEST_NS, SIGNIFICANT_FIGURES)
        np.ctypeslib.as_array(histogram.counts)[:] = self.counts
        nonzero = np.flatnonzero(self.counts)
        if nonzero.size:
            histogram.set_internal_tacking_values(
                int(nonzero[0]), int(nonzero[-1]), int(self.counts.sum())
            )
        encoded: bytes = histogram.encode()
        return encoded.decode()


def nearest_rank(percentile: float, count: int) -> int:
    """The rank (1-based) of the nearest-rank percentile of `count` values: ceil(p/100 x n),
    computed exactly from the percentile as written, and at least 1."""
    rank = math.ceil(Fraction(str(percentile)) * count / 100)
    return min(max(rank, 1), max(count, 1))


def _exact_summary(histogram: "Histogram", chunks: list[npt.NDArray[Any]]) -> Summary:
    values = histogram.percentiles(list(SUMMARY_PERCENTILES.values()))
    count = sum(chunk.size for chunk in chunks)
    mean = sum(float(chunk.sum(dtype=np.float64)) for chunk in chunks) / count
    squares = sum(float(np.square(chunk - mean).sum()) for chunk in chunks)
    return Summary(
        count,
        float(min(int(chunk.min()) for chunk in chunks)),
        float(max(int(chunk.max()) for chunk in chunks)),
        mean,
        math.sqrt(squares / count),
        *values,
    )


def _exact_percentiles(counts: Counts, chunks: list[npt.NDArray[Any]],
                       ranks: Counts) -> list[float]:
    cumulative = np.cumsum(counts)
    buckets = np.searchsorted(cumulative, ranks, side="left")
    wanted = np.unique(buckets)
    members: dict[int, list[npt.NDArray[Any]]] = {int(b): [] for b in wanted}
    for chunk in chunks:
        indexes = CANONICAL.index_of(chunk.astype(np.int64, copy=False))
        for bucket in members:
            members[bucket].append(chunk[indexes == bucket])
    values = []
    for rank, bucket in zip(ranks, buckets, strict=True):
        inside = np.concatenate(members[int(bucket)])
        before = int(cumulative[bucket]) - int(counts[bucket])
        k = int(rank) - before - 1  # the rank's place among the bucket's own samples
        values.append(float(np.partition(inside, k)[k]))
    return values


def _chunks(values: npt.NDArray[Any], size: int = 1 << 20) -> list[npt.NDArray[Any]]:
    return [values[start:start + size] for start in range(0, values.size, size)]


def _decode_hdr(encoded: str, path: str, max_count: int) -> tuple[Layout, Counts]:
    """Decode a standard compressed V2 histogram, refusing anything malformed or oversized."""
    try:
        decoded = hdr.decode(encoded, max_count=max_count)
    except hdr.HdrError as error:
        raise Unprocessable(str(error), path) from error
    layout = Layout(int(decoded.lowest_trackable_value), int(decoded.highest_trackable_value),
                    int(decoded.significant_figures))
    return layout, np.ctypeslib.as_array(decoded.counts).astype(np.int64)
