"""Google Benchmark's and hyperfine's adapters on malformed input: every field replaced by a
wrong kind, a non-finite or out-of-range number, or left out, is read or refused as a
ParseError naming its JSON path, never another exception."""

import copy
import functools
import json
import math
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from microbenchmark_support import (
    CONTEXT,
    GB,
    HF,
    PARSERS,
    Parser,
)

from latlab_contract.parsers import ParseError
from latlab_contract.parsers import google_benchmark as gbench
from latlab_contract.parsers import hyperfine as hfine

# Malformed input: every field replaced by a wrong kind, a non-finite or out-of-range number,
# or left out, is read or refused as a ParseError naming where, never another exception.

BAD_VALUES: list[Any] = [None, "x", True, [], {}, float("nan"), float("inf"), -1, 1e300,
                         2**70, 0]


def mutations(document: Any, path: str = "$", steps: tuple[str | int, ...] = ()
              ) -> Iterator[tuple[str, Callable[[Any], None]]]:
    """(path, change) for every field of a document: each bad value in its place, and the
    field removed."""
    if isinstance(document, dict):
        items: list[tuple[Any, Any]] = list(document.items())
    elif isinstance(document, list):
        items = list(enumerate(document))[:3]
    else:
        return
    for field, value in items:
        where = f"{path}[{field}]" if isinstance(field, int) else f"{path}.{field}"
        for bad in BAD_VALUES:
            yield where, functools.partial(_change, (*steps, field), bad)
        yield f"{where} removed", functools.partial(_change, (*steps, field), None, True)
        yield from mutations(value, where, (*steps, field))


def _change(steps: tuple[str | int, ...], value: Any, remove: bool = False,
            document: Any = None) -> None:
    *parents, last = steps
    for step in parents:
        document = document[step]
    if remove:
        del document[last]
    else:
        document[last] = value


def small(path: Path, entries: str) -> Any:
    """A golden document cut to two entries, for mutation."""
    document = json.loads(path.read_text())
    document[entries] = document[entries][:2]
    return document


MUTATED = {
    "google-benchmark": small(GB / "1.9.5" / "repetitions.json", "benchmarks"),
    "google-benchmark-counters": small(GB / "1.9.5" / "counters.json", "benchmarks"),
    "google-benchmark-aggregates": json.loads((GB / "1.9.5" / "aggregates-only.json")
                                              .read_text()),
    "hyperfine": small(HF / "1.20.0" / "scan.json", "results"),
}


@pytest.mark.parametrize("name", sorted(MUTATED))
def test_malformed_fields_are_parse_errors_naming_their_path(name: str) -> None:
    parser = hfine.parse if name == "hyperfine" else gbench.parse
    original = MUTATED[name]
    refused = 0
    for where, change in mutations(original):
        document = copy.deepcopy(original)
        change(document=document)
        try:
            parser(json.dumps(document), CONTEXT)
        except ParseError as error:
            refused += 1
            assert str(error).startswith("$"), (where, str(error))
    assert refused > 100


@pytest.mark.parametrize("parser", [gbench.parse, hfine.parse], ids=["gbench", "hyperfine"])
@pytest.mark.parametrize(("text", "message"), [
    ("{", r"^line 1: not JSON"), ("[]", r"^\$: expected dict"),
    ("{}", r"^\$\.(benchmarks|results): missing"),
    ('{"benchmarks": [], "results": []}', r"^\$\.(benchmarks|results): no benchmark results"),
])
def test_unreadable_documents_are_refused(parser: Parser, text: str, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        parser(text, CONTEXT)


@pytest.mark.parametrize(("name", "change", "message"), [
    ("google-benchmark", lambda d: d["benchmarks"][0].update(real_time=2e12, time_unit="ms"),
     r"^\$\.benchmarks\[0\]\.real_time: latency .* outside 0 \.\. 1 h$"),
    ("google-benchmark", lambda d: d["benchmarks"][0].update(time_unit="fortnight"),
     r"^\$\.benchmarks\[0\]\.real_time: unknown time unit 'fortnight'$"),
    ("google-benchmark", lambda d: d["benchmarks"][0].update(iterations=2**49),
     r"^\$\.benchmarks\[0\]\.iterations: .* not a count within 1 \.\. "),
    ("google-benchmark-counters", lambda d: d["benchmarks"][1].update(text_bytes=math.inf),
     r"^\$\.benchmarks\[1\]\.text_bytes: not a finite number$"),
    ("google-benchmark", lambda d: d["benchmarks"][0].update(real_time=1e300, time_unit="s"),
     r"^\$\.benchmarks\[0\]\.real_time: latency .* outside 0 \.\. 1 h$"),
    ("hyperfine", lambda d: d["results"][0]["times"].append(-0.5),
     r"^\$\.results\[0\]\.times\[10\]: latency -0\.5 s is outside 0 \.\. 1 h$"),
    ("hyperfine", lambda d: d["results"][0]["times"].append(1e300),
     r"^\$\.results\[0\]\.times\[10\]: latency .* is outside 0 \.\. 1 h$"),
    ("hyperfine", lambda d: d["results"][0]["exit_codes"].pop(),
     r"^\$\.results\[0\]\.exit_codes: 9 values for 10 runs$"),
    ("hyperfine", lambda d: d["results"][0].update(mean=1.0),
     r"^\$\.results\[0\]\.mean: 1 s is not the mean of its times .* contradict"),
])
def test_out_of_range_values_are_refused(name: str, change: Callable[[Any], None],
                                         message: str) -> None:
    document = copy.deepcopy(MUTATED[name])
    change(document)
    with pytest.raises(ParseError, match=message):
        PARSERS[name.partition("-counters")[0]](json.dumps(document), CONTEXT)
