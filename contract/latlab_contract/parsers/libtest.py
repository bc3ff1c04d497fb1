"""Rust's built-in bench harness, libtest's `#[bench]` (`cargo +nightly bench`): its console
output (pretty, or terse with `-- --quiet`), or its JSON lines (`cargo +nightly bench -- -Z
unstable-options --format json`); Rust 1.0 to 1.97.

libtest times a bench in 50 samples of n iterations, each sample's time per iteration,
clamps the outer 5 % of them (winsorizing), and from n on repeats with 5n iterations a sample
until their medians agree (or 3 s passed). It reports that last round's median time per
iteration (`ns/iter`) and, as `+/-`, the range of its samples (max - min, not a deviation
about the median), and with `b.bytes` set the bytes per microsecond (`MB/s`, 10^6 bytes a
second; the JSON names it `mib_per_second`, the same figure). Every bench line is one trial
of the series named by the bench (`benchmark`) and, where cargo's `Running <target> (...)`
lines were kept (stderr with stdout), its bench target (`target`: "benches/orders.rs"), so
several runs in one file are repetitions, as with `go test -bench -count`. A trial's latency
is its one figure (`harness.one_figure`: the median, not a distribution; whole nanoseconds
before Rust 1.80, where libtest printed it truncated). Metrics, libtest's own:
- `ns_per_iter`: the median (ns/iter, lower-better), the CI gate's headline;
- `deviation`: the range `+/-` (ns, no direction);
- `MB_per_s`: with `b.bytes` set (MB/s, higher-better).
libtest prints no machine context.

A bench that panicked (`test name ... FAILED`, terse `name --- FAILED`, JSON `"event":
"failed"`) has no figures: it is a failure of that run of its target, on every series of the
run (once, on its last trial: `failed` those benches, `total` the run's benches, the detail
naming them with the panic's message); a run with failures only is named in a note, and a
file that measured nothing is refused naming what failed. Refused, naming the line: a bench
line not in libtest's form, a JSON line that is not an object, a bench event without its
median.
"""

import json
import re
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from latlab_contract.parsers.base import ParseContext, Parsed, ParseError, validation_message
from latlab_contract.parsers.harness import MB_PER_S, checked, duration_ns, member, one_figure
from latlab_contract.result import Failures, SeriesIn, TrialIn
from latlab_contract.vocabulary import MetricSpec

METRIC_INFO = {
    "ns_per_iter": MetricSpec(unit="ns/iter", direction="lower",
                              label="median time per iteration"),
    "deviation": MetricSpec(unit="ns", direction="none",
                            label="range of the samples (max - min), libtest's +/-"),
    "MB_per_s": MB_PER_S,
}
_NUMBER = r"[\d,]+(?:\.\d+)?"
_BENCH = re.compile(rf"^test (\S+)\s+\.\.\. bench:\s+({_NUMBER}) ns/iter \(\+/- ({_NUMBER})\)"
                    r"(?: = (\d+) MB/s)?\s*$")
_BENCH_LIKE = re.compile(r"^test (\S+)\s+\.\.\. bench:")
_FAILED = re.compile(r"^(?:test (\S+)\s+\.\.\. FAILED|(\S+) --- FAILED)\s*$")
_RUNNING = re.compile(r"^\s*Running (.+?) \(.*\)\s*$")
_STARTED = re.compile(r"^running \d+ tests?$")
_STDOUT = re.compile(r"^---- (\S+) stdout ----$")
_PANICKED = re.compile(r"panicked at (?:'(.*)', )?")


@dataclass
class _Run:
    """One run of a bench target: its results, and the benches that failed with why."""

    target: str | None
    results: list[tuple[str, TrialIn]] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)  # bench -> its panic's message


def parse(text: str, context: ParseContext) -> Parsed:
    runs = _json_runs(text) if text.lstrip().startswith("{") else _console_runs(text)
    measured = [run for run in runs if run.results]
    if not measured:
        failed = [f"{name} ({why})" if why else name
                  for run in runs for name, why in run.failed.items()]
        if failed:
            raise ParseError(f"line 1: no bench was measured: failed {', '.join(failed)}"[:500])
        raise ParseError("line 1: no libtest bench results (expected lines like 'test name "
                         "... bench: 1,234.56 ns/iter (+/- 78.90)', or its JSON events)")
    grouped: dict[tuple[tuple[str, str], ...], list[TrialIn]] = {}
    notes = []
    for run in runs:
        failures = _failures(run)
        if failures is not None and not run.results:
            notes.append(f"a run{f' of {run.target}' if run.target else ''} measured nothing: "
                         f"{failures.detail}"[:500])
        for name, trial in run.results:  # a bench is one trial of a run
            if failures is not None:
                trial = trial.model_copy(update={"failures": failures})
            labels = {"benchmark": name, **({"target": run.target} if run.target else {})}
            grouped.setdefault(tuple(labels.items()), []).append(trial)
    try:
        series = [SeriesIn(labels=dict(labels), trials=trials)
                  for labels, trials in grouped.items()]
    except ValidationError as error:
        raise ParseError(validation_message(error)) from error
    used = {key for trials in grouped.values() for trial in trials for key in trial.metrics}
    return Parsed(series=series, gate=["ns_per_iter"], notes=notes,
                  metric_info={key: spec for key, spec in METRIC_INFO.items() if key in used})


def _console_runs(text: str) -> list[_Run]:
    runs: list[_Run] = []
    target: str | None = None
    panicking: str | None = None  # the bench whose captured output is being read
    message_next = False  # its panic's message is the next line
    for number, line in enumerate(text.splitlines(), start=1):
        if (running := _RUNNING.match(line)) is not None:
            target = running.group(1)
            continue
        if _STARTED.match(line):
            runs.append(_Run(target))
            continue
        run = runs[-1] if runs else _started(runs, target)
        if (bench := _BENCH.match(line)) is not None:
            name, median, deviation, rate = bench.groups()
            where = f"line {number}"
            run.results.append((name, _trial(_number(median), _number(deviation),
                                             None if rate is None else float(rate), where)))
        elif _BENCH_LIKE.match(line):
            raise ParseError(f"line {number}: not a libtest bench result: {line.strip()!r}"
                             [:300])
        elif (failed := _FAILED.match(line)) is not None:
            run.failed.setdefault(failed.group(1) or failed.group(2), "")
        elif (captured := _STDOUT.match(line)) is not None:
            panicking, message_next = captured.group(1), False
        elif panicking is not None and (panic := _PANICKED.search(line)) is not None:
            if panic.group(1) is not None:  # before Rust 1.73: the message on the same line
                run.failed[panicking], panicking = panic.group(1), None
            message_next = True
        elif panicking is not None and message_next and line.strip():
            run.failed[panicking], panicking = line.strip(), None
    return runs


def _json_runs(text: str) -> list[_Run]:
    runs: list[_Run] = []
    target: str | None = None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        if not line.lstrip().startswith("{"):
            if (running := _RUNNING.match(line)) is not None:
                target = running.group(1)
            continue  # cargo's own lines, kept beside the events
        where = f"line {number}"
        try:
            event = checked(json.loads(line), where, dict)
        except json.JSONDecodeError as error:
            raise ParseError(f"{where}: not JSON ({error.msg})") from error
        kind = event.get("type")
        if kind == "suite" and event.get("event") == "started":
            runs.append(_Run(target))
            continue
        run = runs[-1] if runs else _started(runs, target)
        if kind == "bench":
            name = member(event, "name", where, str)
            rate = event.get("mib_per_second")
            run.results.append((name, _trial(
                member(event, "median", where, float), member(event, "deviation", where, float),
                None if rate is None else checked(rate, f"{where}.mib_per_second", float),
                where)))
        elif kind == "test" and event.get("event") == "failed":
            run.failed[member(event, "name", where, str)] = _panic(event.get("stdout"))
    return runs


def _started(runs: list[_Run], target: str | None) -> _Run:
    """A run for results before any `running N tests` line (output cut at its start)."""
    runs.append(_Run(target))
    return runs[-1]


def _panic(captured: Any) -> str:
    """The message of a panic in a bench's captured output (the line after `panicked at`)."""
    lines = captured.splitlines() if isinstance(captured, str) else []
    for index, line in enumerate(lines):
        if (panic := _PANICKED.search(line)) is not None:
            if panic.group(1) is not None:
                return str(panic.group(1))
            return lines[index + 1].strip() if index + 1 < len(lines) else ""
    return ""


def _number(printed: str) -> float:
    return float(printed.replace(",", ""))


def _trial(median: float, deviation: float, rate: float | None, where: str) -> TrialIn:
    if deviation < 0 or (rate is not None and rate < 0):
        raise ParseError(f"{where}: a negative range or rate: libtest prints neither")
    metrics = {"ns_per_iter": median, "deviation": duration_ns(deviation, "ns", where)}
    if rate is not None:
        metrics["MB_per_s"] = rate
    try:
        return TrialIn(latency=one_figure(duration_ns(median, "ns", where), where),
                       metrics=metrics)
    except ValidationError as error:
        raise ParseError(f"{where}: {validation_message(error)}") from error


def _failures(run: _Run) -> Failures | None:
    if not run.failed:
        return None
    said = [f"{name} ({why})" if why else name for name, why in run.failed.items()]
    return Failures(failed=len(run.failed), total=len(run.results) + len(run.failed),
                    detail=f"libtest: failed {', '.join(said)}"[:500])
