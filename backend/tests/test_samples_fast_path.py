"""Raw samples read straight from the request bytes: the same run as the ordinary parse, and
every malformed array still refused with its path."""

import json

import numpy as np
import pytest

from latlab.core.validation import BodyInvalid
from latlab.runs import samples
from latlab.runs.submission import parse_result
from tests.factories import result


def _document(values: list[int], uncorrected: list[int] | None = None) -> bytes:
    trial: dict = {"latency": {"samples_ns": values}}
    if uncorrected is not None:
        trial = {"latency_uncorrected": {"samples_ns": uncorrected}, **trial}
    return json.dumps(result(series=[{"labels": {"client": "c"}, "trials": [trial]}])).encode()


def test_arrays_are_read_into_int64_arrays_in_place_of_their_lists() -> None:
    rng = np.random.default_rng(1)
    values = [int(v) for v in rng.integers(0, 3_600_000_000_000, 50_000)]
    other = [int(v) for v in rng.integers(0, 1000, 7)]
    raw = _document(values, other).replace(b", ", b" ,\n ")  # any JSON whitespace
    body = parse_result(raw)
    latency = body.series[0].trials[0].latency
    assert isinstance(latency.samples_ns, samples.Chunked)
    assert np.concatenate(latency.samples_ns.chunks).tolist() == values
    uncorrected = body.series[0].trials[0].latency_uncorrected
    assert uncorrected is not None and isinstance(uncorrected.samples_ns, samples.Chunked)
    assert np.concatenate(uncorrected.samples_ns.chunks).tolist() == other
    # Latencies under 4.3 s are kept in 32 bits: half the memory.
    assert uncorrected.samples_ns.chunks[0].dtype == np.uint32


def test_chunks_split_between_numbers_give_the_same_values(monkeypatch) -> None:
    monkeypatch.setattr(samples, "_CHUNK", 64)
    values = list(range(0, 100_000, 7))
    body = parse_result(_document(values))
    chunked = body.series[0].trials[0].latency.samples_ns
    assert isinstance(chunked, samples.Chunked) and len(chunked.chunks) > 100
    assert np.concatenate(chunked.chunks).tolist() == values


@pytest.mark.parametrize(("values", "path"), [
    ("[1, -2, 3]", "samples_ns[1]"),
    ("[1, 2.5]", "samples_ns[1]"),
    ("[1, 3600000000001]", "samples_ns[1]"),
    ("[1, 18446744073709551616]", "samples_ns[1]"),
    ("[1, null]", "samples_ns[1]"),
    ("[]", "samples_ns"),
    ("[1,,2]", "$"),
    ("[1, 02]", "$"),
])
def test_anything_else_is_refused_with_its_path(values: str, path: str) -> None:
    raw = _document([7]).replace(b"[7]", values.encode())
    with pytest.raises(BodyInvalid) as refused:
        parse_result(raw)
    assert any(p["path"].endswith(path) for p in refused.value.problems), refused.value.problems


def test_the_key_as_a_value_is_not_an_array() -> None:
    document = json.loads(_document([5, 6]))
    document["series"][0]["labels"]["client"] = "samples_ns"
    fast = samples.extract(json.dumps(document).encode())
    assert fast is not None
    assert [np.concatenate(a.chunks).tolist() for a in fast[1]] == [[5, 6]]
