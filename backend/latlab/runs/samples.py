"""Raw samples at size: a submission's `samples_ns` arrays read straight from the request's
bytes into int64 arrays (numpy's C parser, in chunks), never as Python lists of ints.

A 10,000,000-sample submission is 80 MB of JSON; as Python ints it would be 10,000,000
objects (over 300 MB) before the histogram is built. Here each array is checked to be plain
non-negative integers (bytes of digits, commas and whitespace; no field longer than the
largest latency), parsed into an array, and replaced in the document by a one-element
placeholder that the ordinary validation then reads. Anything else (a negative, a float,
`null`) leaves the document to the ordinary validation, which names the offending path.
"""

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel

from latlab_contract.fields import HIGHEST_NS
from latlab_contract.latency import Latency
from latlab_contract.result import RunCreate

Chunk = npt.NDArray[Any]


@dataclass(frozen=True)
class Chunked:
    """One `samples_ns` array, read in chunks of the smallest integer type that holds them
    (32 bits for latencies under 4.3 s: half the memory of the values as int64)."""

    chunks: list[Chunk]

    @property
    def size(self) -> int:
        return sum(chunk.size for chunk in self.chunks)

_KEY = b'"samples_ns"'
_SPACE = b" \t\r\n"
# Text parsed at once: small, so each chunk's temporaries (a few arrays of its values) stay
# small and malloc reuses them; 8 MB chunks left twice the samples' size in the heap at peak.
_CHUNK = 256 << 10


def extract(raw: bytes | bytearray) -> tuple[bytes, list[Chunked]] | None:
    """The document with each `samples_ns` array replaced by `[i]`, and the arrays; None when
    an array is not plain non-negative integers within range (the caller then validates the
    document as it is, to name the problem)."""
    pieces: list[bytes] = []
    arrays: list[Chunked] = []
    position = 0
    while (found := raw.find(_KEY, position)) >= 0:
        start = _array_start(raw, found + len(_KEY))
        if start is None:  # the text "samples_ns" used as a value, not as this key
            pieces.append(bytes(raw[position:found + len(_KEY)]))
            position = found + len(_KEY)
            continue
        end = raw.find(b"]", start)
        if end < 0:
            return None
        array = _parse(memoryview(raw)[start:end])
        if array is None:
            return None
        pieces += [bytes(raw[position:start]), str(len(arrays)).encode()]
        arrays.append(array)
        position = end
    if not arrays:
        return None
    pieces.append(bytes(raw[position:]))
    return b"".join(pieces), arrays


def restore(body: RunCreate, arrays: list[Chunked]) -> bool:
    """Puts the arrays back where their placeholders are; False if a placeholder is not in a
    latency's `samples_ns` (then the document is validated as it was)."""
    placed = 0
    for series in body.series:
        for trial in series.trials:
            for latency in (trial.latency, trial.latency_uncorrected):
                if latency is not None and latency.samples_ns is not None:
                    (index,) = latency.samples_ns if len(latency.samples_ns) == 1 else (-1,)
                    if not 0 <= index < len(arrays):
                        return False
                    _assign(latency, arrays[index])
                    placed += 1
    return placed == len(arrays)


def _assign(latency: Latency, samples: Chunked) -> None:
    # Validated already (range, type): the array stands in for the list it was read from.
    BaseModel.__setattr__(latency, "samples_ns", samples)


def _array_start(raw: bytes | bytearray, at: int) -> int | None:
    at = _skip_space(raw, at)
    if raw[at:at + 1] != b":":
        return None
    at = _skip_space(raw, at + 1)
    return at + 1 if raw[at:at + 1] == b"[" else None


def _skip_space(raw: bytes | bytearray, at: int) -> int:
    while raw[at:at + 1] and raw[at:at + 1] in _SPACE:
        at += 1
    return at


def _parse(text: memoryview) -> Chunked | None:
    """Plain comma-separated non-negative integers (JSON's: no leading zeros) within range,
    parsed a few megabytes at a time, or None."""
    chunks: list[Chunk] = []
    at = 0
    size = len(text)
    while at < size:
        stop = min(at + _CHUNK, size)
        if stop < size:  # cut after a comma, so no number is split
            commas = np.flatnonzero(np.frombuffer(text[at:stop], dtype=np.uint8) == ord(","))
            if commas.size == 0:
                return None
            stop = at + int(commas[-1]) + 1
        chunk = _parse_chunk(text[at:stop], last=stop == size)
        if chunk is None:
            return None
        chunks.append(chunk)
        at = stop
    return Chunked(chunks) if chunks else None


def _parse_chunk(text: memoryview, last: bool) -> Chunk | None:
    data = bytes(text)
    if data.translate(None, b"0123456789," + _SPACE):  # anything but digits, commas, space
        return None
    try:
        values = np.fromstring(data.rstrip(b"," + _SPACE), dtype=np.int64, sep=",")
    except ValueError:  # unmatched data: "1,,2"
        return None
    expected = data.count(b",") + (1 if last else 0)
    # A number too large for int64 comes back as its largest value: out of range here too.
    if values.size == 0 or values.size != expected or int(values.max()) > HIGHEST_NS:
        return None  # "1,,2", "1 2", "1,]", out of range
    # As many digits in the text as the values have: no leading zeros (not JSON), nothing
    # skipped.
    widths = np.ones(values.size, dtype=np.int64)
    positive = values > 0
    widths[positive] = np.floor(np.log10(values[positive])).astype(np.int64) + 1
    if len(data.translate(None, b"," + _SPACE)) != int(widths.sum()):
        return None
    return values.astype(np.uint32) if int(values.max()) <= 0xFFFFFFFF else values
