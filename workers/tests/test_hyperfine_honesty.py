"""Issue 44 for hyperfine: its output read as honestly as it printed it (golden/adapters/hyperfine,
the commands in its README.md): a 222-character command, commands that exit non-zero under
--ignore-failure (1.15.0, and 1.11.0, which wrote no exit_codes) become the trial's failures,
hyperfine stopping at a failing command names the error, statistics that contradict the run's
own times are refused. Each test states the figure hyperfine printed that it checks against."""

import json
import math
import re
import statistics
from pathlib import Path
from typing import Any

import pytest
from loadgen_support import (
    CONTEXT,
    GOLDEN,
)

from latlab_contract.parsers import ParseError, hyperfine
from latlab_contract.result import TrialIn

UNIT_NS = {"ns": 1.0, "µs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}


def printed_as(value: float, printed: str) -> bool:
    """`value` rounds to `printed` at the decimals the tool printed it with."""
    decimals = len(printed.partition(".")[2])
    return f"{value:.{decimals}f}" == printed


# hyperfine: a 222-character command (labels stopped at 200), commands that exit non-zero
# under --ignore-failure (1.15.0, and 1.11.0, which wrote no exit_codes), hyperfine stopping
# at a failing command, statistics that contradict the run's own times.

HF = GOLDEN / "hyperfine"


HF_TIME = re.compile(r"Time \(mean ± \u03c3\):\s+([\d.]+) (\S+) ±\s+([\d.]+) (\S+)")


HF_RANGE = re.compile(r"Range \(min … max\):\s+([\d.]+) (\S+) …\s+([\d.]+) (\S+)\s+(\d+) runs")


def hf_blocks(path: Path) -> list[tuple[str, str]]:
    """(command, its report) of each benchmark hyperfine printed."""
    blocks = re.split(r"^Benchmark #?\d+: ", path.read_text(), flags=re.MULTILINE)[1:]
    return [(block.splitlines()[0], block) for block in blocks]


def hf_parse(path: Path) -> list[tuple[str, TrialIn]]:
    return [(s.labels["command"], s.trials[0])
            for s in hyperfine.parse(path.read_text(), CONTEXT).series]


def assert_hf_printed(block: str, trial: TrialIn) -> None:
    """The trial's mean, stddev, min and max are those hyperfine printed in its report."""
    time, range_ = HF_TIME.search(block), HF_RANGE.search(block)
    assert time is not None and range_ is not None
    reported = trial.latency.reported
    assert reported is not None
    for ours, value, unit in ((reported.mean, *time.group(1, 2)),
                              (reported.stddev, *time.group(3, 4)),
                              (reported.min, *range_.group(1, 2)),
                              (reported.max, *range_.group(3, 4))):
        assert ours is not None and printed_as(ours / UNIT_NS[unit], value), (ours, value)
    assert len(trial.latency.samples_ns or []) == int(range_.group(5))


def test_hyperfine_long_command_is_its_label() -> None:
    """hyperfine printed `Benchmark 1: sh -c '...'` (222 characters, past the old 200) and
    `Time (mean): 56.6 ms ± 21.6 ms`: the series is labelled with the whole command."""
    ((printed, block),) = hf_blocks(HF / "1.15.0" / "long.txt")
    ((command, trial),) = hf_parse(HF / "1.15.0" / "long.json")
    assert len(printed) == 222 and command == printed
    assert_hf_printed(block, trial)
    assert trial.failures is None


def test_hyperfine_non_zero_exits_are_failures() -> None:
    """hyperfine --ignore-failure printed `Warning: Ignoring non-zero exit code.` for both
    commands: the first exits 3 every run, the second 1 on every third run (4 of its 10)."""
    path = HF / "1.15.0" / "failing.json"
    assert (HF / "1.15.0" / "failing.stderr.txt").read_text().count(
        "Warning: Ignoring non-zero exit code.") == 2
    results = json.loads(path.read_text())["results"]
    parsed = hf_parse(path)
    for (command, trial), result, (printed, block) in zip(
            parsed, results, hf_blocks(HF / "1.15.0" / "failing.txt"), strict=True):
        assert command == printed
        assert_hf_printed(block, trial)
        failed = sum(code != 0 for code in result["exit_codes"])
        assert trial.failures is not None
        assert (trial.failures.failed, trial.failures.total) == (failed, 10)
        assert trial.metrics["errors"] == failed
    assert [t.failures.detail for _, t in parsed if t.failures] == [
        "10 of 10 runs exited non-zero (exit code 3 x10)",
        "4 of 10 runs exited non-zero (exit code 1 x4)"]


@pytest.mark.parametrize("name", ["sleep", "failing"])
def test_hyperfine_before_exit_codes_is_read(name: str) -> None:
    """hyperfine 1.11.0 wrote no exit_codes (1.12 added them): its file is read, its exit
    codes unknown (no `errors`, no failures) and a note says so; its statistics are those
    it printed (`Benchmark #1: sleep 0.01`, `Time (mean): 20.3 ms ± 14.7 ms`)."""
    path = HF / "1.11.0" / f"{name}.json"
    assert "exit_codes" not in json.loads(path.read_text())["results"][0]
    parsed = hyperfine.parse(path.read_text(), CONTEXT)
    assert len(parsed.notes) == 1 and "exit_codes" in parsed.notes[0]
    blocks = hf_blocks(HF / "1.11.0" / f"{name}.txt")
    for series, (printed, block) in zip(parsed.series, blocks, strict=True):
        (trial,) = series.trials
        assert series.labels["command"] == printed
        assert_hf_printed(block, trial)
        assert trial.failures is None and "errors" not in trial.metrics


@pytest.mark.parametrize("version", ["1.15.0", "1.11.0"])
def test_hyperfine_stopped_at_a_failure_names_the_error(version: str) -> None:
    """Without --ignore-failure hyperfine stops at the failing command (exit status 1) and
    prints `Error: Command terminated with non-zero exit code: 3` (1.11.0: without the
    code); given that output, the error names it, not a missing key."""
    stderr = HF / version / "aborted.stderr.txt"
    assert (HF / version / "aborted.exit-status").read_text().strip() == "rc=1"
    with pytest.raises(ParseError, match=r"^line 1: hyperfine stopped at a failing command: "
                       r"\"Command terminated with non-zero exit code(: 3)?\. Use"):
        hyperfine.parse(stderr.read_text(), CONTEXT)


def hf_result(change: Any) -> dict[str, Any]:
    document = json.loads((HF / "1.15.0" / "failing.json").read_text())
    change(document["results"][1])
    return dict(document)


@pytest.mark.parametrize(("change", "message"), [
    # the population stddev (n) in place of hyperfine's sample one (n - 1)
    (lambda r: r.update(stddev=statistics.pstdev(r["times"])),
     r"^\$\.results\[1\]\.stddev: .* s is not the sample standard deviation \(n - 1\) of its "
     r"times \(.* s over 10 runs\): the statistics contradict the run's own times$"),
    (lambda r: r.update(median=statistics.fmean(r["times"])),
     r"^\$\.results\[1\]\.median: .* is not the median of its times"),
    (lambda r: r.update(min=r["min"] * 0.9), r"^\$\.results\[1\]\.min: .* is not the least"),
    (lambda r: r.update(max=r["max"] * 1.1), r"^\$\.results\[1\]\.max: .* is not the most"),
    (lambda r: r["times"].__setitem__(0, r["times"][0] * 3),
     r"^\$\.results\[1\]\.(mean|max): .* contradict"),
    (lambda r: r.update(times=r["times"][:1], exit_codes=r["exit_codes"][:1],
                        min=r["times"][0], max=r["times"][0], mean=r["times"][0],
                        median=r["times"][0]),
     r"^\$\.results\[1\]\.stddev: .* for a single run, which has no standard deviation"),
])
def test_hyperfine_statistics_contradicting_times_are_refused(change: Any,
                                                              message: str) -> None:
    with pytest.raises(ParseError, match=message):
        hyperfine.parse(json.dumps(hf_result(change)), CONTEXT)


def test_hyperfine_statistics_as_printed_are_read() -> None:
    """Statistics rounded to 4 significant digits (as a tool rewriting hyperfine's JSON may
    print them) are within what printing moves a number, and kept as written."""
    def rounded(result: dict[str, Any]) -> None:
        for key in ("mean", "stddev", "median", "min", "max"):
            result[key] = float(f"{result[key]:.4g}")
    document = hf_result(rounded)
    trial = hyperfine.parse(json.dumps(document), CONTEXT).series[1].trials[0]
    assert trial.latency.reported is not None
    assert math.isclose(trial.latency.reported.stddev or 0,
                        document["results"][1]["stddev"] * 1e9, rel_tol=1e-12)
