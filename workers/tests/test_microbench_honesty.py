"""Criterion, JMH and pytest-benchmark read as honestly as the tools printed them (issue 44):
the summary carries each tool's own statistics in its own convention (Criterion's and
pytest-benchmark's standard deviation divide by n - 1), the harness's machine context reaches
the run, JMH's failed forks are failures, and files no tool can write (a negative slope, an
empty id, statistics that contradict their own samples) are refused naming the JSON path and
the rule. Golden files: golden/adapters/{criterion,jmh,pytest-benchmark}/, each folder's
README says how the tool made them and what it printed."""

import json
import math
import statistics
from pathlib import Path
from typing import Any

import pytest

from latlab_contract.parsers import ParseContext, Parsed, ParseError, get_parser, read_output

GOLDEN = Path(__file__).parent / "golden" / "adapters"
CONTEXT = ParseContext()


def parsed(adapter: str, path: Path) -> Parsed:
    return get_parser(adapter)(read_output(adapter, path), CONTEXT)


def load(path: Path) -> Any:
    return json.loads(path.read_text())


# Criterion ------------------------------------------------------------------------------------

CRITERION = GOLDEN / "criterion"
TEN_SAMPLES = CRITERION / "samples-10" / "criterion"


@pytest.mark.parametrize("benchmark", ["checksum/10", "checksum/1000"])
def test_criterion_summary_is_its_estimates_with_its_n_minus_1_stddev(benchmark: str) -> None:
    """Criterion 0.7.0 wrote for checksum/10 (estimates.json, ns): mean 586.1290507483859,
    median 599.3566887971143, std_dev 44.35368877563528, the sample form (n - 1) of its 10
    times per iteration; the same values divided by n give 42.0776 (-5.13 %)."""
    folder = TEN_SAMPLES / benchmark / "new"
    estimates = load(folder / "estimates.json")
    sample = load(folder / "sample.json")
    per_iteration = [t / i for i, t in zip(sample["iters"], sample["times"], strict=True)]
    series = {s.labels["benchmark"]: s for s in parsed("criterion", TEN_SAMPLES).series}
    (trial,) = series[benchmark].trials
    summary = trial.latency.reported
    assert summary is not None
    assert summary.stddev == estimates["std_dev"]["point_estimate"]
    assert summary.mean == estimates["mean"]["point_estimate"]
    assert summary.p50 == estimates["median"]["point_estimate"]
    assert len(per_iteration) == 10
    assert math.isclose(summary.stddev, statistics.stdev(per_iteration), rel_tol=1e-12)
    # dividing by n instead: 5.13 % less at 10 samples
    assert math.isclose(statistics.pstdev(per_iteration) / summary.stddev, math.sqrt(9 / 10),
                        rel_tol=1e-9)
    if benchmark == "checksum/10":
        assert f"{summary.stddev:.4f}" == "44.3537"


@pytest.mark.parametrize(("case", "message"), [
    ("negative-slope", r"^\$\[0\]\.estimates\.slope\.point_estimate: a time per iteration of "
                       r"-28490 ns is not positive$"),
    ("empty-id", r"^\$\[0\]\.benchmark\.full_id: empty"),
    ("stddev-by-n", r"^\$\[0\]\.estimates\.std_dev\.point_estimate: 42\.0776 ns contradicts the "
                    r"samples: the sample standard deviation \(n - 1\) of times\[i\] / iters\[i\]"
                    r" is 44\.3537 ns$"),
])
def test_criterion_refuses_what_criterion_cannot_write(case: str, message: str) -> None:
    """Each case is Criterion 0.7.0's checksum/10 with one field changed (refused/README.md)."""
    with pytest.raises(ParseError, match=message):
        parsed("criterion", CRITERION / "refused" / case / "criterion")


def test_criterion_every_real_run_agrees_with_its_own_samples() -> None:
    """Every real Criterion tree (0.2 upstream to 0.7) passes the estimates-vs-samples rule,
    and its summary is its estimates.json."""
    runs = sorted(path for path in CRITERION.glob("*/criterion") if path.is_dir())
    assert len(runs) >= 10
    for run in runs:
        for item in parsed("criterion", run).series:
            summary = item.trials[0].latency.reported
            assert summary is not None and summary.mean is not None and summary.stddev
