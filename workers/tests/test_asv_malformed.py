"""The asv adapter on malformed input: a results file broken one way, or a file that is not
asv's results, is refused as a ParseError naming the JSON path (a row's columns by their
`result_columns` names) and the rule."""

import json
import re
from typing import Any

import pytest
from asv_support import CONTEXT, GOLDEN

from latlab_contract.parsers import ParseError, get_parser

FAST = GOLDEN / "0.6.6" / "fast.json"
ROW = '$.results["benchmarks.time_checksum_10"]'


def changed(change: Any) -> str:
    document = json.loads(FAST.read_text())
    change(document)
    return json.dumps(document)


def cell(column: str, value: Any, name: str = "benchmarks.time_checksum_10") -> Any:
    def change(document: dict[str, Any]) -> None:
        row = document["results"][name]
        row[document["result_columns"].index(column)] = value
    return change


@pytest.mark.parametrize(("text", "message"), [
    (FAST.read_text()[:700], r"^line \d+: not JSON"),
    ((GOLDEN / "0.6.6" / "fast.run.txt").read_text(),
     r"^line 1: asv's console output, not its results JSON: give the file `asv run` wrote"),
    ((GOLDEN / "0.6.6" / "fast.show.txt").read_text(), r"^line 1: asv's console output"),
    ((GOLDEN / "0.6.6" / "machine.json").read_text(),
     r"^\$: asv's machine\.json, not a results file"),
    ((GOLDEN / "0.6.6" / "benchmarks.json").read_text(), r"^\$: asv's benchmarks\.json"),
    (changed(lambda d: d.update(version=1)), r"^\$\.version: results API version 1"),
    (changed(lambda d: d.pop("result_columns")), r"^\$\.result_columns: missing$"),
    (changed(lambda d: d.update(results={})), r"^\$\.results: no benchmark results$"),
    (changed(lambda d: d["results"].update({"benchmarks.time_checksum_10": {"result": 1}})),
     rf"^{re.escape(ROW)}: expected list"),
    (changed(lambda d: d["results"].update({" ": d["results"]["benchmarks.mem_table"]})),
     r'^\$\.results\[" "\]: an empty name'),
    (changed(cell("result", [1e-6, 2e-6, 3e-6], "benchmarks.TimeSuite.time_checksum")),
     r'\.time_checksum"\]\.result: 3 values for 4 parameter combinations'),
    (changed(cell("params", [[10, 1000], ["'bytes'", "'str'"]],
                  "benchmarks.TimeSuite.time_checksum")),
     r'\.time_checksum"\]\.params\[0\]\[0\]: expected str'),
    (changed(cell("result", [-1e-6])),
     rf"^{re.escape(ROW)}\.result\[0\]: latency -1e-06 s is outside 0 \.\. 1 h$"),
    (changed(cell("stats_q_25", [1.0])),
     rf"^{re.escape(ROW)}\.stats_q_25\[0\]: 1 s is above the median"),
    (changed(cell("stats_ci_99_b", [1e-9])),
     rf"^{re.escape(ROW)}\.stats_ci_99_b\[0\]: 1e-09 s is below the median"),
    (changed(cell("stats_q_75", [float("nan")])),
     rf"^{re.escape(ROW)}\.stats_q_75\[0\]: not a finite number"),
    (changed(cell("stats_number", [0])),
     rf"^{re.escape(ROW)}\.stats_number\[0\]: 0 is not a count within 1"),
    (changed(cell("samples", [[1e-3] * 14])),
     rf"^{re.escape(ROW)}\.result\[0\]: .* contradicts the samples: their 0\.5 quantile"),
    (changed(cell("samples", [[1e-6] * 13])),
     rf"^{re.escape(ROW)}\.stats_repeat\[0\]: 14 contradicts the samples: 13 of them"),
    (changed(lambda d: d["results"].update({"benchmarks.time_checksum_10": d["results"][
        "benchmarks.time_checksum_10"][:5]})),
     rf"^{re.escape(ROW)}\.stats_ci_99_a\[0\]: missing: asv writes the statistics"),
    (changed(cell("result", [-856], "benchmarks.mem_table")),
     r'mem_table"\]\.result\[0\]: -856 bytes: a size cannot be negative'),
])
def test_refuses_what_it_cannot_read(text: str, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        get_parser("asv")(text, CONTEXT)


def _only(*names: str) -> str:
    return changed(lambda d: d.update(results={name: d["results"][name] for name in names}))


def test_a_file_of_failures_only_is_refused_naming_them() -> None:
    with pytest.raises(ParseError, match=r"^\$\.results: no benchmark was measured: asv wrote "
                                         r"no result for benchmarks\.time_reads_missing_file"):
        get_parser("asv")(_only("benchmarks.time_reads_missing_file"), CONTEXT)


def test_a_file_without_a_timed_result_is_refused() -> None:
    text = _only("benchmarks.mem_table", "benchmarks.track_rounds")
    with pytest.raises(ParseError, match=r"^\$\.results: no timed result .*"
                                         r"benchmarks\.mem_table, benchmarks\.track_rounds"):
        get_parser("asv")(text, CONTEXT)
