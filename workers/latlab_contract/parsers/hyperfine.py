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
  `--ignore-failure` (otherwise it stops at the first);
- `peak_rss_bytes`: the mean over the runs of each run's peak resident memory
  (`memory_usage_byte`, hyperfine 1.19 and later), lower-better; left out where hyperfine
  measured none (all zero).

The CI gate judges `mean`: the gate compares the trials' latency summary keys (p50, mean,
p99, ...) as well as their metrics, and a trial's `mean` is hyperfine's own (it is `reported`),
which is the number hyperfine prints first (`Time (mean ...)`) and bases its relative summary
on. No metric repeats it.
"""

import statistics
from typing import Any

from pydantic import ValidationError

from latlab_contract.parsers.base import ParseContext, Parsed, ParseError, validation_message
from latlab_contract.parsers.harness import (
    checked,
    duration_ns,
    load_json,
    member,
    metric_name,
    ns,
    reported,
    samples,
)
from latlab_contract.result import MAX_COUNT, Latency, SeriesIn, TrialIn
from latlab_contract.vocabulary import MetricSpec

METRIC_INFO = {
    "user_s": MetricSpec(unit="s", direction="lower", label="user CPU time per run"),
    "system_s": MetricSpec(unit="s", direction="lower", label="system CPU time per run"),
    "errors": MetricSpec(unit="count", direction="lower", label="runs with a non-zero exit"),
    "peak_rss_bytes": MetricSpec(unit="B", direction="lower",
                                 label="peak RSS of a run, mean over the runs"),
}
_PRINTED = {"min": 0.0, "median": 50.0, "max": 100.0}


def parse(text: str, context: ParseContext) -> Parsed:
    document = load_json(text)
    results = member(checked(document, "$", dict), "results", "$", list)
    if not results:
        raise ParseError("$.results: no benchmark results")
    series = []
    for index, result in enumerate(results):
        path = f"$.results[{index}]"
        checked(result, path, dict)
        labels = {"command": member(result, "command", path, str)}
        parameters = result.get("parameters") or {}
        checked(parameters, f"{path}.parameters", dict)
        for key, value in parameters.items():
            label = metric_name(key)
            if label in labels:
                raise ParseError(f"{path}.parameters.{key}: the label '{label}' is taken")
            labels[label] = checked(value, f"{path}.parameters.{key}", str)
        try:
            trial = TrialIn(latency=_latency(result, path), metrics=_metrics(result, path))
            series.append(SeriesIn(labels=labels, trials=[trial]))
        except ValidationError as error:
            raise ParseError(f"{path}: {validation_message(error)}") from error
    return Parsed(series=series, metric_info=METRIC_INFO, gate=["mean"])


def _latency(result: dict[str, Any], path: str) -> Latency:
    times = member(result, "times", path, list)
    latency = samples((ns(checked(value, f"{path}.times[{i}]", float), "s",
                          f"{path}.times[{i}]") for i, value in enumerate(times)),
                      f"{path}.times")
    printed = {key: duration_ns(member(result, key, path, float), "s", f"{path}.{key}")
               for key in (*_PRINTED, "mean")}
    stddev = result.get("stddev")
    return latency.model_copy(update={"reported": reported(
        [(q, printed[key]) for key, q in _PRINTED.items()], mean=printed["mean"],
        stddev=None if stddev is None
        else duration_ns(checked(stddev, f"{path}.stddev", float), "s", f"{path}.stddev"))})


def _metrics(result: dict[str, Any], path: str) -> dict[str, float]:
    runs = len(member(result, "times", path, list))
    metrics = {}
    for key in ("user", "system"):
        metrics[f"{key}_s"] = member(result, key, path, float)
        duration_ns(metrics[f"{key}_s"], "s", f"{path}.{key}")  # within 0 .. 1 h
    codes = _per_run(result, "exit_codes", path, runs)
    errors = 0
    for i, code in enumerate(codes):
        if code is not None:
            checked(code, f"{path}.exit_codes[{i}]", int)
        errors += code != 0
    metrics["errors"] = float(errors)
    if result.get("memory_usage_byte") is not None:
        memory = _per_run(result, "memory_usage_byte", path, runs)
        peaks = [checked(value, f"{path}.memory_usage_byte[{i}]", int)
                 for i, value in enumerate(memory)]
        for i, value in enumerate(peaks):
            if not 0 <= value <= MAX_COUNT:
                raise ParseError(f"{path}.memory_usage_byte[{i}]: {value} bytes is outside "
                                 f"0 .. {MAX_COUNT:,}")
        if any(peaks):
            metrics["peak_rss_bytes"] = statistics.fmean(peaks)
    return metrics


def _per_run(result: dict[str, Any], key: str, path: str, runs: int) -> list[Any]:
    values: list[Any] = member(result, key, path, list)
    if len(values) != runs:
        raise ParseError(f"{path}.{key}: {len(values)} values for {runs} runs")
    return values
