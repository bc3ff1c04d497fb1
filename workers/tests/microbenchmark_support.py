"""What the microbenchmark adapters' tests share: the golden files, the parsers by adapter, a
golden file's series by labels, and comparisons of our numbers with what a tool printed."""

import functools
import math
from collections.abc import Callable
from pathlib import Path

from hdrh.histogram import HdrHistogram

from latlab_contract.parsers import ParseContext, Parsed, jmh
from latlab_contract.parsers import google_benchmark as gbench
from latlab_contract.parsers import hyperfine as hfine
from latlab_contract.result import SeriesIn, TrialIn

GOLDEN = Path(__file__).parent / "golden" / "adapters"
CONTEXT = ParseContext()
# Nanoseconds per unit, as the tools print units.
UNIT_NS = {"ns": 1.0, "us": 1e3, "µs": 1e3, "ms": 1e6, "s": 1e9}
Labels = tuple[tuple[str, str], ...]
Parser = Callable[[str, ParseContext], Parsed]
PARSERS: dict[str, Parser] = {"google-benchmark": gbench.parse, "hyperfine": hfine.parse,
                              "jmh": jmh.parse}


@functools.cache
def parsed(adapter: str, path: Path) -> Parsed:
    return PARSERS[adapter](path.read_text(), CONTEXT)


def parse(adapter: str, path: Path) -> dict[Labels, SeriesIn]:
    """The series an adapter reads from a golden file, by labels."""
    found = {tuple(sorted(s.labels.items())): s for s in parsed(adapter, path).series}
    assert len(found) == len(parsed(adapter, path).series)
    return found


def key(labels: dict[str, str]) -> Labels:
    return tuple(sorted(labels.items()))


def same(ours: float | None, theirs: float) -> bool:
    """Equal to 1e-9 relative (a unit's conversion to ns in floating point)."""
    return ours is not None and math.isclose(ours, theirs, rel_tol=1e-9)


def printed_as(ours: float, printed: str) -> str:
    """Our value to the decimals of a number the tool printed."""
    return f"{ours:.{len(printed.partition('.')[2])}f}"


def rounds_to(ours: float, printed: str) -> bool:
    """Our value lies in the rounding interval of a number the tool printed, ends included:
    Java's formatting (JMH) rounds a tie half up on the number's shortest decimal form, so a
    mean that is 20.7445 in the JSON prints as 20.745 while Python's rounding of the binary
    value (20.74449999...) gives 20.744."""
    half = 10.0 ** -len(printed.partition(".")[2]) / 2
    return abs(ours - float(printed)) <= half * (1 + 1e-9) + 1e-12 * abs(ours)


def histogram(trial: TrialIn) -> HdrHistogram:
    assert trial.latency.hdr is not None
    return HdrHistogram.decode(trial.latency.hdr)


def relative(path: Path) -> str:
    return str(path.relative_to(GOLDEN))


# Google Benchmark: runs of 1.7.1 and 1.9.5 (JSON and the console table of the same run), and
# google/benchmark's own JSON inputs of its compare.py tests.

GB = GOLDEN / "google-benchmark"


# hyperfine: 1.15.0 and 1.20.0, JSON with the text report and CSV of the same run.

HF = GOLDEN / "hyperfine"
