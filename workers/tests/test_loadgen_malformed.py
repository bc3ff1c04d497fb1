"""The load generators' adapters (wrk, vegeta, oha, ghz) on malformed input: each golden file
broken one way is refused as a ParseError naming its line or JSON path."""

import json
import math
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from loadgen_support import (
    CONTEXT,
    GHZ,
    OHA,
    VEGETA,
    WRK,
)

from latlab_contract.parsers import ParseError, ghz, oha, vegeta, wrk

# Malformed input: each golden file broken one way, refused naming the line or JSON path.


def text_of(path: Path) -> Callable[[Callable[[str], str]], str]:
    return lambda change: change(path.read_text())


def json_of(path: Path, change: Callable[[Any], object]) -> str:
    document = json.loads(path.read_text())
    change(document)
    return json.dumps(document)


def lines_without(text: str, number: int) -> str:
    lines = text.splitlines()
    return "\n".join(lines[:number - 1] + lines[number:])


WRK_TEXT = text_of(WRK / "t1-c1-d3s.txt")


VEGETA_REPORT = VEGETA / "v12.13.0" / "report.json"


VEGETA_LINES = text_of(VEGETA / "v12.13.0" / "errors-results.jsonl")


OHA_JSON = OHA / "1.16.0" / "oha.json"


GHZ_JSON = GHZ / "v0.93.0" / "ghz.json"


def _set(path: list[str | int], value: object) -> Callable[[Any], object]:
    def change(document: Any) -> None:
        for key in path[:-1]:
            document = document[key]
        document[path[-1]] = value
    return change


def _delete(path: list[str | int]) -> Callable[[Any], object]:
    def change(document: Any) -> None:
        for key in path[:-1]:
            document = document[key]
        del document[path[-1]]
    return change


def _on_line(number: int, old: str, new: str) -> Callable[[str], str]:
    def change(text: str) -> str:
        lines = text.splitlines()
        assert old in lines[number - 1]
        lines[number - 1] = lines[number - 1].replace(old, new, 1)
        return "\n".join(lines)
    return change


def _all_failed(document: Any) -> None:
    for detail in document["details"]:
        detail["error"], detail["status"] = "rpc error: code = Internal", "Internal"
    document["errorDistribution"] = {"rpc error: code = Internal": document["count"]}


def _summary_only(document: Any) -> None:
    del document["details"]
    document["latencyDistribution"][2]["latency"] = -1


MALFORMED: list[tuple[str, ModuleType, str, str]] = [
    ("wrk-cut", wrk, WRK_TEXT(lambda t: "\n".join(t.splitlines()[:9])),
     r"^line 9: no 'N requests in' line"),
    ("wrk-negative", wrk, WRK_TEXT(_on_line(7, "15.00us", "-15.00us")),
     r"^line 7: '-15.00us' is not a time"),
    ("wrk-nan", wrk, WRK_TEXT(_on_line(4, "1.61ms", "-nan")), r"^line 4: '-nan' is not a time"),
    ("wrk-missing", wrk, WRK_TEXT(lambda t: lines_without(t, 4)),
     r"^line 12: no thread stats 'Latency' line"),
    ("wrk-huge-count", wrk, WRK_TEXT(_on_line(11, "97940 requests", f"{2**60} requests")),
     r"^line 11: a count of 1152921504606846976 is outside"),
    ("wrk-disorder", wrk, WRK_TEXT(_on_line(9, "3.46ms", "1.00us")),
     r"^line 9: the 90 % \(1\.00us\) is not above the 75 % \(833\.00us\): percentiles out "
     "of order"),
    ("vegeta-cut", vegeta, VEGETA_REPORT.read_text()[:150], r"^line 1: not JSON"),
    ("vegeta-negative", vegeta, json_of(VEGETA_REPORT, _set(["latencies", "min"], -1)),
     r"^\$\.latencies\.min: -1 is negative: vegeta prints no negative time"),
    ("vegeta-nan", vegeta, json_of(VEGETA_REPORT, _set(["latencies", "mean"], math.nan)),
     r"^\$\.latencies\.mean: not a finite number"),
    ("vegeta-missing", vegeta, json_of(VEGETA_REPORT, _delete(["latencies", "99th"])),
     r"^\$\.latencies\.99th: missing"),
    ("vegeta-huge-count", vegeta, json_of(VEGETA_REPORT, _set(["requests"], 2**60)),
     r"^\$\.requests: a count of 1,152,921,504,606,846,976 is outside"),
    ("vegeta-codes", vegeta, json_of(VEGETA_REPORT, _set(["status_codes"], {"200": 599})),
     r"^\$\.status_codes: its counts sum to 599, not the 600 requests"),
    ("vegeta-lines-cut", vegeta, VEGETA_LINES(lambda t: t[:-100]), r"^line 50: not JSON"),
    ("vegeta-lines-negative", vegeta, VEGETA_LINES(_on_line(3, '"latency":', '"latency":-')),
     r"^line 3\.latency: latency -\d+ ns is outside 0 \.\. 1 h"),
    ("vegeta-lines-nan", vegeta, VEGETA_LINES(_on_line(2, '"latency":324664', '"latency":NaN')),
     r"^line 2\.latency: not a finite number"),
    ("vegeta-lines-missing", vegeta, VEGETA_LINES(_on_line(2, '"code":0,', "")),
     r"^line 2\.code: missing"),
    ("vegeta-lines-time", vegeta, VEGETA_LINES(_on_line(2, "T23:30:37", " 23:30:37")),
     r"^line 2\.timestamp: .* is not an RFC 3339 time"),
    ("vegeta-lines-huge", vegeta, VEGETA_LINES(_on_line(2, '"latency":324664',
                                                        f'"latency":{2**60}')),
     r"^line 2\.latency: latency 1152921504606846976 ns is outside"),
    ("oha-cut", oha, OHA_JSON.read_text()[:900], r"^line \d+: not JSON"),
    ("oha-negative", oha, json_of(OHA_JSON, _set(["summary", "fastest"], -0.001)),
     r"^\$\.summary\.fastest: -0\.001 is negative: oha prints no negative time"),
    ("oha-nan", oha, json_of(OHA_JSON, _set(["latencyPercentiles", "p99"], math.nan)),
     r"^\$\.latencyPercentiles\['p99'\]: not a finite number"),
    ("oha-missing", oha, json_of(OHA_JSON, _delete(["statusCodeDistribution"])),
     r"^\$\.statusCodeDistribution: missing"),
    ("oha-huge-count", oha, json_of(OHA_JSON, _set(["statusCodeDistribution", "200"], 2**60)),
     r"^\$\.statusCodeDistribution\['200'\]: a count of .* is outside"),
    ("oha-no-response", oha, json_of(OHA_JSON, _set(["statusCodeDistribution"], {})),
     r"^\$\.statusCodeDistribution: no request got a response"),
    ("oha-disorder", oha, json_of(OHA_JSON, _set(["latencyPercentiles", "p90"], 1e-6)),
     r"^\$\.latencyPercentiles\.p75: 0\.000236347 is above \$\.latencyPercentiles\.p90 "
     r"\(1e-06\): percentiles out of order$"),
    ("ghz-cut", ghz, GHZ_JSON.read_text()[:5000], r"^line \d+: not JSON"),
    ("ghz-negative", ghz, json_of(GHZ_JSON, _set(["details", 3, "latency"], -5)),
     r"^\$\.details\[3\]\.latency: latency -5 ns is outside"),
    ("ghz-nan", ghz, json_of(GHZ_JSON, _set(["average"], math.nan)),
     r"^\$\.average: not a finite number"),
    ("ghz-missing", ghz, json_of(GHZ_JSON, _delete(["count"])), r"^\$\.count: missing"),
    ("ghz-huge-count", ghz, json_of(GHZ_JSON, _set(["count"], 2**60)),
     r"^\$\.count: a count of 1,152,921,504,606,846,976 is outside"),
    ("ghz-all-failed", ghz, json_of(GHZ_JSON, _all_failed), r"^\$\.details: no call succeeded"),
    ("ghz-summary-negative", ghz, json_of(GHZ_JSON, _summary_only),
     r"^\$\.latencyDistribution\[2\]\.latency: latency -1 ns is outside"),
]


@pytest.mark.parametrize(("module", "text", "message"), [case[1:] for case in MALFORMED],
                         ids=[case[0] for case in MALFORMED])
def test_malformed_output_is_refused_naming_where(module: ModuleType, text: str,
                                                  message: str) -> None:
    with pytest.raises(ParseError, match=message):
        module.parse(text, CONTEXT)
