"""The gungraun (iai-callgrind) adapter against the real tool's summaries
(golden/adapters/gungraun/, its README says how they were made). Each run's counts are checked
against the table gungraun printed in the same run (`<run>.txt`: its own rendering of the
counts it wrote), and its `--callgrind-limits` verdict against the "Regressions:" it printed.
Nothing expected is typed in by hand."""

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from latlab_contract.parsers import ParseContext, Parsed, ParseError, adapt, get_parser
from latlab_contract.parsers.registry import read_output
from latlab_contract.result import SourceIn

GOLDEN = Path(__file__).parent / "golden" / "adapters" / "gungraun"
RUNS = sorted(path for path in GOLDEN.glob("0.2*/*") if path.is_dir())
# The console's rows, by the metric the adapter stores each as.
ROWS = {"Instructions": "instructions", "L1 Hits": "L1_hits", "LL Hits": "LL_hits",
        "RAM Hits": "RAM_hits", "Total read+write": "total_read_write",
        "Estimated Cycles": "estimated_cycles"}
HEADER = re.compile(r"^(\S+::\S+)(?: (\S+?):.*)?$")
ROW = re.compile(r"^  ([A-Za-z0-9+ ]+):\s+(\d+)\|")


def parsed(run: Path) -> Parsed:
    return get_parser("gungraun")(read_output("gungraun", run), ParseContext())


def relative(path: Path) -> str:
    return str(path.relative_to(GOLDEN))


def console(run: Path) -> dict[tuple[str, ...], dict[str, float]]:
    """Per benchmark (module path, and id) the `new` counts gungraun printed (none for one
    that panicked: its name, then the error)."""
    printed: dict[tuple[str, ...], dict[str, float]] = {}
    current: tuple[str, ...] | None = None
    for line in run.with_suffix(".txt").read_text().splitlines():
        if (header := HEADER.match(line)) is not None:
            current = tuple(part for part in header.groups() if part)
            printed[current] = {}
        elif current is not None and (row := ROW.match(line)) is not None:
            printed[current][ROWS[row.group(1)]] = float(row.group(2))
    return {key: rows for key, rows in printed.items() if rows}


@pytest.mark.parametrize("run", RUNS, ids=relative)
def test_counts_are_those_gungraun_printed_in_the_same_run(run: Path) -> None:
    ours = {tuple(series.labels.values()): series.trials[0].metrics
            for series in parsed(run).series}
    printed = console(run)
    assert set(ours) == set(printed)
    for key, rows in printed.items():
        assert len(rows) == len(ROWS)
        assert {name: ours[key][name] for name in rows} == rows


@pytest.mark.parametrize("run", RUNS, ids=relative)
def test_the_latency_is_callgrinds_wall_time_and_every_run_says_so(run: Path) -> None:
    result = parsed(run)
    walls = {}
    for path in run.rglob("summary.json"):
        summary = json.loads(path.read_text())
        (profile,) = summary["profiles"]
        walls[summary["module_path"], summary.get("id")] = profile["duration_ns"]
    for series in result.series:
        (trial,) = series.trials
        wall = walls[series.labels["benchmark"], series.labels.get("id")]
        assert trial.latency.samples_ns == [wall]
    assert "Callgrind's wall time" in result.notes[0]
    assert result.gate == ["instructions"]
    assert result.metric_info["instructions"].direction == "lower"
    assert not any(name.endswith("Rate") for name in result.metric_info)


def test_gungraun_limits_verdict_is_a_note_as_it_printed_it() -> None:
    run = GOLDEN / "0.20.0" / "slow-limits"
    printed = re.findall(r"Callgrind: Instructions \((\d+) -> (\d+)\): \+([\d.]+)% exceeds",
                         run.with_suffix(".txt").read_text())
    assert len(printed) == 2
    (note,) = [note for note in parsed(run).notes if "gungraun's own limits" in note]
    for old, new, percent in printed:
        assert f"Ir ({old} -> {new}): +{float(percent):.2f} %" in note
    assert not any("own limits" in note for note in parsed(GOLDEN / "0.20.0" / "slow-1").notes)


def test_a_benchmark_that_panicked_wrote_no_summary_and_is_missing() -> None:
    run = GOLDEN / "0.20.0" / "failing"
    printed = run.with_suffix(".txt").read_text()
    assert "failing::needs_input::reads_missing_file" in printed  # started, then panicked
    (series,) = parsed(run).series
    assert series.labels == {"benchmark": "failing::needs_input::parse_number"}


def test_summaries_of_several_runs_are_trials_of_their_benchmarks() -> None:
    outputs = [(run.name, read_output("gungraun", run))
               for run in (GOLDEN / "0.20.0" / name for name in ("fast-1", "fast-2", "slow-1"))]
    made = adapt("gungraun", outputs, suite="s", scenario="ci",
                 started_at=datetime(2026, 1, 1, tzinfo=UTC), source=SourceIn(kind="ci"))
    assert made.gate == ["instructions"]
    counts = {tuple(sorted(series.labels.items())):
              [trial.metrics["instructions"] for trial in series.trials]
              for series in made.series}
    assert len(counts) == 3 and all(len(values) == 3 for values in counts.values())
    # counts barely move between runs of one build (the same, or one instruction apart) and
    # move with the code (the `slow` feature's second pass over the bytes)
    ten = counts[(("benchmark", "checksum::checksums::fnv1a_bytes"), ("id", "ten_bytes"))]
    assert ten[0] == ten[1] < ten[2]


def test_one_summary_file_is_read_alone() -> None:
    (path,) = (GOLDEN / "0.20.0" / "fast-1").rglob("vec_push_100/summary.json")
    (series,) = get_parser("gungraun")(path.read_text(), ParseContext()).series
    assert series.labels == {"benchmark": "checksum::checksums::vec_push_100"}


def _summary(**changes: object) -> str:
    (path,) = (GOLDEN / "0.20.0" / "fast-1").rglob("vec_push_100/summary.json")
    summary = json.loads(path.read_text())
    summary.update(changes)
    return json.dumps(summary)


def _with_ir(value: object) -> str:
    summary = json.loads(_summary())
    summary["profiles"][0]["data"]["total"]["metrics"]["Ir"]["values"]["new"] = value
    return json.dumps(summary)


@pytest.mark.parametrize(("text", "expected"), [
    ("checksum::checksums::vec_push_100\n  Instructions: 2462|N/A", "not a gungraun summary"),
    ("[]", "$: no summaries"),
    (_summary(version="4"), "$.version: summary format '4' (iai-callgrind, gungraun before"),
    (_summary(profiles=[]), "$.profiles: no Callgrind profile"),
    (_summary(module_path=""), "$.module_path: an empty name"),
    (_with_ir(-1), "$.profiles[0].data.total.metrics.Ir.values.new: -1 is negative"),
    (_with_ir(2462.5), "$.profiles[0].data.total.metrics.Ir: missing"),  # a rate, not a count
    (_with_ir("2462"), "Ir.values.new: expected"),
])
def test_bad_input_is_refused_naming_the_json_path(text: str, expected: str) -> None:
    with pytest.raises(ParseError, match=re.escape(expected)):
        get_parser("gungraun")(text, ParseContext())


def test_a_directory_without_summaries_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ParseError, match=re.escape("no summary.json")):
        read_output("gungraun", tmp_path)


@pytest.mark.parametrize("run", sorted(path for path in (GOLDEN / "0.16.1").iterdir()
                                        if path.is_dir()), ids=relative)
def test_iai_callgrinds_summaries_record_no_time_and_are_refused_saying_so(run: Path) -> None:
    for path in run.rglob("summary.json"):
        assert "duration_ns" not in path.read_text()  # what makes them unreadable as trials
    with pytest.raises(ParseError, match=re.escape("format '6' (iai-callgrind, gungraun before "
                                                   "0.20) records no time")):
        parsed(run)
