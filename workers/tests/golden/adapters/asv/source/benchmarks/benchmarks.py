"""asv benchmarks of the checksum package: timed ones (one parameterized over two
parameters with one combination skipped, one over one parameter with one combination that
raises), a track_, a mem_ and a peakmem_ one, and one that raises."""

import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

import checksum

# Small, real settings: 7 samples each, short warm-up.
REPEAT = 7
WARMUP = 0.02


def time_checksum_10():
    checksum.fnv1a(b"0123456789")


time_checksum_10.repeat = REPEAT
time_checksum_10.warmup_time = WARMUP


class TimeSuite:
    params = ([10, 1000], ["bytes", "str"])
    param_names = ["size", "kind"]
    repeat = REPEAT
    warmup_time = WARMUP

    def setup(self, size, kind):
        if size == 1000 and kind == "str":
            raise NotImplementedError("str of 1000 is not measured")
        self.data = b"x" * size

    def time_checksum(self, size, kind):
        data = self.data if kind == "bytes" else self.data.decode().encode()
        checksum.fnv1a(data)


def time_zeros(size):
    checksum.fnv1a(bytes(size))  # size -1: ValueError (negative count)


time_zeros.params = [100, -1]
time_zeros.param_names = ["size"]
time_zeros.repeat = REPEAT
time_zeros.warmup_time = WARMUP


def track_rounds():
    return checksum.ROUNDS


track_rounds.unit = "rounds"


def mem_table():
    return checksum.table(100)


def peakmem_table():
    checksum.table(10_000)


def time_reads_missing_file():
    checksum.read_input()


time_reads_missing_file.repeat = REPEAT
