"""Vitest's benchmark JSON (`vitest bench --run --outputJson FILE`; Vitest 2.1 to 4.1, whose
benches tinybench 2.9 measures).

Each bench is a series labelled `group` (its group's `fullName`: the bench file's path from the
project root and its `describe` names, "checksum.bench.ts > checksum") and `benchmark` (its
name); a file is one trial of each (submit several files for several trials). tinybench times
every call of the bench function (a sample, ms); Vitest writes their statistics but empties
`samples` (always `[]` in its JSON), so the trial's latency is rebuilt (`harness.spectrum`,
marked `rebuilt`) over `sampleCount` samples through the points tinybench computed from them:
`min`, `median`, `p75`, `p99`, `p995`, `p999` and `max` (nearest ranks, as tinybench takes
them), keeping its `mean`. The trial's summary is tinybench's own: min, max, mean, `sd` as
stddev (the sample form, n - 1), Vitest's `median` as p50 (the middle two averaged), p99 and
p99.9. tinybench computes no p90, p95 or p99.99: they are not reported, and what the lab shows
for them is interpolated (`~`) and never gated unless asked. Its metrics, tinybench's own:
- `hz`: calls per second (ops/s, higher-better), 1000 / mean: the CI gate's headline, the
  number Vitest prints first in its table and compares benches by ("2.5x faster than");
- `p75`, `p995`: its 75th and 99.5th percentiles (ns, lower-better), which the summary has no
  place for;
- `rme`: the relative margin of error of the mean (%, Vitest prints "±1.23%"; no direction);
- `samples`: how many calls were timed (`sampleCount`).
Left out, as they follow from those: `period` (= mean), `variance` (= sd²), `sem`, `df`,
`critical`, `moe` (rme * mean / 100), `totalTime` (the samples' sum), `rank`; Vitest writes no
machine context or version.

A bench that threw (or was stopped) is in the JSON with no statistics (only `name`, `rank`,
`rme: 0`, `samples: []`; Vitest 3.2 and 4.1 exit 0 and print no row for its group, 2.1 prints
a row of zeros): it measured nothing, and is a failure of the run, on every series of the file
(once, on its last trial: `failed` the benches without statistics, `total` all benches, the
detail naming them), with a note; a file of failures only is refused naming them.

Refused, naming the JSON path: a file that is not Vitest's JSON (its console table is named as
such), no benches, an empty name, a negative time, statistics out of order (min .. p999 ..
max, the mean within), `hz` that is not 1000 / mean, `sd` that is not √variance, a sample
count below 1 or unlike `df` + 1.
"""

import itertools
import math
from typing import Any

from pydantic import ValidationError

from latlab_contract.fields import MAX_COUNT
from latlab_contract.latency import Latency
from latlab_contract.parsers.base import ParseContext, Parsed, ParseError, validation_message
from latlab_contract.parsers.harness import (
    OPS_PER_S,
    checked,
    duration_ns,
    fail_every_series,
    load_object,
    member,
    named,
    spectrum,
)
from latlab_contract.result import Failures, SeriesIn, TrialIn
from latlab_contract.vocabulary import MetricSpec

METRIC_INFO = {
    "hz": MetricSpec(unit=OPS_PER_S.unit, direction="higher", label="calls per second"),
    "p75": MetricSpec(unit="ns", direction="lower", label="75th percentile of the calls"),
    "p995": MetricSpec(unit="ns", direction="lower", label="99.5th percentile of the calls"),
    "rme": MetricSpec(unit="%", direction="none",
                      label="relative margin of error of the mean (±)"),
    "samples": MetricSpec(unit="count", direction="none", label="calls timed"),
}
# tinybench's points, by JSON key, at their percentiles.
_POINTS = {"min": 0.0, "median": 50.0, "p75": 75.0, "p99": 99.0, "p995": 99.5, "p999": 99.9,
           "max": 100.0}
# Statistics printed with 17 significant digits and computed in doubles: what they may
# differ by from the lab's computation from the same values.
_AGREEMENT = 1e-9


def parse(text: str, context: ParseContext) -> Parsed:
    if not text.lstrip().startswith(("{", "[")):
        _refuse_text(text)
    document = load_object(text)
    files = member(document, "files", "$", list)
    found: list[tuple[dict[str, str], list[TrialIn]]] = []
    failed: list[str] = []
    total = 0
    for f_index, file in enumerate(files):
        f_path = f"$.files[{f_index}]"
        groups = member(checked(file, f_path, dict), "groups", f_path, list)
        for g_index, group in enumerate(groups):
            g_path = f"{f_path}.groups[{g_index}]"
            group_name = named(checked(group, g_path, dict), "fullName", g_path)
            for b_index, bench in enumerate(member(group, "benchmarks", g_path, list)):
                path = f"{g_path}.benchmarks[{b_index}]"
                name = named(checked(bench, path, dict), "name", path)
                total += 1
                if "mean" not in bench and "sampleCount" not in bench:
                    failed.append(f"'{name}' ({group_name})")
                    continue
                count = _count(bench, path)
                try:
                    trial = TrialIn(latency=_latency(bench, count, path),
                                    metrics=_metrics(bench, count, path))
                except ValidationError as error:
                    raise ParseError(f"{path}: {validation_message(error)}") from error
                found.append(({"group": group_name, "benchmark": name}, [trial]))
    if not found:
        if failed:
            raise ParseError(f"$.files: no bench was measured: Vitest wrote no statistics for "
                             f"{', '.join(failed)} (it threw or was stopped)"[:500])
        raise ParseError("$.files: no benchmark results")
    notes = []
    if failed:
        detail = (f"Vitest wrote no statistics for {len(failed)} of {total} benches (they "
                  f"threw or were stopped): {', '.join(failed)}")[:500]
        fail_every_series((trials for _, trials in found),
                          Failures(failed=len(failed), total=total, detail=detail))
        notes.append(f"{detail}; the failure is on every series of the run"[:500])
    try:
        series = [SeriesIn(labels=labels, trials=trials) for labels, trials in found]
    except ValidationError as error:
        raise ParseError(validation_message(error)) from error
    return Parsed(series=series, metric_info=METRIC_INFO, gate=["hz"], notes=notes)


def _refuse_text(text: str) -> None:
    if "hz" in text and "rme" in text and "samples" in text:
        raise ParseError("line 1: Vitest's console table, not its JSON: run "
                         "`vitest bench --run --outputJson FILE` and give FILE")
    raise ParseError("line 1: not Vitest's benchmark JSON (run `vitest bench --run "
                     "--outputJson FILE` and give FILE)")


def _ms(bench: dict[str, Any], key: str, path: str) -> float:
    """A time tinybench wrote in ms, in ns (refused outside 0 .. 1 h)."""
    return duration_ns(member(bench, key, path, float), "ms", f"{path}.{key}")


def _count(bench: dict[str, Any], path: str) -> int:
    count = member(bench, "sampleCount", path, float)
    if count != int(count) or not 1 <= count <= MAX_COUNT:
        raise ParseError(f"{path}.sampleCount: {count:g} is not a count within 1 .. "
                         f"{MAX_COUNT:,}")
    if "df" in bench and member(bench, "df", path, float) != count - 1:
        raise ParseError(f"{path}.df: {bench['df']:g} is not sampleCount - 1 ({count - 1:g})")
    return int(count)


def _latency(bench: dict[str, Any], count: int, path: str) -> Latency:
    points = [(q, _ms(bench, key, path)) for key, q in _POINTS.items()]
    mean = _ms(bench, "mean", path)
    stddev = member(bench, "sd", path, float)
    stddev_ns = duration_ns(stddev, "ms", f"{path}.sd")
    if "variance" in bench:
        variance = member(bench, "variance", path, float)
        if not math.isclose(stddev, math.sqrt(max(variance, 0.0)), rel_tol=_AGREEMENT,
                            abs_tol=1e-15):
            raise ParseError(f"{path}.sd: {stddev:g} ms is not the square root of the "
                             f"variance ({variance:g} ms²)")
    ordered = [(key, value) for key, (_, value) in zip(_POINTS, points, strict=True)]
    for (low, low_value), (high, high_value) in itertools.pairwise(ordered):
        if low_value > high_value:
            raise ParseError(f"{path}.{low}: {low_value / 1e6:g} ms is above its {high} "
                             f"({high_value / 1e6:g} ms): tinybench's statistics are sorted "
                             "samples")
    return spectrum(points, count, path, mean=mean, stddev=stddev_ns)


def _metrics(bench: dict[str, Any], count: int, path: str) -> dict[str, float]:
    hz = member(bench, "hz", path, float)
    mean_ms = member(bench, "mean", path, float)
    if mean_ms <= 0 or hz <= 0 or not math.isclose(hz, 1000.0 / mean_ms, rel_tol=_AGREEMENT):
        expected = f"{1000.0 / mean_ms:g}" if mean_ms > 0 else "none for a mean of 0"
        raise ParseError(f"{path}.hz: {hz:g} is not 1000 / mean ({expected}): tinybench's "
                         "calls per second are those of its mean")
    rme = member(bench, "rme", path, float)
    if rme < 0:
        raise ParseError(f"{path}.rme: {rme:g} %: a margin of error cannot be negative")
    return {"hz": hz, "p75": _ms(bench, "p75", path), "p995": _ms(bench, "p995", path),
            "rme": rme, "samples": float(count)}
