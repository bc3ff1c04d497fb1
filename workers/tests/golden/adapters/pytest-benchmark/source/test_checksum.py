"""A tiny pytest-benchmark suite for latlab's adapter golden files. LATLAB_SLOW=1 makes the
code about twice as slow, for the regression golden file."""

import os
import zlib

import pytest

SLOW = os.environ.get("LATLAB_SLOW") == "1"


def checksum(n: int) -> int:
    text = ",".join(str(i) for i in range(n)).encode()
    if SLOW:
        text = text + ",".join(str(i) for i in range(n)).encode()
    return zlib.crc32(text)


@pytest.mark.parametrize("n", [10, 1000])
def test_checksum(benchmark, n: int) -> None:
    assert benchmark(checksum, n) >= 0


def test_sorted(benchmark) -> None:
    data = list(range(500, 0, -1))
    assert benchmark.pedantic(sorted, args=(data,), rounds=200, iterations=10)[0] == 1
