"""Issue 44 for oha 1.16.0: a target answering 503 to 3 requests of 4, and a closed port, become
the trial's failures as oha counted them; impossible output refused naming the JSON path."""

import json
import re
from typing import Any

import pytest
from loadgen_support import (
    CONTEXT,
    GOLDEN,
)

from latlab_contract.parsers import ParseError, oha

# oha 1.16.0: a target answering 503 to 3 requests of 4, and a closed port.

OHA = GOLDEN / "oha" / "1.16.0"


def test_oha_5xx_responses_are_failures() -> None:
    """oha printed (`5xx.txt`, a second run against the same target) `[503] 1500 responses`
    and `[200] 500 responses`; its JSON counts the same, with a success rate of 1.0 (every
    request answered): the 503s are the trial's failures, 1500 of 2000."""
    printed = {code: int(n) for code, n in re.findall(
        r"^\s+\[(\d+)\] (\d+) responses", (OHA / "5xx.txt").read_text(), re.MULTILINE)}
    document = json.loads((OHA / "5xx.json").read_text())
    assert printed == document["statusCodeDistribution"] == {"503": 1500, "200": 500}
    assert document["summary"]["successRate"] == 1.0
    (trial,) = oha.parse(json.dumps(document), CONTEXT).series[0].trials
    assert trial.failures is not None
    assert (trial.failures.failed, trial.failures.total) == (1500, 2000)
    assert "503: 1500" in trial.failures.detail


def test_oha_without_any_response_names_its_errors() -> None:
    """Every request to a closed port failed: oha's `errorDistribution` is
    `{"Connection refused (os error 111)": 200}`; no latency, and the error says why."""
    with pytest.raises(ParseError, match=r"^\$\.statusCodeDistribution: no request got a "
                       r"response: .*\[200\] Connection refused \(os error 111\)"):
        oha.parse((OHA / "refused.json").read_text(), CONTEXT)


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d["latencyPercentiles"].update({"p99.99": d["summary"]["slowest"] * 2}),
     r"^\$\.latencyPercentiles: the p99\.99 .* is above the slowest .* contradict each "
     r"other$"),
    (lambda d: d["summary"].update(fastest=d["summary"]["slowest"] * 2),
     r"^\$\.summary\.fastest: .* is above \$\.summary\.slowest"),
    (lambda d: d["summary"].update(requestsPerSec=-1.0),
     r"^\$\.summary\.requestsPerSec: -1\.0 is negative: oha prints no negative"),
])
def test_oha_impossible_output_is_refused(change: Any, message: str) -> None:
    document = json.loads((OHA / "5xx.json").read_text())
    change(document)
    with pytest.raises(ParseError, match=message):
        oha.parse(json.dumps(document), CONTEXT)
