"""hyperfine's JSON (`hyperfine --export-json FILE ...`).

Each entry of `results` (one per command, and per parameter value of a `--parameter-scan` or
`--parameter-list`) is a series, labelled `command` (what hyperfine names it: the command line
with its parameters filled in, or the `--command-name`) and each of its `parameters`. A file
is one trial of each: submit several files (several hyperfine runs) for several trials.

The trial's latency is the wall-clock time of every timed run (`times`, seconds, as exact
samples in ns), and its summary is hyperfine's own: its min, max, mean and median (the middle
two runs averaged) and its standard deviation as written (the sample form, n - 1; hyperfine
writes none for a single run, and then the trial has none from the tool either). Its metrics:
- `user_s`, `system_s`: the mean user and system CPU time of a run, in seconds, lower-better;
- `errors`: the runs whose command did not exit with 0 (`exit_codes`; a run killed by a
  signal has no exit code and is counted too), which hyperfine records only with
  `--ignore-failure` (otherwise it stops at the first); left out of a file from before
  hyperfine 1.12, which wrote no `exit_codes`: whether its runs failed is unknown, and the
  run says so in a note;
- `peak_rss_bytes`: the mean over the runs of each run's peak resident memory
  (`memory_usage_byte`, hyperfine 1.19 and later), lower-better; left out where hyperfine
  measured none (all zero).

Runs that exited non-zero are the trial's `failures` (failed of all its runs, e.g. "10 of
10 runs exited non-zero (exit code 3)"), so a benchmark of a failing command is flagged, not
stored as if fine. Without `--ignore-failure` hyperfine stops at a failing command and
exports only the commands before it (1.15; 1.11 nothing): its printed error
("Command terminated with non-zero exit code: 3"), given in place of the JSON, is named in
the error.

Statistics that contradict the run's own `times` are refused, naming the result and the rule:
hyperfine computes all of them from `times` (the mean, the median of the middle two, the least
and the most, and the sample standard deviation, n - 1), so each must be what `times` give,
within what printing moves a number (0.5 % and 1 ns).

The CI gate judges `mean`: the gate compares the trials' latency summary keys (p50, mean,
p99, ...) as well as their metrics, and a trial's `mean` is hyperfine's own (it is `reported`),
which is the number hyperfine prints first (`Time (mean ...)`) and bases its relative summary
on. No metric repeats it.
"""

import collections
import re
import statistics
from typing import Any

from pydantic import ValidationError

from latlab_contract.fields import MAX_COUNT
from latlab_contract.latency import Latency
from latlab_contract.parsers.base import ParseContext, Parsed, ParseError, validation_message
from latlab_contract.parsers.harness import (
    benchmark_results,
    checked,
    duration_ns,
    list_of,
    load_object,
    member,
    metric_name,
    ns,
    reported,
    samples,
)
from latlab_contract.result import Failures, SeriesIn, TrialIn
from latlab_contract.vocabulary import MetricSpec

METRIC_INFO = {
    "user_s": MetricSpec(unit="s", direction="lower", label="user CPU time per run"),
    "system_s": MetricSpec(unit="s", direction="lower", label="system CPU time per run"),
    "errors": MetricSpec(unit="count", direction="lower", label="runs with a non-zero exit"),
    "peak_rss_bytes": MetricSpec(unit="B", direction="lower",
                                 label="peak RSS of a run, mean over the runs"),
}
_PRINTED = {"min": 0.0, "median": 50.0, "max": 100.0}
# What printing may move a statistic by (as `result.order_problem` allows): 0.5 % and 1 ns.
_ROUNDING, _NS = 5e-3, 1e-9
# What hyperfine prints when a command fails without --ignore-failure (1.x; before 1.12
# without the code).
_FAILED = re.compile(r"^(?:\[?error\]?:?\s*)?(Command terminated with non-zero exit code\b.*)$",
                     re.IGNORECASE)
_NO_EXIT_CODES = ("hyperfine wrote no exit_codes (before 1.12): whether any run exited "
                  "non-zero is unknown; hyperfine 1.12 and later record them")


def parse(text: str, context: ParseContext) -> Parsed:
    if not text.lstrip().startswith(("{", "[")):
        _refuse_text(text)
    results = benchmark_results(load_object(text), "results")
    series, notes = [], []
    for index, result in enumerate(results):
        path = f"$.results[{index}]"
        checked(result, path, dict)
        labels = {"command": member(result, "command", path, str)}
        if not labels["command"].strip():
            raise ParseError(f"{path}.command: empty: hyperfine names each benchmark by its "
                             "command or --command-name")
        parameters = result.get("parameters") or {}
        checked(parameters, f"{path}.parameters", dict)
        for key, value in parameters.items():
            label = metric_name(key)
            if label in labels:
                raise ParseError(f"{path}.parameters.{key}: the label '{label}' is taken")
            labels[label] = checked(value, f"{path}.parameters.{key}", str)
        if result.get("exit_codes") is None and _NO_EXIT_CODES not in notes:
            notes.append(_NO_EXIT_CODES)
        try:
            latency = _latency(result, path)
            trial = TrialIn(latency=latency, metrics=_metrics(result, path),
                            failures=_failures(result, path))
            series.append(SeriesIn(labels=labels, trials=[trial]))
        except ValidationError as error:
            raise ParseError(f"{path}: {validation_message(error)}") from error
    return Parsed(series=series, metric_info=METRIC_INFO, gate=["mean"], notes=notes)


def _refuse_text(text: str) -> None:
    """hyperfine's terminal output instead of its JSON: its error if it stopped at one."""
    for number, line in enumerate(text.splitlines(), start=1):
        found = _FAILED.match(line.strip())
        if found:
            raise ParseError(f"line {number}: hyperfine stopped at a failing command: "
                             f"{found.group(1)[:300]!r}; export its JSON with "
                             "--ignore-failure to record the failed runs")
    raise ParseError("line 1: not hyperfine's JSON (run hyperfine with --export-json FILE "
                     "and give FILE)")


def _latency(result: dict[str, Any], path: str) -> Latency:
    times = member(result, "times", path, list)
    latency = samples((ns(checked(value, f"{path}.times[{i}]", float), "s",
                          f"{path}.times[{i}]") for i, value in enumerate(times)),
                      f"{path}.times")
    printed = {key: duration_ns(member(result, key, path, float), "s", f"{path}.{key}")
               for key in (*_PRINTED, "mean")}
    stddev = result.get("stddev")
    if stddev is not None:
        printed["stddev"] = duration_ns(checked(stddev, f"{path}.stddev", float), "s",
                                        f"{path}.stddev")
    _agree(printed, times, path)
    return latency.model_copy(update={"reported": reported(
        [(q, printed[key]) for key, q in _PRINTED.items()], mean=printed["mean"],
        stddev=printed.get("stddev"))})


def _agree(printed: dict[str, float], times: list[float], path: str) -> None:
    """Refuse statistics (ns) that are not those of `times` (s) as hyperfine computes them."""
    computed = {"min": min(times), "max": max(times), "mean": statistics.fmean(times),
                "median": statistics.median(times)}
    rules = {"min": "the least of its times", "max": "the most of its times",
             "mean": "the mean of its times",
             "median": "the median of its times (the middle two averaged)"}
    if len(times) >= 2:
        computed["stddev"] = statistics.stdev(times)
        rules["stddev"] = "the sample standard deviation (n - 1) of its times"
    elif printed.get("stddev"):
        raise ParseError(f"{path}.stddev: {printed['stddev'] / 1e9:g} s for a single run, "
                         "which has no standard deviation (hyperfine writes null)")
    for key, seconds in computed.items():
        expected = seconds * 1e9
        if key in printed and abs(printed[key] - expected) > _ROUNDING * expected + 1.0:
            raise ParseError(f"{path}.{key}: {printed[key] / 1e9:g} s is not {rules[key]} "
                             f"({seconds:g} s over {len(times)} runs): the statistics "
                             "contradict the run's own times")


def _metrics(result: dict[str, Any], path: str) -> dict[str, float]:
    runs = len(member(result, "times", path, list))
    metrics = {}
    for key in ("user", "system"):
        metrics[f"{key}_s"] = member(result, key, path, float)
        duration_ns(metrics[f"{key}_s"], "s", f"{path}.{key}")  # within 0 .. 1 h
    codes = _exit_codes(result, path, runs)
    if codes is not None:
        metrics["errors"] = float(sum(code != 0 for code in codes))
    if result.get("memory_usage_byte") is not None:
        memory = _per_run(result, "memory_usage_byte", path, runs)
        peaks: list[int] = list_of(memory, f"{path}.memory_usage_byte", int)
        for i, value in enumerate(peaks):
            if not 0 <= value <= MAX_COUNT:
                raise ParseError(f"{path}.memory_usage_byte[{i}]: {value} bytes is outside "
                                 f"0 .. {MAX_COUNT:,}")
        if any(peaks):
            metrics["peak_rss_bytes"] = statistics.fmean(peaks)
    return metrics


def _failures(result: dict[str, Any], path: str) -> Failures | None:
    """The runs that exited non-zero (or were killed by a signal), in hyperfine's words."""
    runs = len(result["times"])
    codes = _exit_codes(result, path, runs)
    failed = [code for code in codes or [] if code != 0]
    if not failed:
        return None
    counted = collections.Counter("killed by a signal" if code is None else f"exit code {code}"
                                  for code in failed)
    words = ", ".join(f"{what} x{count}" if count > 1 else what
                      for what, count in counted.most_common())
    return Failures(failed=len(failed), total=runs,
                    detail=f"{len(failed)} of {runs} runs exited non-zero ({words})"[:500])


def _exit_codes(result: dict[str, Any], path: str, runs: int) -> list[int | None] | None:
    """Each run's exit code (None: killed by a signal), or None where hyperfine wrote none
    (before 1.12)."""
    if result.get("exit_codes") is None:
        return None
    codes = _per_run(result, "exit_codes", path, runs)
    for i, code in enumerate(codes):
        if code is not None:
            checked(code, f"{path}.exit_codes[{i}]", int)
    return codes


def _per_run(result: dict[str, Any], key: str, path: str, runs: int) -> list[Any]:
    values: list[Any] = member(result, key, path, list)
    if len(values) != runs:
        raise ParseError(f"{path}.{key}: {len(values)} values for {runs} runs")
    return values
