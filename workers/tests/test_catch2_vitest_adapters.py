"""The Catch2 and Vitest bench adapters against the real tools' output
(golden/adapters/catch2/ and vitest-bench/, each folder's README says how the tool made them).
Every golden file found is parsed and compared with what the tool itself printed in the same
run, read here from its console report (Catch2's ConsoleReporter, Vitest's bench table): the
figures stored are the tool's, to the digits it printed; nothing expected is typed in by hand,
and no percentile the tool did not compute is reported. Malformed input is refused as a
ParseError naming the problem."""

import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from latlab_contract.parsers import ParseContext, Parsed, ParseError, adapt, get_parser
from latlab_contract.result import SourceIn, TrialIn

GOLDEN = Path(__file__).parent / "golden" / "adapters"
CONTEXT = ParseContext()
UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def parsed(adapter: str, path: Path) -> Parsed:
    return get_parser(adapter)(path.read_text(), CONTEXT)


def relative(path: Path) -> str:
    return str(path.relative_to(GOLDEN))


def trials_by(result: Parsed, *keys: str) -> dict[tuple[str, ...], list[TrialIn]]:
    return {tuple(s.labels[k] for k in keys): s.trials for s in result.series}


# Catch2 ---------------------------------------------------------------------------------------

CATCH2 = GOLDEN / "catch2"
CATCH2_RUNS = sorted(CATCH2.glob("*/*.xml"))
# A benchmark's rows in Catch2's console report: its name, samples, iterations and estimated
# duration; then mean, low mean, high mean; then std dev, low std dev, high std dev.
C2_VALUE = r"([\d.e+-]+) (ns|us|ms|s)"
C2_FIRST = re.compile(rf"^(\S.*?)\s+(\d+)\s+(\d+)\s+{C2_VALUE}\s*$")
C2_TRIPLE = re.compile(rf"^\s+{C2_VALUE}\s+{C2_VALUE}\s+{C2_VALUE}\s*$")
C2_FAILED = re.compile(r"^(\S.*?)\s+(Benchmark failed \(.*\))\s*$")


def catch2_console(path: Path) -> tuple[list[tuple[str, list[str]]], list[tuple[str, str]]]:
    """The console report of the same run: per measured benchmark (in order) its name and the
    figures printed (samples, iterations, estimated, and with analysis mean, low mean, high
    mean, std dev, low std dev, high std dev, each `value unit`), and the failed ones."""
    lines = path.with_suffix(".txt").read_text().splitlines()
    rows: list[tuple[str, list[str]]] = []
    failed = []
    index = 0
    while index < len(lines):
        line = lines[index]
        if (found := C2_FAILED.match(line)) is not None:
            failed.append((found.group(1), found.group(2)))
        elif (first := C2_FIRST.match(line)) is not None:
            name, samples, iterations, value, unit = first.groups()
            figures = [samples, iterations, f"{value} {unit}"]
            while index + 1 < len(lines) and (more := C2_TRIPLE.match(lines[index + 1])):
                values = more.groups()
                figures += [f"{values[i]} {values[i + 1]}" for i in (0, 2, 4)]
                index += 1
            rows.append((name, figures))
        index += 1
    return rows, failed


def catch2_as_printed(ours: float, printed: str) -> str:
    """Our ns value as Catch2's console prints a duration: in the printed unit, 6 significant
    digits (an ostream's default precision)."""
    unit = printed.split()[1]
    return f"{ours / UNIT_NS[unit]:g} {unit}"


@pytest.mark.parametrize("path", CATCH2_RUNS, ids=relative)
def test_catch2_figures_are_what_its_console_printed(path: Path) -> None:
    result = parsed("catch2", path)
    rows, _ = catch2_console(path)
    trials = [(s.labels["benchmark"], t) for s in result.series for t in s.trials]
    assert [name for name, _ in trials] == [name for name, _ in rows]
    for (name, trial), (_, figures) in zip(trials, rows, strict=True):
        metrics = trial.metrics
        mean = trial.latency.reported.mean if trial.latency.reported else None
        assert mean is not None
        assert f"{metrics['samples']:.0f}" == figures[0], name
        assert f"{metrics['iterations']:.0f}" == figures[1], name
        if len(figures) == 3:  # --benchmark-no-analysis: the row's last column is the mean
            assert catch2_as_printed(mean, figures[2]) == figures[2], name
            assert "stddev_ns" not in metrics and "outlier_variance" not in metrics
            continue
        assert catch2_as_printed(metrics["estimated_duration_ns"], figures[2]) == figures[2]
        ours = [mean, metrics["mean_lower_ns"], metrics["mean_upper_ns"],
                metrics["stddev_ns"], metrics["stddev_lower_ns"], metrics["stddev_upper_ns"]]
        for value, printed in zip(ours, figures[3:], strict=True):
            assert catch2_as_printed(value, printed) == printed, (name, printed)


@pytest.mark.parametrize("path", CATCH2_RUNS, ids=relative)
def test_catch2_reports_its_mean_and_no_percentile(path: Path) -> None:
    result = parsed("catch2", path)
    assert result.gate == ["mean"]
    for item in result.series:
        for trial in item.trials:
            reported = trial.latency.reported
            assert reported is not None
            assert set(reported.model_dump(exclude_none=True)) == {"mean"}
            assert trial.latency.samples_ns == [round(reported.mean or 0.0)]
            assert set(trial.metrics) <= set(result.metric_info)
    names = {name for s in result.series for t in s.trials for name in t.metrics}
    for name in names:
        assert result.metric_info[name].direction == "none"


def test_catch2_no_analysis_keeps_only_what_catch2_computed() -> None:
    for path in sorted(CATCH2.glob("*/no-analysis.xml")):
        result = parsed("catch2", path)
        assert any("--benchmark-no-analysis" in note for note in result.notes)
        for item in result.series:
            (trial,) = item.trials
            assert set(trial.metrics) == {"samples", "iterations", "estimated_duration_ns"}


@pytest.mark.parametrize("path", sorted(CATCH2.glob("*/failing.xml")), ids=relative)
def test_catch2_a_failed_benchmark_is_a_failure_in_catch2s_words(path: Path) -> None:
    _, failed = catch2_console(path)
    assert failed  # the console printed "Benchmark failed (no input file)"
    result = parsed("catch2", path)
    (item,) = result.series
    assert item.labels == {"test_case": "needs input", "benchmark": "checksum 1000 again"}
    failures = item.trials[-1].failures
    assert failures is not None and (failures.failed, failures.total) == (1, 2)
    for name, words in failed:
        assert f"{name}: {words}" in failures.detail
    assert any("failure is on every series" in note for note in result.notes)


def test_catch2_context_is_the_runs() -> None:
    v2 = parsed("catch2", CATCH2 / "2.13.10" / "samples-100.xml").context
    v3 = parsed("catch2", CATCH2 / "3.7.1" / "samples-100.xml").context
    assert v2["executable"] == "checksum_bench" and "tool_version" not in v2
    assert v3["tool_version"] == "3.7.1"
    text = (CATCH2 / "2.13.10" / "samples-100.xml").read_text()
    assert f'clockResolution="{v2["clock_resolution_ns"]:g}"' in text


@pytest.mark.parametrize(("make", "message"), [
    (lambda t: t[: len(t) // 2], r"^line \d+, column \d+: not well-formed XML .*cut short"),
    (lambda t: (CATCH2 / "2.13.10" / "samples-20.txt").read_text(),
     r"^line 1: Catch2's console report, not its XML: run the tests with -r xml"),
    (lambda t: re.sub(r"\s*<mean [^>]*/>", "", t, count=1),
     r"^TestCase\[@name='checksum'\]/BenchmarkResults\[@name='checksum 10'\]: no <mean>"),
    (lambda t: re.sub(r'<mean value="[^"]*"', '<mean value="-3.5"', t, count=1),
     r"/mean/@value: latency -3\.5 ns is outside 0 \.\. 1 h$"),
    (lambda t: re.sub(r'<mean value="[^"]*"', '<mean value="nan"', t, count=1),
     r"/mean/@value: not a finite number"),
    (lambda t: re.sub(r'highSevere="\d+"', 'highSevere="21"', t, count=1),
     r"/outliers: \d+ outliers among 20 samples$"),
    (lambda t: re.sub(r' iterations="\d+"', ' iterations="0"', t, count=1),
     r"/@iterations: 0 is not a count within 1 \.\. "),
    (lambda t: t.replace("<Catch ", '<!DOCTYPE x [<!ENTITY a "b">]><Catch ', 1),
     r"<!DOCTYPE> or <!ENTITY> declaration"),
    (lambda t: "<testsuites><testsuite/></testsuites>", r"^<testsuites>: not Catch2's XML"),
    (lambda t: re.sub(r"<BenchmarkResults.*?</BenchmarkResults>", "", t, flags=re.S),
     r"no BenchmarkResults \(build the tests with CATCH_CONFIG_ENABLE_BENCHMARKING"),
])
def test_catch2_refuses_what_it_cannot_read(make, message) -> None:  # type: ignore[no-untyped-def]
    text = make((CATCH2 / "2.13.10" / "samples-20.xml").read_text())
    with pytest.raises(ParseError, match=message):
        get_parser("catch2")(text, CONTEXT)


def test_catch2_a_file_of_failures_only_is_refused_naming_them() -> None:
    text = re.sub(r'<BenchmarkResults name="checksum 1000 again".*?</BenchmarkResults>', "",
                  (CATCH2 / "3.7.1" / "failing.xml").read_text(), flags=re.S)
    with pytest.raises(ParseError, match=r"no measured benchmark: checksum of a missing file: "
                                         r"Benchmark failed \(no input file\)"):
        get_parser("catch2")(text, CONTEXT)


# Vitest bench ---------------------------------------------------------------------------------

VITEST = GOLDEN / "vitest-bench"
VITEST_RUNS = sorted(VITEST.glob("*/*.json"))
VB_GROUP = re.compile(r"^ ✓ (.+?) \d+ms$")
VB_ROW = re.compile(r"^   · (.+?)\s+((?:\S+\s+){9}\S+)(?:\s+fastest|\s+slowest)?\s*$")
VB_COLUMNS = ("hz", "min", "max", "mean", "p75", "p99", "p995", "p999", "rme", "samples")


def vitest_table(path: Path) -> dict[tuple[str, str], dict[str, str]]:
    """Vitest's console table of the same run: per (group, bench) the figures it printed."""
    rows: dict[tuple[str, str], dict[str, str]] = {}
    group = None
    for line in path.with_suffix(".txt").read_text().splitlines():
        if (found := VB_GROUP.match(line)) is not None:
            group = found.group(1)
        elif (row := VB_ROW.match(line)) is not None:
            assert group is not None
            rows[(group, row.group(1))] = dict(zip(VB_COLUMNS, row.group(2).split(),
                                                   strict=True))
    return rows


def vitest_number(value: float) -> str:
    """Vitest's formatNumber: 4 decimals below 100, else 2, with thousands separators."""
    return f"{value:,.{4 if value < 100 else 2}f}"


def vitest_tabled(path: Path) -> bool:
    return any(VB_ROW.match(line)
               for line in path.with_suffix(".txt").read_text().splitlines())


@pytest.mark.parametrize("path", [p for p in VITEST_RUNS if vitest_tabled(p)], ids=relative)
def test_vitest_figures_are_what_its_table_printed(path: Path) -> None:
    result = parsed("vitest-bench", path)
    table = vitest_table(path)
    ours = trials_by(result, "group", "benchmark")
    measured = {key: row for key, row in table.items() if row["samples"] != "0"}
    assert set(measured) == set(ours)
    if "checksum" in path.name:
        assert len(ours) == 3
    for key, printed in measured.items():
        (trial,) = ours[key]
        reported = trial.latency.reported
        assert reported is not None
        metrics = trial.metrics
        times = {"min": reported.min, "max": reported.max, "mean": reported.mean,
                 "p75": metrics["p75"], "p99": reported.p99, "p995": metrics["p995"],
                 "p999": reported.p999}
        for column, value in times.items():
            assert value is not None
            assert vitest_number(value / 1e6) == printed[column], (key, column)
        assert vitest_number(metrics["hz"]) == printed["hz"], key
        assert f"±{metrics['rme']:.2f}%" == printed["rme"], key
        assert f"{metrics['samples']:.0f}" == printed["samples"], key


@pytest.mark.parametrize("path", VITEST_RUNS, ids=relative)
def test_vitest_summary_is_tinybenchs_and_invents_no_percentile(path: Path) -> None:
    """The JSON's own figures (ms) are the summary, unrounded; p90, p95, p99.99 (which
    tinybench does not compute) are not reported, and the histogram is marked rebuilt."""
    document = json.loads(path.read_text())
    result = parsed("vitest-bench", path)
    assert result.gate == ["hz"]
    ours = trials_by(result, "group", "benchmark")
    for file in document["files"]:
        for group in file["groups"]:
            for bench in group["benchmarks"]:
                if "mean" not in bench:
                    continue
                (trial,) = ours[(group["fullName"], bench["name"])]
                assert trial.latency.rebuilt and trial.latency.hdr is not None
                reported = trial.latency.reported
                assert reported is not None
                assert set(reported.model_dump(exclude_none=True)) == {
                    "min", "max", "mean", "stddev", "p50", "p99", "p999"}
                for key, theirs in (("min", "min"), ("max", "max"), ("mean", "mean"),
                                    ("stddev", "sd"), ("p50", "median"), ("p99", "p99"),
                                    ("p999", "p999")):
                    assert getattr(reported, key) == pytest.approx(bench[theirs] * 1e6,
                                                                   rel=1e-12), key
                assert trial.metrics["hz"] == bench["hz"]
                assert trial.metrics["rme"] == bench["rme"]
                assert trial.metrics["samples"] == bench["sampleCount"]


def test_vitest_32_and_41_print_no_table_for_a_group_with_a_failed_bench() -> None:
    """So their `failing` runs have only the JSON (2.1 prints a row of zeros for it)."""
    assert [p for p in VITEST_RUNS if not vitest_tabled(p)] == [
        VITEST / "3.2.4" / "failing.json", VITEST / "4.1.12" / "failing.json"]
    assert vitest_table(VITEST / "2.1.9" / "failing.json")[
        ("failing.bench.ts > needs input", "reads a missing file")]["samples"] == "0"


@pytest.mark.parametrize("path", sorted(VITEST.glob("*/failing.json")), ids=relative)
def test_vitest_a_bench_without_statistics_is_a_failure(path: Path) -> None:
    result = parsed("vitest-bench", path)
    (item,) = result.series
    assert item.labels == {"group": "failing.bench.ts > needs input",
                           "benchmark": "reads nothing"}
    failures = item.trials[-1].failures
    assert failures is not None and (failures.failed, failures.total) == (1, 2)
    assert "'reads a missing file'" in failures.detail
    assert result.notes


def _vitest_changed(**changes: object) -> str:
    document = json.loads((VITEST / "4.1.12" / "checksum.json").read_text())
    document["files"][0]["groups"][1]["benchmarks"][0].update(changes)
    return json.dumps(document)


@pytest.mark.parametrize(("make", "message"), [
    (lambda: (VITEST / "4.1.12" / "checksum.json").read_text()[:900],
     r"^line \d+: not JSON"),
    (lambda: (VITEST / "4.1.12" / "checksum.txt").read_text(),
     r"^line 1: Vitest's console table, not its JSON: run `vitest bench --run --outputJson"),
    (lambda: _vitest_changed(hz=1.0),
     r"^\$\.files\[0\]\.groups\[1\]\.benchmarks\[0\]\.hz: 1 is not 1000 / mean"),
    (lambda: _vitest_changed(p99=1000.0),
     r"\.benchmarks\[0\]\.p99: 1000 ms is above its p995"),
    (lambda: _vitest_changed(min=-0.001),
     r"\.benchmarks\[0\]\.min: latency -0\.001 ms is outside 0 \.\. 1 h$"),
    (lambda: _vitest_changed(sampleCount=0),
     r"\.benchmarks\[0\]\.sampleCount: 0 is not a count within 1"),
    (lambda: _vitest_changed(sd=1.0), r"\.benchmarks\[0\]\.sd: 1 ms is not the square root"),
    (lambda: _vitest_changed(name=" "), r"\.benchmarks\[0\]\.name: an empty name"),
    (lambda: json.dumps({"files": []}), r"^\$\.files: no benchmark results$"),
    (lambda: json.dumps({"testResults": []}), r"^\$\.files: missing$"),
])
def test_vitest_refuses_what_it_cannot_read(make, message) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ParseError, match=message):
        get_parser("vitest-bench")(make(), CONTEXT)


def test_vitest_a_file_of_failures_only_is_refused_naming_them() -> None:
    document = json.loads((VITEST / "4.1.12" / "failing.json").read_text())
    benches = document["files"][0]["groups"][0]["benchmarks"]
    benches[:] = [b for b in benches if "mean" not in b]
    with pytest.raises(ParseError, match=r"no bench was measured: Vitest wrote no statistics "
                                         r"for 'reads a missing file'"):
        get_parser("vitest-bench")(json.dumps(document), CONTEXT)


# Both through the registry: a `latlab.result/v1` run, several files several trials.

@pytest.mark.parametrize(("adapter", "files"), [
    ("catch2", ["2.13.10/samples-100.xml", "2.13.10/samples-20.xml"]),
    ("vitest-bench", ["4.1.12/checksum.json", "3.2.4/checksum.json"]),
])
def test_the_registry_makes_runs_of_them(adapter: str, files: list[str]) -> None:
    folder = CATCH2 if adapter == "catch2" else VITEST
    run = adapt(adapter, [(name, (folder / name).read_text()) for name in files],
                suite="s", scenario="ci", started_at=datetime(2026, 1, 1, tzinfo=UTC),
                source=SourceIn(kind="ci"))
    assert run.params == {"adapter": adapter}
    assert len(run.series) == 3
    assert all(len(item.trials) == 2 for item in run.series)
    assert run.gate == (["mean"] if adapter == "catch2" else ["hz"])
