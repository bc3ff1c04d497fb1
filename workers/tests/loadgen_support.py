"""What the load generators' adapters' tests share: the golden files, a trial's histogram,
nearest-rank percentiles, and comparisons of our numbers with what a tool printed."""

import math
from fractions import Fraction
from pathlib import Path
from types import ModuleType

from hdrh.histogram import HdrHistogram

from latlab_contract.latency import Latency, Reported
from latlab_contract.parsers import ParseContext
from latlab_contract.result import TrialIn

GOLDEN = Path(__file__).parent / "golden" / "adapters"
CONTEXT = ParseContext()
HDR_PRECISION = 1e-3  # the rebuilt histograms' 3 significant digits
REPORTED = set(Reported.model_fields)


def only_trial(module: ModuleType, path: Path) -> TrialIn:
    parsed = module.parse(path.read_text(), CONTEXT)
    (series,) = parsed.series
    assert series.labels == {}
    (trial,) = series.trials
    assert isinstance(trial, TrialIn)
    return trial


def histogram(latency: Latency) -> HdrHistogram:
    assert latency.hdr is not None
    return HdrHistogram.decode(latency.hdr)


def rebuilt(module: ModuleType, path: Path, count: int) -> tuple[TrialIn, HdrHistogram]:
    """The only trial of a tool's output, whose latency the lab rebuilt from what the tool
    printed, and that histogram, checked to hold the `count` values the tool measured."""
    trial = only_trial(module, path)
    assert trial.latency.rebuilt
    ours = histogram(trial.latency)
    assert ours.get_total_count() == count
    return trial, ours


def at_rank(ours: HdrHistogram, rank: int) -> int:
    """The value of the rank-th smallest value of a histogram (its bucket's highest)."""
    for item in ours.get_recorded_iterator():
        if item.total_count_to_this_value >= rank:
            return int(item.value_iterated_to)
    raise AssertionError(f"rank {rank} beyond the histogram's {ours.get_total_count()}")


def nearest_rank(percentile: float, count: int) -> int:
    return max(1, math.ceil(Fraction(repr(percentile)) * count / 100))


def at_percentile(ours: HdrHistogram, percentile: float, count: int) -> int:
    """The value of a histogram of `count` values at a percentile's nearest rank."""
    return at_rank(ours, nearest_rank(percentile, count))


def close(ours: float, theirs: float, relative: float = HDR_PRECISION) -> bool:
    return abs(ours - theirs) <= relative * abs(theirs)


def same(ours: float | None, theirs: float) -> bool:
    """Equal to 1e-9 relative (a unit's conversion to ns in floating point)."""
    return ours is not None and math.isclose(ours, theirs, rel_tol=1e-9)


def summary_key(percentile: str) -> str:
    """`Reported`'s key of a percentile as tools write it: 99.9 -> p999, 50 -> p50."""
    return "p" + f"{float(percentile):g}".replace(".", "")


def relative(path: Path) -> str:
    return str(path.relative_to(GOLDEN))


def printed_stats(latency: Latency) -> dict[str, float]:
    assert latency.reported is not None
    return latency.reported.model_dump(exclude_none=True)


# wrk 4.1.0: its text with --latency, and the README's example without.

WRK = GOLDEN / "wrk"


# vegeta v12.13.0 and v12.8.4: the JSON report and every request of one attack, with vegeta's
# text report of it; the README's examples.

VEGETA = GOLDEN / "vegeta"


def go_seconds(nanoseconds: int) -> float:
    """Go's Duration.Seconds()."""
    whole, rest = divmod(nanoseconds, 10**9)
    return float(whole) + rest / 1e9


# oha 1.16.0 and 1.8.0: the JSON, and every request of its run in oha's SQLite store.

OHA = GOLDEN / "oha"


# ghz v0.121.0 and v0.93.0: the JSON with every call, and ghz's printer's summary of it;
# ghz's upstream samples, whose details are not every call.

GHZ = GOLDEN / "ghz"
