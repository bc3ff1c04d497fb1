"""Output parsers: what a program or a benchmark harness prints -> series of the result
contract. One registry serves the runner (a suite program's `output`) and CI
(`latlab submit --adapter NAME`, `POST /runs?adapter=NAME`).

A parser is `parse(text, context) -> Parsed`: the series it found (labels the output itself
carries, such as a benchmark's name, and one or more trials each) and the units and
directions of metrics the lab may not know. It raises `ParseError` naming the line or JSON
path of the first problem. Parsers are tested against golden files: output the real tool
printed on this machine, with the command that made it.
"""

import importlib.util
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError

from latlab_contract.result import MetricSpec, SeriesIn


@dataclass(frozen=True)
class ParseContext:
    """What a parser may need to know besides the text."""

    metrics: frozenset[str] = frozenset()  # metric names the suite declares


@dataclass(frozen=True)
class Parsed:
    series: list[SeriesIn]
    metric_info: dict[str, MetricSpec] = field(default_factory=dict)


class ParseError(Exception):
    """Output that cannot be read; the message names where (a line, a JSON path)."""


Parser = Callable[[str, ParseContext], Parsed]


def registry() -> dict[str, Parser]:
    """The built-in parsers, by name."""
    from latlab_contract.parsers import ab, latlab_json

    return {"latlab-json": latlab_json.parse, "ab": ab.parse}


def get_parser(name: str) -> Parser:
    parsers = registry()
    if name not in parsers:
        raise ParseError(f"unknown output format '{name}' (known: {', '.join(sorted(parsers))})")
    return parsers[name]


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
