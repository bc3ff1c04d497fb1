"""The libtest (`cargo bench`) adapter against the real tool's output (golden/adapters/libtest/,
its README says how each file was made). The console files are checked line by line against
what libtest printed (the stored figures, printed back as libtest prints them, are the line's);
the JSON files against libtest's own `--logfile` of the same run, which renders the same
results with its console formatter. Nothing expected is typed in by hand."""

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from latlab_contract.parsers import ParseContext, Parsed, ParseError, adapt, get_parser
from latlab_contract.result import SourceIn

GOLDEN = Path(__file__).parent / "golden" / "adapters" / "libtest"
CONSOLE = sorted(path for path in GOLDEN.glob("*/*.txt")
                 if not path.name.endswith((".stderr.txt", "-json.txt")))
JSON = sorted(GOLDEN.glob("*/*-json.txt"))
# A bench line as libtest prints it: `test NAME ... bench: MEDIAN ns/iter (+/- RANGE)`, then
# ` = N MB/s` with b.bytes set; in its --logfile: `MEDIAN ns/iter (+/- RANGE)... NAME`.
PRINTED = re.compile(
    r"^test (\S+)\s+\.\.\. bench:\s+(\S+) ns/iter \(\+/- (\S+)\)(?: = (\d+) MB/s)?$")
LOGGED = re.compile(r"^\s*(\S+) ns/iter \(\+/- (\S+)\)(?: = (\d+) MB/s)? (\S+)$")


def parsed(path: Path) -> Parsed:
    return get_parser("libtest")(path.read_text(), ParseContext())


def relative(path: Path) -> str:
    return str(path.relative_to(GOLDEN))


def as_printed(value: float, like: str) -> str:
    """Our value as libtest prints one: two decimals from Rust 1.80 on, whole (truncated)
    before, with thousands separators."""
    return f"{value:,.2f}" if "." in like else f"{int(value):,}"


def figures(result: Parsed) -> dict[str, list[tuple[str, float, float, float | None]]]:
    """Per bench, every trial's (target, median, range, MB/s), in order."""
    found: dict[str, list[tuple[str, float, float, float | None]]] = {}
    for series in result.series:
        for trial in series.trials:
            found.setdefault(series.labels["benchmark"], []).append((
                series.labels.get("target", ""), trial.metrics["ns_per_iter"],
                trial.metrics["deviation"], trial.metrics.get("MB_per_s")))
    return found


@pytest.mark.parametrize("path", CONSOLE, ids=relative)
def test_console_figures_are_the_lines_libtest_printed(path: Path) -> None:
    printed = [found.groups() for line in path.read_text().splitlines()
               if (found := PRINTED.match(line))]
    assert printed, "every console golden file has bench lines"
    ours = figures(parsed(path))
    seen = {name: 0 for name in ours}
    for name, median, spread, rate in printed:
        _, our_median, our_spread, our_rate = ours[name][seen[name]]
        seen[name] += 1
        assert as_printed(our_median, median) == median
        assert as_printed(our_spread, spread) == spread
        assert our_rate == (None if rate is None else float(rate))
    assert seen == {name: len(trials) for name, trials in ours.items()}


@pytest.mark.parametrize("path", JSON, ids=relative)
def test_json_figures_are_those_of_libtests_logfile_of_the_same_run(path: Path) -> None:
    logged = [found.groups() for line in path.with_suffix(".log").read_text().splitlines()
              if (found := LOGGED.match(line))]
    ours = figures(parsed(path))
    assert sorted(name for *_, name in logged) == sorted(ours)
    for median, spread, rate, name in logged:
        ((_, our_median, our_spread, our_rate),) = ours[name]
        assert (f"{our_median:,.2f}", f"{our_spread:,.2f}") == (median, spread)
        assert our_rate == (None if rate is None else float(rate))


@pytest.mark.parametrize("path", CONSOLE + JSON, ids=relative)
def test_a_trial_is_its_one_figure_the_median(path: Path) -> None:
    for series in parsed(path).series:
        for trial in series.trials:
            median = trial.metrics["ns_per_iter"]
            assert trial.latency.samples_ns == [round(median)]
            assert trial.latency.reported is not None
            assert trial.latency.reported.p50 == trial.latency.reported.p99 == median


@pytest.mark.parametrize("name", ["failing.txt", "failing-terse.txt", "failing-json.txt"])
def test_a_bench_that_panicked_is_a_failure_of_its_run_naming_it_and_why(name: str) -> None:
    path = GOLDEN / "1.97.0-nightly" / name
    (series,) = parsed(path).series
    assert series.labels == {"benchmark": "parse_number"}
    failures = series.trials[-1].failures
    assert failures is not None and (failures.failed, failures.total) == (1, 2)
    # what libtest said failed (its summary's list, and its --logfile for the JSON run) ...
    text = path.read_text()
    failed = (re.findall(r"^failed (\S+)$", path.with_suffix(".log").read_text(), re.M)
              if name.endswith("-json.txt") else
              re.findall(r"^failures:\n((?:    \S+\n)+)", text, re.M)[0].split())
    assert failed == ["reads_missing_file"]
    # ... and the panic's message, as it printed it
    assert failures.detail is not None and "reads_missing_file" in failures.detail
    assert "the orders file: Os { code: 2, kind: NotFound" in failures.detail


def test_cargos_running_lines_name_each_bench_target_and_failures_stay_in_their_target() -> None:
    result = parsed(GOLDEN / "1.97.0-nightly" / "all.txt")
    targets = {series.labels["benchmark"]: series.labels["target"] for series in result.series}
    assert targets == {"checksum_1000_bytes": "benches/checksum.rs",
                       "checksum_10_bytes": "benches/checksum.rs",
                       "vec_push_100": "benches/checksum.rs",
                       "parse_number": "benches/failing.rs"}
    failed = {series.labels["benchmark"] for series in result.series
              if series.trials[-1].failures is not None}
    assert failed == {"parse_number"}
    assert result.gate == ["ns_per_iter"]
    assert result.metric_info["MB_per_s"].direction == "higher"


def test_runs_in_one_file_are_repetitions_and_files_are_trials() -> None:
    text = (GOLDEN / "1.97.0-nightly" / "checksum.txt").read_text()
    again = (GOLDEN / "1.95.0" / "checksum.txt").read_text()
    joined = get_parser("libtest")(text + again, ParseContext())
    assert {len(series.trials) for series in joined.series} == {2}
    run = adapt("libtest", [("a", text), ("b", again), ("c", again)], suite="s", scenario="ci",
                started_at=datetime(2026, 1, 1, tzinfo=UTC), source=SourceIn(kind="ci"))
    assert run.gate == ["ns_per_iter"]
    assert {len(series.trials) for series in run.series} == {3}
    assert run.metric_info["ns_per_iter"].unit == "ns/iter"


@pytest.mark.parametrize(("text", "expected"), [
    ("", "no libtest bench results"),
    ("running 1 test\ntest a ... bench:   12 ns/iter\n", "line 2: not a libtest bench result"),
    ("running 1 test\ntest a ... bench:   x ns/iter (+/- 1)\n", "line 2: not a libtest bench"),
    ('{ "type": "suite", "event": "started", "test_count": 1 }\n'
     '{ "type": "bench", "name": 5, "median": 1, "deviation": 1 }\n', "line 2.name: expected str"),
    ('{ "type": "bench", "name": "a", "deviation": 1 }\n', "line 1.median: missing"),
    ('{ "type": "bench", "name": "a", "median": -1, "deviation": 1 }\n', "outside 0 .. 1 h"),
    ('{ "type": "bench", "name": "a", "median": 1, "deviation": -1 }\n', "a negative range"),
    ('{ "type": "bench", "name": "a", "median": 1, "deviation": 1\n', "line 1: not JSON"),
    ("running 1 test\ntest a ... FAILED\n\nfailures:\n\n---- a stdout ----\nthe bench's own "
     "print\nthread 'main' panicked at src/lib.rs:1:1:\nboom\n",
     "no bench was measured: failed a (boom)"),
    ("running 1 test\ntest a ... FAILED\n\nfailures:\n\n---- a stdout ----\nthread 'main' "
     "panicked at 'boom', src/lib.rs:1:1\n", "no bench was measured: failed a (boom)"),
])
def test_bad_output_is_refused_naming_the_line(text: str, expected: str) -> None:
    with pytest.raises(ParseError, match=re.escape(expected)):
        get_parser("libtest")(text, ParseContext())
