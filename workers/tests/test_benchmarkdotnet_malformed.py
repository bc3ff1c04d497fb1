"""The BenchmarkDotNet adapter on malformed input: an export broken one way, another of
BenchmarkDotNet's reports, or an export of failures only is refused as a ParseError naming the
JSON path and the rule; every field of an export replaced by a wrong kind, a non-finite or
out-of-range number, or left out, is read or refused so, never another exception."""

import copy
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from benchmarkdotnet_support import CONTEXT, FAILING, GOLDEN, V0_15_1, document, relative

from latlab_contract.parsers import ParseError, get_parser


def changed(path: Path, change: Callable[[dict[str, Any]], object]) -> str:
    edited = copy.deepcopy(document(path))
    change(edited)
    return json.dumps(edited)


def result_measurement(bench: dict[str, Any]) -> dict[str, Any]:
    return next(m for m in bench["Measurements"]
                if (m["IterationMode"], m["IterationStage"]) == ("Workload", "Result"))


def first(edited: dict[str, Any]) -> dict[str, Any]:
    return edited["Benchmarks"][0]  # type: ignore[no-any-return]


BRIEF = V0_15_1.with_name(V0_15_1.name.replace("-full", "-brief"))
OLD = GOLDEN / "upstream" / "IntroJsonExport-report-brief.json"


@pytest.mark.parametrize(("make", "message"), [
    (lambda: V0_15_1.read_text()[:700], r"^line \d+: not JSON"),
    (lambda: V0_15_1.with_name(V0_15_1.name.replace("-full.json", "-github.md")).read_text(),
     r"^line 1: BenchmarkDotNet's markdown report, not its JSON: run with --exporters json"),
    (lambda: V0_15_1.with_name(V0_15_1.name.replace("-full.json", ".csv")).read_text(),
     r"^line 1: BenchmarkDotNet's CSV report, not its JSON"),
    (lambda: json.dumps({"Title": "x", "Benchmarks": []}),
     r"^\$\.Benchmarks: no benchmark results$"),
    (lambda: json.dumps({"Title": "x"}), r"^\$\.Benchmarks: missing$"),
    (lambda: (GOLDEN / "edited" / "github-action-benchmark-benchmarkdotnet.json").read_text(),
     r"^\$\.Benchmarks\[0\]\.Measurements: no Workload Result iteration, yet "
     r"\$\.Benchmarks\[0\]\.Statistics\.N is 14: the measurements are cut"),
    (lambda: changed(V0_15_1, lambda d: result_measurement(first(d)).update(Nanoseconds=-1)),
     r"^\$\.Benchmarks\[0\]\.Measurements\[\d+\]\.Nanoseconds: -1 is negative$"),
    (lambda: changed(V0_15_1, lambda d: result_measurement(first(d)).update(Operations=0)),
     r"^\$\.Benchmarks\[0\]\.Measurements\[\d+\]\.Operations: 0 is not a count of operations"),
    (lambda: changed(V0_15_1, lambda d: result_measurement(first(d)).update(Nanoseconds=4e15)),
     r"Nanoseconds / Operations: latency .* ns is outside 0 \.\. 1 h$"),
    (lambda: changed(V0_15_1, lambda d: first(d)["Statistics"].update(Mean=1.0)),
     r"^\$\.Benchmarks\[0\]\.Statistics\.Mean: 1 ns contradicts \$\.Benchmarks\[0\]\."
     r"Measurements \(Workload Result\): the mean of their times per operation is"),
    (lambda: changed(V0_15_1, lambda d: first(d)["Statistics"].update(N=81)),
     r"^\$\.Benchmarks\[0\]\.Statistics\.N: 81 contradicts .*: 82 iterations$"),
    (lambda: changed(BRIEF, lambda d: first(d)["Statistics"]["OriginalValues"].pop()),
     r"^\$\.Benchmarks\[0\]\.Statistics\.N: 82 contradicts \$\.Benchmarks\[0\]\.Statistics\."
     r"OriginalValues: 81 iterations$"),
    (lambda: changed(V0_15_1, lambda d: first(d).update(Type=" ")),
     r"^\$\.Benchmarks\[0\]\.Type: an empty name"),
    (lambda: changed(V0_15_1, lambda d: first(d).pop("Statistics")),
     r"^\$\.Benchmarks\[0\]\.Statistics: missing"),
    (lambda: changed(V0_15_1, lambda d: first(d).update(Parameters="Size")),
     r"^\$\.Benchmarks\[0\]\.Parameters: 'Size' is not BenchmarkDotNet's Name=Value"),
    (lambda: changed(V0_15_1, lambda d: d["Benchmarks"].append(first(d))),
     r"^\$\.Benchmarks\[1\]: the same labels as \$\.Benchmarks\[0\]"),
    (lambda: changed(V0_15_1, lambda d: first(d)["Memory"].update(Gen0Collections=-1)),
     r"^\$\.Benchmarks\[0\]\.Memory\.Gen0Collections: -1 is not a count$"),
    (lambda: changed(V0_15_1, lambda d: first(d)["Memory"].update(
        BytesAllocatedPerOperation=-5)), r"\.Memory\.BytesAllocatedPerOperation: -5 is negative"),
    (lambda: changed(OLD, lambda d: first(d)["Statistics"]["Percentiles"].update(P90=1e9)),
     r"^\$\.Benchmarks\[0\]\.Statistics\.Percentiles\.P90: 1e\+09 ns is above its P95"),
])
def test_it_refuses_what_it_cannot_read(make, message) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ParseError, match=message):
        get_parser("benchmarkdotnet")(make(), CONTEXT)


def test_a_file_of_failures_only_is_refused_naming_them() -> None:
    edited = document(FAILING)
    for bench in edited["Benchmarks"]:
        bench["Statistics"] = None
    with pytest.raises(ParseError, match=r"^\$\.Benchmarks: no benchmark was measured: "
                                         r"BenchmarkDotNet has no statistics for "
                                         r"OpenApiBenchmarks\.AspNetCore: DefaultJob; "):
        get_parser("benchmarkdotnet")(json.dumps(edited), CONTEXT)


BAD_VALUES: list[Any] = [None, "x", True, [], {}, float("nan"), -1, 1e300, 0]


def mutations(node: Any, path: str = "$", steps: tuple[str | int, ...] = ()
              ) -> Iterator[tuple[str, tuple[str | int, ...], Any]]:
    """(where, steps to the field, its new value or REMOVED) for every field of a document
    (the first three items of a list): each bad value in its place, and the field removed."""
    if isinstance(node, dict):
        items: list[tuple[Any, Any]] = list(node.items())
    elif isinstance(node, list):
        items = list(enumerate(node))[:3]
    else:
        return
    for field, value in items:
        where = f"{path}[{field}]" if isinstance(field, int) else f"{path}.{field}"
        for bad in (*BAD_VALUES, REMOVED):
            yield where, (*steps, field), bad
        yield from mutations(value, where, (*steps, field))


REMOVED = object()


@pytest.mark.parametrize("path", [GOLDEN / "upstream" / "MockSummary-report-full.json", OLD],
                         ids=relative)
def test_malformed_fields_are_read_or_refused_naming_their_path(path: Path) -> None:
    """Every field of a full export (BenchmarkDotNet's approval file) and of a 0.9.9 brief one,
    cut to their first benchmark, replaced by a wrong kind, a non-finite or out-of-range
    number, or left out: read, or refused as a ParseError naming a JSON path, never another
    exception."""
    original = document(path)
    original["Benchmarks"] = original["Benchmarks"][:1]
    refused = 0
    for where, steps, bad in mutations(original):
        edited = copy.deepcopy(original)
        *parents, last = steps
        node = edited
        for step in parents:
            node = node[step]
        if bad is REMOVED:
            del node[last]
        else:
            node[last] = bad
        try:
            get_parser("benchmarkdotnet")(json.dumps(edited), CONTEXT)
        except ParseError as error:
            refused += 1
            assert str(error).startswith("$"), (where, str(error))
    assert refused > 150
