"""Catch2's XML report with benchmarks (`-r xml`, `-o FILE` or `-r xml::out=FILE`), of Catch2
2.x (root `<Catch>`, test cases inside a `<Group>`; benchmarks need
`CATCH_CONFIG_ENABLE_BENCHMARKING`) and 3.x (root `<Catch2TestRun>`, which names its
`catch2-version`).

Each `<BenchmarkResults>` is a trial of the series labelled `test_case` (its `<TestCase>`'s
name), `section` (the `<Section>` names it is nested in, joined by " / ", when it is in one)
and `benchmark` (its name); a benchmark that Catch2 ran more than once in a file (a test case
run again for each of its sections) is several trials. Catch2 writes no samples: of its
`samples` timed samples (each `iterations` runs of the benchmark) it writes the mean with its
bootstrap confidence interval, the standard deviation with its interval, and the outliers. A
trial's latency is therefore one value, Catch2's mean time per iteration (one sample, in whole
ns), and the trial's summary keeps that mean exactly as written (`reported.mean`); Catch2
prints no minimum, maximum or percentile, so none is reported (the lab's summary of a
one-value trial is that value, and the run page shows those statistics as computed, not as
Catch2's). The CI gate judges `mean`, the number Catch2 prints first for a benchmark; no
metric repeats it. Its metrics, all Catch2's own, as written ("All values in nano seconds"):
- `mean_lower_ns`, `mean_upper_ns`: the bounds of the mean's confidence interval
  (`ns/iter`), and `confidence`: that interval's level (a ratio, 0.95 by default,
  `--benchmark-confidence-interval`);
- `stddev_ns`, `stddev_lower_ns`, `stddev_upper_ns`: the standard deviation of the samples
  (`ns/iter`; Catch2 divides by n, not n - 1) and its interval's bounds;
- `outlier_variance`: the share of the variance the outliers explain (a ratio: 0.95 is
  95 %), and `outliers_low_mild`, `outliers_low_severe`, `outliers_high_mild`,
  `outliers_high_severe`: the samples Catch2 classed so;
- `samples`, `iterations` (runs per sample), `resamples` (bootstrap resamples) and
  `estimated_duration_ns` (what Catch2 estimated the benchmark would take, ns).
None of them has a direction: a wider interval or more outliers is no regression by itself.

With `--benchmark-no-analysis` Catch2 computes only the plain mean of the samples and writes
zeros for everything else (`ci="0"`): then only the mean, `samples`, `iterations` and
`estimated_duration_ns` are kept (the zeros are no measurement) and a note says so.

Failures: a benchmark that threw (`<failed message="..."/>`, Catch2's console prints
"Benchmark failed (message)") measured nothing; a test case whose `<OverallResult
success="false">` failed for another reason (an assertion, an exception outside a benchmark)
may have stopped before its other benchmarks. Both are failures of the executable's run, on
every series of the file (once, on its last trial): `failed` the failed benchmarks and those
test cases, `total` them and the measured benchmarks, `detail` in Catch2's words; a note names
them. A file without a measured benchmark is refused, naming its failures. The run's context:
the executable's `name` -> `executable`, `catch2-version` (3.x) -> `tool_version`, `rng-seed`
and the clock resolution Catch2 measured (`clockResolution`, ns) -> `clock_resolution_ns`.

Refused, naming the element: XML that is not well formed (a report cut short), a document
type declaration (Catch2 writes none), a root that is not Catch2's, a benchmark without its
name, its `<mean>` or its settings, a number that is not a finite number (or a count that is
not a whole one), a negative time, outliers more than the samples.
"""

import math
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass

from pydantic import ValidationError

from latlab_contract.fields import MAX_COUNT, Scalar
from latlab_contract.latency import Latency, Reported
from latlab_contract.parsers.base import ParseContext, Parsed, ParseError, validation_message
from latlab_contract.parsers.harness import duration_ns, fail_every_series
from latlab_contract.result import Failures, SeriesIn, TrialIn
from latlab_contract.vocabulary import MetricSpec

_PER_ITERATION = "ns/iter"
METRIC_INFO = {
    "mean_lower_ns": MetricSpec(unit=_PER_ITERATION, direction="none",
                                label="mean's confidence interval, lower bound"),
    "mean_upper_ns": MetricSpec(unit=_PER_ITERATION, direction="none",
                                label="mean's confidence interval, upper bound"),
    "confidence": MetricSpec(unit="ratio", direction="none",
                             label="confidence level of the intervals"),
    "stddev_ns": MetricSpec(unit=_PER_ITERATION, direction="none",
                            label="standard deviation of the samples (n)"),
    "stddev_lower_ns": MetricSpec(unit=_PER_ITERATION, direction="none",
                                  label="standard deviation's interval, lower bound"),
    "stddev_upper_ns": MetricSpec(unit=_PER_ITERATION, direction="none",
                                  label="standard deviation's interval, upper bound"),
    "outlier_variance": MetricSpec(unit="ratio", direction="none",
                                   label="share of the variance due to outliers"),
    "outliers_low_mild": MetricSpec(unit="count", direction="none", label="low mild outliers"),
    "outliers_low_severe": MetricSpec(unit="count", direction="none",
                                      label="low severe outliers"),
    "outliers_high_mild": MetricSpec(unit="count", direction="none",
                                     label="high mild outliers"),
    "outliers_high_severe": MetricSpec(unit="count", direction="none",
                                       label="high severe outliers"),
    "samples": MetricSpec(unit="count", direction="none", label="samples"),
    "iterations": MetricSpec(unit="count", direction="none", label="iterations per sample"),
    "resamples": MetricSpec(unit="count", direction="none", label="bootstrap resamples"),
    "estimated_duration_ns": MetricSpec(unit="ns", direction="none",
                                        label="estimated duration of the benchmark"),
}
_ROOTS = ("Catch", "Catch2TestRun")
_OUTLIERS = {"lowMild": "outliers_low_mild", "lowSevere": "outliers_low_severe",
             "highMild": "outliers_high_mild", "highSevere": "outliers_high_severe"}
_NO_ANALYSIS = ("Catch2 ran with --benchmark-no-analysis (ci=\"0\"): it computed only the mean "
                "of the samples and wrote zeros for the standard deviation, the confidence "
                "intervals and the outliers; those zeros are not kept. Run without it for "
                "Catch2's analysis")
_DECLARATION = re.compile(r"<!(DOCTYPE|ENTITY)", re.IGNORECASE)


@dataclass
class _Read:
    labels: dict[str, str]
    trial: TrialIn


def parse(text: str, context: ParseContext) -> Parsed:
    root = _document(text)
    found: list[_Read] = []
    failed: list[str] = []
    no_analysis = False
    clocks: set[float] = set()
    cases = list(root.iter("TestCase"))
    for case in cases:
        case_name = case.get("name")
        where_case = f"TestCase[@name={case_name!r}]"
        if not case_name or not case_name.strip():
            raise ParseError("TestCase: no name (Catch2 names every test case)")
        case_failed_benchmark = False
        for benchmark, sections in _benchmarks(case, []):
            name = benchmark.get("name")
            where = f"{where_case}/BenchmarkResults[@name={name!r}]"
            if not name or not name.strip():
                raise ParseError(f"{where_case}/BenchmarkResults: no name (Catch2 names every "
                                 "benchmark)")
            failure = benchmark.find("failed")
            if failure is not None:
                failed.append(f"{name}: Benchmark failed ({failure.get('message', '')})")
                case_failed_benchmark = True
                continue
            trial, analysed, clock = _trial(benchmark, where)
            no_analysis = no_analysis or not analysed
            clocks.add(clock)
            labels = {"test_case": case_name, "benchmark": name}
            if sections:
                labels["section"] = " / ".join(sections)
            found.append(_Read(labels, trial))
        result = case.find("OverallResult")
        if (result is not None and result.get("success") == "false"
                and not case_failed_benchmark):
            failed.append(f"test case '{case_name}' failed")
    if not found:
        if failed:
            raise ParseError(f"no measured benchmark: {'; '.join(failed)}"[:500])
        raise ParseError(f"{root.tag}: no BenchmarkResults (build the tests with "
                         "CATCH_CONFIG_ENABLE_BENCHMARKING on Catch2 2.x, and run the "
                         "benchmarks: they are skipped with --skip-benchmarks)")
    trials: dict[tuple[tuple[str, str], ...], list[TrialIn]] = {}
    for item in found:
        trials.setdefault(tuple(sorted(item.labels.items())), []).append(item.trial)
    notes = [_NO_ANALYSIS] if no_analysis else []
    if failed:
        failures = Failures(failed=len(failed), total=len(failed) + len(found),
                            detail="; ".join(failed)[:500])
        fail_every_series(trials.values(), failures)
        notes.append(f"Catch2: {'; '.join(failed)}: no measurement of them is stored; the "
                     "failure is on every series of the run"[:500])
    try:
        series = [SeriesIn(labels=dict(key), trials=items) for key, items in trials.items()]
    except ValidationError as error:
        raise ParseError(validation_message(error)) from error
    return Parsed(series=series, metric_info=dict(METRIC_INFO), gate=["mean"],
                  context=_context(root, clocks), notes=notes)


def _document(text: str) -> ET.Element:
    """The report's root element: Catch2's XML, or a refusal saying what was given."""
    start = text.lstrip()
    if not start.startswith("<"):
        if "benchmark name" in text or "host application" in text:
            raise ParseError("line 1: Catch2's console report, not its XML: run the tests "
                             "with -r xml (and -o FILE; Catch2 3: -r xml::out=FILE)")
        raise ParseError("line 1: not Catch2's XML report (run the tests with -r xml)")
    if _DECLARATION.search(text):
        raise ParseError("a <!DOCTYPE> or <!ENTITY> declaration: Catch2's XML has none")
    try:
        root = ET.fromstring(text)
    except ET.ParseError as error:
        line, column = error.position
        raise ParseError(f"line {line}, column {column}: not well-formed XML "
                         f"({str(error).split(':')[0]}): is the report cut short?") from error
    if root.tag not in _ROOTS:
        raise ParseError(f"<{root.tag}>: not Catch2's XML report (its root is <Catch> in "
                         "Catch2 2.x, <Catch2TestRun> in 3.x)"[:300])
    return root


def _benchmarks(element: ET.Element, sections: list[str]
                ) -> list[tuple[ET.Element, list[str]]]:
    """The BenchmarkResults under an element in document order, each with the Section names
    it is nested in."""
    found = []
    for child in element:
        if child.tag == "BenchmarkResults":
            found.append((child, sections))
        elif child.tag == "Section":
            found += _benchmarks(child, [*sections, child.get("name") or "?"])
    return found


def _trial(benchmark: ET.Element, where: str) -> tuple[TrialIn, bool, float]:
    """A benchmark's trial, whether Catch2 analysed its samples, and its clock resolution."""
    metrics: dict[str, float] = {
        "samples": _count(benchmark, "samples", where, least=1),
        "iterations": _count(benchmark, "iterations", where, least=1),
        "estimated_duration_ns": _time(benchmark, "estimatedDuration", where),
    }
    resamples = _count(benchmark, "resamples", where, least=0)
    clock = _time(benchmark, "clockResolution", where)
    mean = _element(benchmark, "mean", where)
    value = _time(mean, "value", f"{where}/mean")
    confidence = _number(mean, "ci", f"{where}/mean")
    analysed = confidence != 0.0
    if analysed:
        if not 0.0 < confidence < 1.0:
            raise ParseError(f"{where}/mean/@ci: {confidence:g} is not a confidence level "
                             "between 0 and 1")
        metrics |= {"mean_lower_ns": _time(mean, "lowerBound", f"{where}/mean"),
                    "mean_upper_ns": _time(mean, "upperBound", f"{where}/mean"),
                    "confidence": confidence, "resamples": resamples}
        spread = _element(benchmark, "standardDeviation", where)
        inner = f"{where}/standardDeviation"
        metrics |= {"stddev_ns": _time(spread, "value", inner),
                    "stddev_lower_ns": _time(spread, "lowerBound", inner),
                    "stddev_upper_ns": _time(spread, "upperBound", inner)}
        outliers = _element(benchmark, "outliers", where)
        inner = f"{where}/outliers"
        variance = _number(outliers, "variance", inner)
        if not 0.0 <= variance <= 1.0:
            raise ParseError(f"{inner}/@variance: {variance:g} is not a share between 0 and 1")
        metrics["outlier_variance"] = variance
        for attribute, name in _OUTLIERS.items():
            metrics[name] = _count(outliers, attribute, inner, least=0)
        classed = sum(metrics[name] for name in _OUTLIERS.values())
        if classed > metrics["samples"]:
            raise ParseError(f"{inner}: {classed:g} outliers among {metrics['samples']:g} "
                             "samples")
    try:
        latency = Latency(samples_ns=[round(value)], reported=Reported(mean=value))
        return TrialIn(latency=latency, metrics=metrics), analysed, clock
    except ValidationError as error:
        raise ParseError(f"{where}: {validation_message(error)}") from error


def _element(parent: ET.Element, tag: str, where: str) -> ET.Element:
    found = parent.find(tag)
    if found is None:
        raise ParseError(f"{where}: no <{tag}> (a benchmark Catch2 finished has its <mean>, "
                         "<standardDeviation> and <outliers>): is the report cut short?")
    return found


def _number(element: ET.Element, attribute: str, where: str) -> float:
    raw = element.get(attribute)
    if raw is None:
        raise ParseError(f"{where}/@{attribute}: missing")
    try:
        value = float(raw)
    except ValueError:
        raise ParseError(f"{where}/@{attribute}: expected a number, got {raw[:80]!r}") from None
    if not math.isfinite(value):
        raise ParseError(f"{where}/@{attribute}: not a finite number ({raw[:80]})")
    return value


def _time(element: ET.Element, attribute: str, where: str) -> float:
    """A time Catch2 wrote in ns, kept as written (refused outside 0 .. 1 h)."""
    return duration_ns(_number(element, attribute, where), "ns", f"{where}/@{attribute}")


def _count(element: ET.Element, attribute: str, where: str, *, least: int) -> float:
    value = _number(element, attribute, where)
    if value != int(value) or not least <= value <= MAX_COUNT:
        raise ParseError(f"{where}/@{attribute}: {value:g} is not a count within "
                         f"{least} .. {MAX_COUNT:,}")
    return value


def _context(root: ET.Element, clocks: set[float]) -> dict[str, Scalar]:
    machine: dict[str, Scalar] = {}
    for attribute, key in (("name", "executable"), ("catch2-version", "tool_version"),
                           ("rng-seed", "rng_seed")):
        value = root.get(attribute)
        if value:
            machine[key] = value[:500]
    if len(clocks) == 1:  # measured once a run
        machine["clock_resolution_ns"] = clocks.pop()
    return machine
