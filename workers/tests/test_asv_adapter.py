"""The asv adapter against the real tool's results (golden/adapters/asv/, its README says how
asv made them). Every results file is parsed and compared with what asv itself printed of the
same results: `asv run`'s console report of the run (`<name>.run.txt`) and `asv show
--details` (`<name>.show.txt`: the median±err, repeat, number, 99 % interval and samples).
asv's own formatting of numbers is rebuilt here from asv's source (`human_time`,
`human_float`, `human_file_size`), so the figures stored are asv's to the digits it printed;
which benchmarks there are, their kinds and their params are read from asv's
`benchmarks.json` of the same run, never from the parser. Malformed input:
test_asv_malformed.py."""

import ast
import itertools
import json
import math
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from asv_support import GOLDEN, parsed, relative

from latlab_contract.hdr import decode
from latlab_contract.parsers import Parsed, adapt
from latlab_contract.result import SourceIn, TrialIn

RUNS = sorted(p for p in GOLDEN.glob("[0-9]*/*.json")
              if p.name not in ("benchmarks.json", "machine.json"))


# asv's formatting (asv_runner/util.py `human_float`, `human_time`; asv/util.py
# `human_file_size`), to compare figures as asv printed them.

TIME_UNITS = (("ns", 1e-9), ("μs", 1e-6), ("ms", 1e-3), ("s", 1), ("m", 60), ("h", 3600),
              ("d", 86400), ("w", 604800))


def asv_float(value: float, significant: int, truncate_small: int | None = None,
              significant_zeros: bool = False) -> str:
    if value == 0:
        return "0"
    if math.isinf(value) or math.isnan(value):
        return f"{value}"
    sign = "-" if value < 0 else ""
    value = abs(value)
    magnitude = math.floor(math.log10(value)) + 1
    if truncate_small is not None:
        magnitude = max(magnitude, -truncate_small + 1)
    digits = significant - magnitude
    if magnitude <= -5 or magnitude >= 9:
        text = sign + f"{value:.{significant}e}"
    elif value == int(value) or digits <= 0:
        text = sign + str(int(round(value, digits)))
    else:
        text = sign + f"{value:.{digits}f}"
    if not significant_zeros and "." in text and "e" not in text:
        text = text.rstrip("0").removesuffix(".")
    if significant_zeros and "." not in text and len(text) < significant:
        text += "." + "0" * (significant - len(text))
    return text


def asv_time(seconds: float, err: float | None = None) -> str:
    units: tuple[tuple[str, float], ...] = TIME_UNITS
    scale = seconds if seconds != 0 or err is None else err
    if scale == 0:
        units = (("s", 1), ("m", 60))
    for (unit, size), (_, bigger) in itertools.pairwise(units):
        if scale < bigger:
            text = asv_float(seconds / size, 3, significant_zeros=True)
            if err is None:
                return f"{text}{unit}"
            return f"{text}±{asv_float(err / size, 1, truncate_small=2)}{unit}"
    return "~0"


def asv_size(size: float) -> str:
    size = size if size >= 1 else 0.0
    power = 0 if size == 0 else math.floor(math.log(size) / math.log(1000))
    return asv_float(size / 1000**power, 3) + " kMGTPEH"[power].strip()


# What asv printed ---------------------------------------------------------------------------

RUN_LINE = re.compile(r"^\[\s*[\d.]+%\] ··· (\S+)\s+(\S.*?)\s*$")
SHOW_HEADER = re.compile(r"^(\S+) \[\S+\]$")
PAIR = re.compile(r"\(([^,()]+), ([^,()]+)\)")


def border(line: str, marks: str = "=") -> bool:
    """A line of a table's rule (`=====`; with `marks="=-"` also `-----`)."""
    drawn = line.split("··· ")[-1].strip()
    return bool(drawn) and set(drawn) <= {*marks, " "}


def cells(first: str, table: list[str]) -> list[str]:
    """A benchmark's printed results in asv's order: its one value, or its table's cells row
    by row (the rows between the table's last two rules, each after its row's param)."""
    if not table:
        return [first]
    rules = [i for i, line in enumerate(table) if border(line, "=-")]
    rows = table[rules[-2] + 1:rules[-1]]
    return [cell for row in rows for cell in row.split()[1:]]


def console(path: Path) -> dict[str, list[str]]:
    """`asv run`'s report: each benchmark's printed results."""
    lines = path.with_suffix(".run.txt").read_text().splitlines()
    printed = {}
    for index, line in enumerate(lines):
        found = RUN_LINE.match(line)
        if found is None or found.group(1) == "Running" or border(line):
            continue
        table = list(itertools.takewhile(str.strip, lines[index + 1:]))
        printed[found.group(1)] = cells(found.group(2), table if table and border(
            table[0]) else [])
    return printed


def shown(path: Path) -> dict[str, dict[str, Any]]:
    """`asv show --details`: each benchmark's printed results (`cells`) and details."""
    blocks: dict[str, list[str]] = {}
    for line in path.with_suffix(".show.txt").read_text().splitlines():
        if (header := SHOW_HEADER.match(line)) is not None:
            blocks[header.group(1)] = []
        elif blocks and line.startswith("  "):
            blocks[list(blocks)[-1]].append(line[2:])
    printed: dict[str, dict[str, Any]] = {}
    for name, block in blocks.items():
        table = [line for line in block[1:] if ":" not in line]
        details = dict(line.split(": ", 1) for line in block[1:] if ": " in line)
        printed[name] = {"cells": cells(block[0], table),
                         "repeat": details.get("repeat", "").split(", "),
                         "number": details.get("number", "").split(", "),
                         "ci_99": PAIR.findall(details.get("ci_99", "")),
                         "samples": ast.literal_eval(details.get("samples", "None"))}
    return printed


def benchmarks(path: Path) -> dict[str, dict[str, Any]]:
    """asv's own list of the run's benchmarks (results/benchmarks.json)."""
    listed = json.loads((path.parent / "benchmarks.json").read_text())
    return {name: item for name, item in listed.items() if name != "version"}


def combinations(item: dict[str, Any]) -> list[tuple[str, ...]]:
    return list(itertools.product(*item["params"]))


def as_printed(name: str, combo: tuple[str, ...]) -> str:
    return f"{name}({', '.join(combo)})" if combo else name


def series_of(result: Parsed) -> dict[tuple[str, ...], TrialIn]:
    found = {}
    for item in result.series:
        (trial,) = item.trials
        params = tuple(item.labels[f"param{i}"] for i in range(1, len(item.labels)))
        found[(item.labels["benchmark"], *params)] = trial
    return found


def value_metrics(result: Parsed) -> dict[str, str]:
    """The track_/mem_/peakmem_ metrics by the name asv prints (their label)."""
    return {spec.label or "": key for key, spec in result.metric_info.items()
            if spec.unit in ("B", "unit")}


# The figures --------------------------------------------------------------------------------

def assert_printed(result: Parsed, path: Path, printed: dict[str, list[str]]) -> None:
    """Each benchmark's results as asv printed them: a timed one's median±err (err = half its
    quartiles' distance), a size, a tracked value, "failed", "n/a"."""
    ours = series_of(result)
    values = value_metrics(result)
    listed = benchmarks(path)
    assert set(printed) == set(listed)
    for name, item in listed.items():
        for combo, cell in zip(combinations(item), printed[name], strict=True):
            trial = ours.get((name, *combo))
            display = as_printed(name, combo)
            if cell in ("failed", "n/a"):
                assert trial is None and display not in values
                continue
            if item["type"] == "time":
                assert trial is not None, display
                reported = trial.latency.reported
                assert reported is not None and reported.p50 is not None
                err = (trial.metrics["q_75_ns"] - trial.metrics["q_25_ns"]) / 2 / 1e9
                assert asv_time(reported.p50 / 1e9, err) == cell, display
                continue
            value = result.series[0].trials[0].metrics[values[display]]
            shown_value = asv_size(value) if item["unit"] == "bytes" else f"{value:g}"
            assert shown_value == cell, display
            assert all(s.trials[0].metrics[values[display]] == value for s in result.series)


@pytest.mark.parametrize("path", RUNS, ids=relative)
def test_figures_are_what_asv_run_printed(path: Path) -> None:
    assert_printed(parsed(path), path, console(path))


@pytest.mark.parametrize("path", RUNS, ids=relative)
def test_figures_are_what_asv_show_printed(path: Path) -> None:
    printed = shown(path)
    result = parsed(path)
    assert_printed(result, path, {name: item["cells"] for name, item in printed.items()})
    ours = series_of(result)
    for name, item in benchmarks(path).items():
        if item["type"] != "time":
            continue
        details = printed[name]
        for index, combo in enumerate(combinations(item)):
            trial = ours.get((name, *combo))
            if trial is None:  # failed or skipped: asv prints None, or no details at all
                assert details["repeat"] == [""] or details["repeat"][index] == "None"
                continue
            metrics = trial.metrics
            assert f"{metrics['repeat']:.0f}" == details["repeat"][index]
            assert f"{metrics['number']:.0f}" == details["number"][index]
            lower, upper = details["ci_99"][index]
            if "inf" in lower:  # one sample: asv has no interval ((-infns, ~0))
                assert "ci_99_lower_ns" not in metrics and "ci_99_upper_ns" not in metrics
            else:
                assert asv_time(metrics["ci_99_lower_ns"] / 1e9) == lower
                assert asv_time(metrics["ci_99_upper_ns"] / 1e9) == upper
            taken = details["samples"]
            if taken is None:
                assert trial.latency.rebuilt and trial.latency.hdr is not None
            else:
                assert not trial.latency.rebuilt
                assert trial.latency.samples_ns == [round(s * 1e9) for s in taken[index]]


@pytest.mark.parametrize("path", RUNS, ids=relative)
def test_a_rebuilt_latency_holds_asvs_points_at_their_nearest_ranks(path: Path) -> None:
    """Without samples, `repeat` values with asv's q_25, median and q_75 (as printed in the
    file, 5 digits) at their nearest ranks; the summary is asv's median only."""
    document = json.loads(path.read_text())
    columns = document["result_columns"]
    for item in parsed(path).series:
        (trial,) = item.trials
        if not trial.latency.rebuilt:
            continue
        assert trial.latency.reported is not None
        assert trial.latency.reported.model_dump(exclude_none=True).keys() == {"p50"}
        assert trial.latency.hdr is not None
        histogram = decode(trial.latency.hdr)
        row = dict(zip(columns, document["results"][item.labels["benchmark"]], strict=False))
        params = [item.labels[f"param{i}"] for i in range(1, len(item.labels))]
        index = next(i for i, combo in enumerate(itertools.product(*row["params"]))
                     if list(combo) == params)
        assert histogram.get_total_count() == row["stats_repeat"][index]
        for q, value in ((25, row["stats_q_25"][index]), (50, row["result"][index]),
                         (75, row["stats_q_75"][index])):
            assert histogram.get_value_at_percentile(q) == pytest.approx(value * 1e9,
                                                                         rel=2e-3), q


@pytest.mark.parametrize("path", RUNS, ids=relative)
def test_failed_and_skipped_results_as_asv_printed_them(path: Path) -> None:
    """"failed" (null) is a failure of the run, on every series; "n/a" (NaN, skipped) is a
    note and no failure."""
    printed = shown(path)
    listed = benchmarks(path)
    failed, skipped, attempted = [], [], 0
    for name, item in listed.items():
        for combo, cell in zip(combinations(item), printed[name]["cells"], strict=True):
            if cell == "n/a":
                skipped.append(as_printed(name, combo))
                continue
            attempted += 1
            if cell == "failed":
                failed.append(as_printed(name, combo))
    assert failed and skipped  # the golden runs have both
    result = parsed(path)
    assert result.gate == ["p50"]
    for item in result.series:
        failures = item.trials[-1].failures
        assert failures is not None
        assert (failures.failed, failures.total) == (len(failed), attempted)
        assert all(name in failures.detail for name in failed)
    assert any(all(name in note for name in skipped) and "skipped" in note
               for note in result.notes)


@pytest.mark.parametrize("path", RUNS, ids=relative)
def test_kinds_and_units_are_asvs(path: Path) -> None:
    """Timed benchmarks (asv: type time, unit seconds) are series; the others metrics in
    asv's unit (bytes) or, for a track_, asv's default name, `unit`."""
    result = parsed(path)
    timed = {item.labels["benchmark"] for item in result.series}
    values = value_metrics(result)
    for name, item in benchmarks(path).items():
        if item["type"] == "time":
            assert item["unit"] == "seconds"
            continue
        assert name not in timed
        spec = result.metric_info[values[name]]
        assert spec.unit == ("B" if item["unit"] == "bytes" else "unit")
        assert spec.direction == "lower"


def test_the_context_is_asvs_machine() -> None:
    path = GOLDEN / "0.6.6" / "fast.json"
    context = parsed(path).context
    machine = json.loads((GOLDEN / "0.6.6" / "machine.json").read_text())
    document = json.loads(path.read_text())
    assert context["cpu_model"] == machine["cpu"]
    assert context["cpu_count"] == int(machine["num_cpu"])
    assert context["machine"] == machine["arch"]
    assert context["asv_commit"] == document["commit_hash"]
    assert context["asv_env"] == document["env_name"]


def test_no_samples_and_one_sample_are_noted() -> None:
    rebuilt = parsed(GOLDEN / "0.6.6" / "fast-no-samples.json").notes
    assert any("--record-samples" in note for note in rebuilt)
    quick = parsed(GOLDEN / "0.6.6" / "slow-quick.json").notes
    assert any("--quick" in note and "no confidence interval" in note for note in quick)


# Through the registry: a `latlab.result/v1` run, several files several trials.

def test_the_registry_makes_a_run_of_two_commits() -> None:
    files = [GOLDEN / "0.6.6" / "fast.json", GOLDEN / "0.6.6" / "slow.json"]
    run = adapt("asv", [(relative(p), p.read_text()) for p in files], suite="s",
                scenario="ci", started_at=datetime(2026, 1, 1, tzinfo=UTC),
                source=SourceIn(kind="ci"))
    assert run.params == {"adapter": "asv"}
    assert run.gate == ["p50"]
    assert len(run.series) == 5
    assert all(len(item.trials) == 2 for item in run.series)
    assert run.metric_info["benchmarks.peakmem_table"].unit == "B"
    assert run.harness is not None and run.harness.notes
