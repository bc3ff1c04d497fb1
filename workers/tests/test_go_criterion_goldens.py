"""The go-bench and criterion adapters against more versions of the tools and the tools' own
repositories' files: `go test -bench` text of Go 1.21, 1.22 and 1.26 and from golang.org/x/perf
and Go's test2json test data (golden/adapters/go-bench/*/), Criterion.rs 0.3.6, 0.4.0, 0.5.1
runs with Criterion's console output, and the example report in Criterion.rs's user guide
(golden/adapters/criterion/*/). Every golden file found is read, and the numbers expected are
read from the tool's own output here, by rules of the tool's format, never from the adapter:
go test's result lines (golang.org/design/14313-benchmark-format), Criterion's `sample.json`
(`times / iters`), `estimates.json` and what it printed (`time: [low estimate high]` on the
console, the estimates table of its HTML report)."""

import csv
import functools
import io
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from latlab_contract.fields import HIGHEST_NS
from latlab_contract.parsers import ParseContext, Parsed, ParseError, criterion, go_bench
from latlab_contract.result import SeriesIn

GOLDEN = Path(__file__).parent / "golden" / "adapters"
CONTEXT = ParseContext()
Labels = tuple[tuple[str, str], ...]

# --- go test -bench -------------------------------------------------------------------------

GO = GOLDEN / "go-bench"
# The golden files of go-bench's folders (fast.txt and slow.txt at the top are
# test_adapters.py's), without the benchmarks' sources and the READMEs.
GO_FILES = sorted(path for path in GO.glob("*/**/*")
                  if path.is_file() and path.name != "README.md"
                  and "source" not in path.relative_to(GO).parts)
# A benchmark's name in go test's output: "Benchmark", then the end of the name or a
# character that is not lower case (the format's rule), then the GOMAXPROCS suffix if not 1.
NAME = re.compile(r"^(Benchmark(?:[^a-z\s]\S*)?)$")
PROCS = re.compile(r"^(.+)-(\d+)$")
# The results of a benchmark whose own output came between its name and its results: go test
# prints the name, runs the benchmark, then prints the results (iterations first).
CONTINUED = re.compile(r"^\s+(\d+)\s+(\S.*)$")
# A configuration line: a lower-case key without spaces, a colon, blanks and the value.
CONFIGURATION = re.compile(r"^([a-z][^\sA-Z:]*):(?:[ \t]+(.*))?$")


@dataclass
class GoResult:
    line: int
    labels: Labels
    iterations: int
    pairs: list[tuple[str, str]]  # (value, unit) as printed


@dataclass
class GoReading:
    results: list[GoResult] = field(default_factory=list)
    refused: tuple[int, str] | None = None  # the first result latlab cannot take, and why


def read_go(text: str) -> GoReading:
    """go test -bench output read by the format's rules: `key: value` configuration lines
    apply to the results after them (`pkg` is the package; a key whose value changes within
    the file tells results apart, as it does for benchstat: different goarch, a user's
    `tags: fast`), result lines `BenchmarkName[-procs] iterations value unit [value unit
    ...]`, and a name printed alone or followed by the benchmark's own output, whose results
    come on a later line."""
    reading = GoReading()
    configuration: dict[str, str] = {}
    configured: list[dict[str, str]] = []  # each result's configuration
    pending: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        fields = line.split()
        if (config := CONFIGURATION.match(line)) is not None:
            configuration[config.group(1)] = (config.group(2) or "").strip()
            continue
        if fields and NAME.match(fields[0]):
            if len(fields) >= 2 and fields[1].isdigit():
                name, iterations, rest = fields[0], fields[1], fields[2:]
            else:  # the name alone, or the name then the benchmark's own output
                pending = fields[0]
                continue
        elif pending is not None and (match := CONTINUED.match(line)):
            name, iterations, rest = pending, match.group(1), match.group(2).split()
        else:
            continue
        pending = None
        split = PROCS.match(name)
        benchmark, procs = (split.group(1), split.group(2)) if split else (name, "")
        labels = {"benchmark": benchmark, "package": configuration.get("pkg", ""),
                  "procs": procs}
        pairs = list(zip(rest[::2], rest[1::2], strict=False))
        result = GoResult(number, tuple(sorted((k, v) for k, v in labels.items() if v)),
                          int(iterations), pairs)
        problem = go_problem(rest, pairs)
        if problem and reading.refused is None:
            reading.refused = (number, problem)
        reading.results.append(result)
        configured.append(dict(configuration))
    keys = {key for seen in configured for key in seen} - {"pkg"}
    varying = {key for key in keys if len({seen.get(key) for seen in configured}) > 1}
    for result, seen in zip(reading.results, configured, strict=True):
        result.labels = tuple(sorted([*result.labels, *(
            (key, seen[key]) for key in varying if key in seen)]))
    return reading


def go_problem(fields: list[str], pairs: list[tuple[str, str]]) -> str | None:
    """Why latlab cannot take a result: its fields are not `value unit` pairs of numbers, or
    it has no time per op (a trial's latency), or that time is beyond latlab's latency range."""
    if len(fields) % 2:
        return "expected 'value unit' pairs"
    for value, _ in pairs:
        try:
            float(value)
        except ValueError:
            return "is not a number"
    per_op = [float(value) for value, unit in pairs if unit == "ns/op"]
    if not per_op:
        return "no ns/op"
    if not 0 <= per_op[0] <= HIGHEST_NS:
        return "outside 0 .. 1 h"
    return None


def go_metric(unit: str) -> str:
    """The adapter's documented metric name of a unit: `ns/op` -> `ns_per_op`."""
    assert re.fullmatch(r"[A-Za-z-]+(/[A-Za-z]+)?", unit), unit
    return unit.replace("/", "_per_")


GO_READINGS = {path: read_go(path.read_text()) for path in GO_FILES}
GO_TAKEN = [path for path, reading in GO_READINGS.items() if reading.refused is None]
GO_REFUSED = [path for path, reading in GO_READINGS.items() if reading.refused is not None]


def go_id(path: Path) -> str:
    return str(path.relative_to(GO))


def go_param(path: Path) -> Any:
    return pytest.param(path, id=go_id(path))


@functools.cache
def go_parsed(path: Path) -> Parsed:
    return go_bench.parse(path.read_text(), CONTEXT)


def test_the_go_golden_files_are_found() -> None:
    names = {go_id(path) for path in GO_FILES}
    assert {"1.21.13/fast.txt", "1.22.12/fast.txt", "features/go1.26.8-v.txt",
            "upstream/perf-benchstat-old.txt", "upstream/go-test2json-benchshort.test"} <= names
    assert len(GO_TAKEN) >= 15 and len(GO_REFUSED) >= 5


@pytest.mark.parametrize("path", [go_param(path) for path in GO_TAKEN])
def test_go_bench_every_result_line_is_a_trial_with_the_printed_numbers(path: Path) -> None:
    reading = GO_READINGS[path]
    parsed = go_parsed(path)
    series: dict[Labels, SeriesIn] = {tuple(sorted(s.labels.items())): s for s in parsed.series}
    assert len(series) == len(parsed.series)
    expected: dict[Labels, list[GoResult]] = {}
    for result in reading.results:
        expected.setdefault(result.labels, []).append(result)
    assert set(series) == set(expected)
    for labels, results in expected.items():
        trials = series[labels].trials
        assert len(trials) == len(results), labels
        for trial, result in zip(trials, results, strict=True):
            where = f"line {result.line}"
            metrics = {go_metric(unit): float(value) for value, unit in result.pairs}
            assert trial.metrics == {"iterations": float(result.iterations), **metrics}, where
            (sample,) = trial.latency.samples_ns or [None]
            assert sample is not None, where
            assert abs(sample - metrics["ns_per_op"]) <= 0.5, where
            for _, unit in result.pairs:
                assert parsed.metric_info[go_metric(unit)].unit == unit, where


@pytest.mark.parametrize("path", [pytest.param(path, id=go_id(path)) for path in GO_REFUSED])
def test_go_bench_refuses_a_result_it_cannot_take_naming_its_line(path: Path) -> None:
    line, why = GO_READINGS[path].refused or (0, "")
    with pytest.raises(ParseError, match=rf"^line {line}: .*{re.escape(why)}"):
        go_parsed(path)


# --- Criterion.rs ---------------------------------------------------------------------------

CRITERION = GOLDEN / "criterion"
# Runs: each folder's `criterion/` (a `target/criterion` tree), with the console output of the
# same run in `stdout.txt` where it was kept.
RUNS = sorted(path.parent for path in CRITERION.glob("*/criterion") if path.is_dir())
# Criterion's time units, in ns.
TIME_NS = {"ps": 1e-3, "ns": 1.0, "µs": 1e3, "us": 1e3, "ms": 1e6, "s": 1e9}
RATE_PREFIX = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9}
# The example report in Criterion.rs's user guide was made by Criterion 0.2.x: its
# sample.json is `[iters, times]` and estimates.json's keys are capitalized.


@dataclass(frozen=True)
class Benchmark:
    run: Path
    folder: Path  # .../new

    @property
    def described(self) -> dict[str, Any]:
        found: dict[str, Any] = load(self.folder / "benchmark.json")
        return found

    @property
    def full_id(self) -> str:
        return str(self.described["full_id"])


def load(path: Path) -> Any:
    return json.loads(path.read_text())


BENCHMARKS = [Benchmark(run, folder.parent) for run in RUNS
              for folder in sorted((run / "criterion").rglob("new/benchmark.json"))]


def bench_param(benchmark: Benchmark) -> Any:
    name = f"{benchmark.run.name}/{benchmark.full_id}"
    return pytest.param(benchmark, id=name)


@functools.cache
def criterion_series(run: Path) -> dict[str, SeriesIn]:
    parsed = criterion.parse(criterion.bundle(run / "criterion"), CONTEXT)
    return {s.labels["benchmark"]: s for s in parsed.series}


def sample(folder: Path) -> tuple[list[float], list[float]]:
    """(iters, times) of a benchmark's samples, as Criterion wrote them."""
    document = load(folder / "sample.json")
    if isinstance(document, list):  # Criterion 0.2
        iters, times = document
        return iters, times
    return document["iters"], document["times"]


def typical(estimates: dict[str, Any]) -> dict[str, Any]:
    """The estimate Criterion prints as `time:`: the slope, or the mean when it has none."""
    for key in ("slope", "Slope", "mean", "Mean"):
        found: dict[str, Any] | None = estimates.get(key)
        if found:
            return found
    raise AssertionError("no slope or mean")


def printed_times(run: Path) -> dict[str, list[str]]:
    """What Criterion printed per benchmark: `time: [low unit estimate unit high unit]` of the
    console (the id is on the line, or alone on the line before when it is long)."""
    found: dict[str, list[str]] = {}
    lines = (run / "stdout.txt").read_text().splitlines()
    for index, line in enumerate(lines):
        match = re.search(r"time:\s+\[([^\]]+)\]", line)
        if match is None:
            continue
        name = line[:match.start()].strip() or lines[index - 1].strip()
        found[name] = match.group(1).split()
    return found


def printed_report(folder: Path) -> dict[str, list[str]]:
    """The estimates table of Criterion's HTML report (report/index.html beside new/): each
    row's `lower estimate upper` with their units."""
    html = (folder.parent / "report" / "index.html").read_text()
    rows = re.findall(r"<tr>\s*<td[^>]*>([^<]+)</td>\s*<td[^>]*>([^<]+)</td>\s*<td>([^<]+)</td>"
                      r"\s*<td[^>]*>([^<]+)</td>\s*</tr>", html)
    return {row[0]: " ".join(row[1:]).split() for row in rows}


def thrpt(run: Path) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    name = ""
    for line in (run / "stdout.txt").read_text().splitlines():
        if match := re.search(r"time:\s+\[", line):
            name = line[:match.start()].strip() or name
        if match := re.search(r"thrpt:\s+\[([^\]]+)\]", line):
            found[name] = match.group(1).split()
    return found


def as_printed(value_ns: float, number: str, unit: str) -> str:
    """A time in ns in the unit and to the decimals of a number Criterion printed."""
    return f"{value_ns / TIME_NS[unit]:.{len(number.partition('.')[2])}f}"


def printed(benchmark: Benchmark) -> list[str] | None:
    """The `low unit estimate unit high unit` Criterion printed for a benchmark's typical
    time (console for the runs made here, the HTML report's Slope or Mean row upstream)."""
    if (benchmark.run / "stdout.txt").exists():
        return printed_times(benchmark.run).get(benchmark.full_id)
    if (benchmark.folder.parent / "report" / "index.html").exists():
        rows = printed_report(benchmark.folder)
        estimates = load(benchmark.folder / "estimates.json")
        return rows["Slope" if (estimates.get("Slope") or estimates.get("slope")) else "Mean"]
    return None


WITH_PRINTED = [b for b in BENCHMARKS if printed(b) is not None]


def test_the_criterion_golden_files_are_found() -> None:
    runs = {run.name for run in RUNS}
    assert {"0.3.6", "0.4.0", "0.5.1", "upstream"} <= runs
    assert len({(b.run.name) for b in WITH_PRINTED}) >= 4
    assert sum(b.run.name == "upstream" for b in WITH_PRINTED) == 6


@pytest.mark.parametrize("benchmark", [bench_param(b) for b in BENCHMARKS])
def test_criterion_samples_are_times_over_iters(benchmark: Benchmark) -> None:
    iters, times = sample(benchmark.folder)
    raw = benchmark.folder / "raw.csv"
    if raw.exists():  # Criterion's CSV of the same samples
        rows = list(csv.DictReader(io.StringIO(raw.read_text())))
        assert [float(r["iteration_count"]) for r in rows] == iters
        assert [float(r["sample_time_nanos"]) for r in rows] == times
    (trial,) = criterion_series(benchmark.run)[benchmark.full_id].trials
    ours = trial.latency.samples_ns
    assert ours is not None and len(ours) == len(times) == len(iters)
    for i, (value, count, total) in enumerate(zip(ours, iters, times, strict=True)):
        assert abs(value - total / count) <= 0.5, f"sample {i}"


@pytest.mark.parametrize("benchmark", [bench_param(b) for b in WITH_PRINTED])
def test_criterion_printed_time_is_its_estimates_json(benchmark: Benchmark) -> None:
    low, low_unit, estimate, unit, high, high_unit = printed(benchmark) or []
    interval = typical(load(benchmark.folder / "estimates.json"))
    bounds = interval["confidence_interval"]
    assert as_printed(bounds["lower_bound"], low, low_unit) == low
    assert as_printed(interval["point_estimate"], estimate, unit) == estimate
    assert as_printed(bounds["upper_bound"], high, high_unit) == high


@pytest.mark.parametrize("benchmark", [bench_param(b) for b in WITH_PRINTED])
def test_criterion_ns_per_iter_is_the_printed_estimate(benchmark: Benchmark) -> None:
    _, _, estimate, unit, _, _ = printed(benchmark) or []
    interval = typical(load(benchmark.folder / "estimates.json"))
    (trial,) = criterion_series(benchmark.run)[benchmark.full_id].trials
    assert trial.metrics["ns_per_iter"] == interval["point_estimate"]
    assert as_printed(trial.metrics["ns_per_iter"], estimate, unit) == estimate
    rates = thrpt(benchmark.run).get(benchmark.full_id) if (
        benchmark.run / "stdout.txt").exists() else None
    throughput = benchmark.described.get("throughput") or {}
    if rates and "Elements" in throughput:
        # Criterion's thrpt: [at the high time, at the estimate, at the low time].
        number, rate = rates[2], rates[3]
        prefix = rate.removesuffix("elem/s")
        ours = trial.metrics["elements_per_s"] / RATE_PREFIX[prefix]
        assert f"{ours:.{len(number.partition('.')[2])}f}" == number
        assert math.isclose(trial.metrics["elements_per_s"],
                            throughput["Elements"] * 1e9 / interval["point_estimate"])
