"""Output parsers: what a program or a benchmark harness prints -> series of the result
contract. One registry serves the runner (a suite program's `output`) and CI
(`latlab submit --adapter NAME`, `POST /runs?adapter=NAME`).

A parser is `parse(text, context) -> Parsed`: the series it found (labels the output itself
carries, such as a benchmark's name, and one or more trials each) and the units and
directions of metrics the lab may not know. It raises `ParseError` naming the line or JSON
path of the first problem. Parsers are tested against golden files: output the real tool
printed on this machine, with the command that made it.
"""

import gzip
import importlib.util
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from pydantic import ValidationError

from latlab_contract.result import SCHEMA_VERSION, RunCreate, SeriesIn, SourceIn, TrialIn
from latlab_contract.vocabulary import MetricSpec


@dataclass(frozen=True)
class ParseContext:
    """What a parser may need to know besides the text."""

    metrics: frozenset[str] = frozenset()  # metric names the suite declares
    # The unit of latency values in formats that do not say (HdrHistogram logs).
    latency_unit: str = "ns"


@dataclass(frozen=True)
class Parsed:
    series: list[SeriesIn]
    metric_info: dict[str, MetricSpec] = field(default_factory=dict)
    # The metrics a harness's headline is (go test -bench: ns/op), for the CI gate of a suite
    # the lab does not know.
    gate: list[str] = field(default_factory=list)


class ParseError(Exception):
    """Output that cannot be read; the message names where (a line, a JSON path)."""


Parser = Callable[[str, ParseContext], Parsed]


def registry() -> dict[str, Parser]:
    """The built-in parsers, by name: latlab's own program output and the harness adapters."""
    from latlab_contract.parsers import (
        ab,
        criterion,
        ghz,
        go_bench,
        google_benchmark,
        hlog,
        hyperfine,
        jmh,
        k6,
        latlab_json,
        oha,
        pytest_benchmark,
        vegeta,
        wrk,
        wrk2,
    )

    return {
        "latlab-json": latlab_json.parse,
        "ab": ab.parse,
        "hlog": hlog.parse,
        "go-bench": go_bench.parse,
        "google-benchmark": google_benchmark.parse,
        "criterion": criterion.parse,
        "jmh": jmh.parse,
        "pytest-benchmark": pytest_benchmark.parse,
        "hyperfine": hyperfine.parse,
        "k6": k6.parse,
        "wrk2": wrk2.parse,
        "wrk": wrk.parse,
        "vegeta": vegeta.parse,
        "oha": oha.parse,
        "ghz": ghz.parse,
    }


def get_parser(name: str) -> Parser:
    parsers = registry()
    if name not in parsers:
        raise ParseError(f"unknown output format '{name}' (known: {', '.join(sorted(parsers))})")
    return parsers[name]


def adapt(
    adapter: str,
    outputs: list[tuple[str, str]],
    *,
    suite: str,
    scenario: str,
    started_at: datetime,
    source: SourceIn,
    context: ParseContext = ParseContext(),
) -> RunCreate:
    """A `latlab.result/v1` run from a harness's outputs, each `(name, text)` (several files
    are several trials: a series' trials are appended in order, matched by labels). Errors
    name the output (when there are several) and the line or JSON path."""
    parser = get_parser(adapter)
    trials: dict[tuple[tuple[str, str], ...], list[TrialIn]] = {}
    metric_info: dict[str, MetricSpec] = {}
    gate: list[str] = []
    for name, text in outputs:
        try:
            try:
                parsed = parser(text, context)
            except ValidationError as error:  # what it read breaks the contract
                raise ParseError(validation_message(error)) from error
        except ParseError as error:
            raise ParseError(f"{name}: {error}" if len(outputs) > 1 else str(error)) from error
        metric_info.update(parsed.metric_info)
        gate += [metric for metric in parsed.gate if metric not in gate]
        for item in parsed.series:
            trials.setdefault(tuple(sorted(item.labels.items())), []).extend(item.trials)
    try:
        return RunCreate.model_validate({
            "schema": SCHEMA_VERSION, "suite": suite, "scenario": scenario,
            "params": {"adapter": adapter}, "started_at": started_at, "source": source,
            "metric_info": metric_info, "gate": gate or None,
            "series": [SeriesIn(labels=dict(key), trials=items) for key, items in trials.items()]})
    except ValidationError as error:
        raise ParseError(validation_message(error)) from error


def adapt_json(adapter: str, text: str, *, suite: str, scenario: str, started_at: datetime,
               source: SourceIn, context: ParseContext) -> str:
    """`adapt` of one output, as the document's JSON text: what the api's isolated reader
    (a child process) hands back."""
    run = adapt(adapter, [("body", text)], suite=suite, scenario=scenario,
                started_at=started_at, source=source, context=context)
    return run.model_dump_json(by_alias=True, exclude_none=True)


def read_output(adapter: str, path: Path) -> str:
    """A harness output from a file (gzipped if its name ends in .gz), or from a directory
    for the formats that are one (Criterion's `target/criterion`)."""
    if path.is_dir():
        from latlab_contract.parsers import criterion

        readers = {"criterion": criterion.bundle}
        if adapter not in readers:
            raise ParseError(f"{path}: a directory (the {adapter} adapter reads a file)")
        return readers[adapter](path)
    try:
        if path.suffix == ".gz":
            with gzip.open(path) as unzipped:
                return unzipped.read().decode("utf-8")
        return path.read_text(encoding="utf-8")
    except (OSError, EOFError, UnicodeDecodeError) as error:
        raise ParseError(f"cannot read {path}: {error}") from error


def load_parser(path: Path) -> Parser:
    """A suite's own parser: a Python file in its folder defining `parse(text, context)`."""
    spec = importlib.util.spec_from_file_location(f"latlab_suite_parser_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise ParseError(f"{path}: not a Python module")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    parse = getattr(module, "parse", None)
    if not callable(parse):
        raise ParseError(f"{path}: defines no parse(text, context)")
    return parse  # type: ignore[no-any-return]


def validation_message(error: ValidationError) -> str:
    """A pydantic error as one line naming each problem's path."""
    parts = []
    for problem in error.errors(include_url=False)[:5]:
        path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in problem["loc"])
        parts.append(f"${path}: {problem['msg']}")
    return "; ".join(parts)
