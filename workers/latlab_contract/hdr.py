"""HdrHistograms in latlab's one layout (1 ns .. 1 h, 3 significant digits), and checked
decoding of the standard compressed V2 encoding (base64), shared by the api and the parsers:
a malformed or oversized histogram is refused before the library decodes it, so a
compression bomb costs nothing."""

import base64
import binascii
import struct
import zlib
from collections.abc import Iterable

from hdrh.histogram import HdrHistogram

from latlab_contract.result import HIGHEST_NS

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
    """A histogram of (value in ns, count) pairs; values above one hour are refused."""
    histogram = new_histogram()
    for value, count in values:
        if not 0 <= value <= HIGHEST_NS:
            raise HdrError(f"latency {value} ns is outside 0 .. {HIGHEST_NS} ns (one hour)")
        if count > 0:
            histogram.record_value(value, count)
    return histogram


def decode(encoded: str, max_payload: int = MAX_PAYLOAD_BYTES) -> HdrHistogram:
    """Decodes a base64 compressed V2 histogram after checking its framing, its header and,
    with a bounded decompression, its size."""
    try:
        raw = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError) as error:
        raise HdrError("hdr is not valid base64") from error
    if len(raw) < 8:
        raise HdrError("hdr is too short to be a histogram")
    cookie, length = struct.unpack(">II", raw[:8])
    if cookie & ~0xF0 != _V2_COMPRESSION_COOKIE_BASE or length != len(raw) - 8:
        raise HdrError("hdr is not a compressed HdrHistogram V2 encoding")
    decompressor = zlib.decompressobj()
    try:
        payload = decompressor.decompress(raw[8:], max_payload)
    except zlib.error as error:
        raise HdrError("hdr payload is not valid zlib data") from error
    if decompressor.unconsumed_tail or len(payload) < _PAYLOAD_HEADER.size:
        raise HdrError("hdr payload has an invalid size")
    cookie, _, _, figures, lowest, highest, _ = _PAYLOAD_HEADER.unpack_from(payload)
    if cookie & ~0xF0 != _V2_ENCODING_COOKIE_BASE:
        raise HdrError("hdr payload cookie is not V2")
    if not (1 <= figures <= 5 and lowest >= 1 and 2 * lowest <= highest < 2**62):
        raise HdrError("hdr header has an invalid range or precision")
    try:
        return HdrHistogram.decode(encoded)
    except Exception as error:  # the library raises many kinds on bad input
        raise HdrError(f"hdr cannot be decoded: {error}") from error
