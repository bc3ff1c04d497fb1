"""Writes an HdrHistogram interval log with the Python `hdrh` library's HistogramLogWriter:
the time of each zlib.compress of 4 KiB, in nanoseconds, five windows of 0.5 s each.
`--slow` compresses at level 9 twice, for the "slower build" golden file.

    python write_hlog.py > python.hlog
"""

import sys
import time
import zlib

from hdrh.histogram import HdrHistogram
from hdrh.log import HistogramLogWriter

SLOW = "--slow" in sys.argv
DATA = bytes(range(256)) * 16


def work() -> None:
    zlib.compress(DATA, 9 if SLOW else 1)
    if SLOW:
        zlib.compress(DATA, 9)


writer = HistogramLogWriter(sys.stdout)
writer.output_log_format_version()
writer.output_comment("[zlib.compress of 4 KiB, ns, written by hdrh's HistogramLogWriter]")
base_ms = int(time.time() * 1000)
writer.output_base_time(base_ms)
writer.base_time = base_ms  # interval timestamps are written relative to it
writer.output_legend()
for window in range(5):
    histogram = HdrHistogram(1, 60_000_000_000, 3)
    start = time.monotonic_ns()
    histogram.set_start_time_stamp(base_ms + window * 500)
    while time.monotonic_ns() - start < 500_000_000:
        before = time.perf_counter_ns()
        work()
        histogram.record_value(time.perf_counter_ns() - before)
    histogram.set_end_time_stamp(base_ms + (window + 1) * 500)
    writer.output_interval_histogram(histogram)
