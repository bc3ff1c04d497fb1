"""Issue 44 for ghz: a server failing 3 calls of 4 with Unavailable (v0.121.0) and ghz's own
sample with Internal and PermissionDenied errors become the trial's failures as ghz counted
them; impossible reports refused naming the JSON path."""

import json
import re
from typing import Any

import pytest
from loadgen_support import (
    CONTEXT,
    GOLDEN,
)

from latlab_contract.parsers import ParseError, ghz

# ghz: a server failing 3 calls of 4 with Unavailable (v0.121.0), ghz's own sample with
# Internal and PermissionDenied errors.

GHZ = GOLDEN / "ghz"


def test_ghz_failed_calls_are_failures() -> None:
    """ghz printed (`-O summary`, a second run against the same server) `[Unavailable] 1500
    responses`, `[OK] 500 responses` and `[1500] rpc error: code = Unavailable desc = flaky:
    try again`; its JSON counts the same: 1500 of 2000 calls failed."""
    summary = (GHZ / "v0.121.0" / "unavailable.txt").read_text()
    printed = {code: int(n) for code, n in
               re.findall(r"^\s+\[(\w+)\]\s+(\d+) responses", summary, re.MULTILINE)}
    document = json.loads((GHZ / "v0.121.0" / "unavailable.json").read_text())
    assert printed == document["statusCodeDistribution"] == {"Unavailable": 1500, "OK": 500}
    (trial,) = ghz.parse(json.dumps(document), CONTEXT).series[0].trials
    assert trial.failures is not None
    assert (trial.failures.failed, trial.failures.total) == (1500, document["count"])
    assert "[1500] rpc error: code = Unavailable desc = flaky: try again" in \
        trial.failures.detail
    assert trial.metrics["errors"] == 1500


def test_ghz_sample_errors_are_failures() -> None:
    """ghz's sample pretty.json: `count` 200, `statusCodeDistribution` `{"OK": 191}` and 9
    calls in its `errorDistribution` (5 Internal, 4 PermissionDenied)."""
    (trial,) = ghz.parse((GHZ / "upstream" / "pretty.json").read_text(),
                         CONTEXT).series[0].trials
    assert trial.failures is not None
    assert (trial.failures.failed, trial.failures.total) == (9, 200)


def ghz_report(change: Any, details: bool = False) -> str:
    document = json.loads((GHZ / "v0.121.0" / "unavailable.json").read_text())
    if not details:
        del document["details"]  # the summary's own distribution is read
    change(document)
    return json.dumps(document)


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d["latencyDistribution"][6].update(latency=d["slowest"] * 2),
     r"^\$\.latencyDistribution: .* ns is above the next point .*contradict each other$"),
    (lambda d: d["latencyDistribution"][2].update(latency=d["latencyDistribution"][4]
                                                  ["latency"] * 2),
     r"^\$\.latencyDistribution: .* is above the next point"),
    (lambda d: d.update(fastest=-5), r"^\$\.fastest: latency -5 ns is outside 0 \.\. 1 h$"),
    (lambda d: d["latencyDistribution"][3].update(latency=-5),
     r"^\$\.latencyDistribution\[3\]\.latency: latency -5 ns is outside 0 \.\. 1 h$"),
    (lambda d: d.update(rps=-1.0), r"^\$\.rps: -1\.0 is outside 0 \.\. "),
    (lambda d: d.update(statusCodeDistribution={"OK": 500, "Unavailable": 2500}),
     r"^\$\.statusCodeDistribution: 3,000 calls, more than the 2,000 of \$\.count$"),
])
@pytest.mark.parametrize("details", [False, True], ids=["summary", "details"])
def test_ghz_impossible_reports_are_refused(change: Any, message: str, details: bool) -> None:
    """With every call's details too: the printed distribution must hold together."""
    with pytest.raises(ParseError, match=message):
        ghz.parse(ghz_report(change, details), CONTEXT)
