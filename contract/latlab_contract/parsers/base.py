"""What every output parser shares: the context it reads in, what it returns, its error.

A parser is `parse(text, context) -> Parsed`: the series it found (labels the output itself
carries, such as a benchmark's name, and one or more trials each) and the units and
directions of metrics the lab may not know. It raises `ParseError` naming the line or JSON
path of the first problem.
"""

from collections.abc import Callable
from dataclasses import dataclass, field

from pydantic import ValidationError

from latlab_contract.fields import Scalar
from latlab_contract.result import ProfileIn, SeriesIn
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
    # Stacks a program reported of itself (memcheck's errors), for its series: the runner
    # gives them the series' labels.
    profiles: list[ProfileIn] = field(default_factory=list)
    # The machine and build the harness says it ran on (`Harness.context`), and what the
    # parser could not read as asked, with what to do about it (`Harness.notes`).
    context: dict[str, Scalar] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


class ParseError(Exception):
    """Output that cannot be read; the message names where (a line, a JSON path)."""


Parser = Callable[[str, ParseContext], Parsed]


def validation_message(error: ValidationError) -> str:
    """A pydantic error as one line naming each problem's path."""
    parts = []
    for problem in error.errors(include_url=False)[:5]:
        path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in problem["loc"])
        parts.append(f"${path}: {problem['msg']}")
    return "; ".join(parts)
