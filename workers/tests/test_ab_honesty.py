"""Issue 44 for ab: its Failed requests and Non-2xx responses, against a target answering 503 to 3
of 4 requests (ab-5xx.txt) and the earlier goldens (a 404 target, varying lengths, a server
killed mid-run), become the trial's failures as ab counted them; impossible output refused."""

import re
from pathlib import Path

import pytest
from loadgen_support import (
    CONTEXT,
)

from latlab_contract.parsers import ParseError, ab

# ab: its Failed requests and Non-2xx responses, against a target answering 503 to 3 of 4
# requests (ab-5xx.txt) and the earlier goldens (a 404 target, varying lengths, a server
# killed mid-run).

AB = Path(__file__).parent / "golden" / "ab"


def ab_count(text: str, name: str) -> int:
    found = re.search(rf"^{name}:\s+(\d+)\s*$", text, re.MULTILINE)
    return int(found.group(1)) if found else 0


@pytest.mark.parametrize("name", ["ab-5xx.txt", "ab-non-2xx.txt", "ab-failed-length.txt",
                                  "ab-server-killed.txt", "ab-c100.txt"])
def test_ab_failures_are_its_failed_and_non_2xx(name: str) -> None:
    """ab printed, for the 503 target, `Complete requests: 1000`, `Failed requests: 250`
    (`Length: 250`: the 200s' body is shorter than the first answer's 503) and `Non-2xx
    responses: 750`; the killed server's `Failed requests: 449953` of 200000 complete (its
    counters overlap: the share is unknown)."""
    text = (AB / name).read_text()
    failed = ab_count(text, "Failed requests") + ab_count(text, "Non-2xx responses")
    complete = ab_count(text, "Complete requests")
    (trial,) = ab.parse(text, CONTEXT).series[0].trials
    if failed == 0:
        assert trial.failures is None
        return
    assert trial.failures is not None
    assert trial.failures.failed == failed == trial.metrics["errors"]
    assert trial.failures.total == (complete if failed <= complete else None)
    assert f"Failed requests: {ab_count(text, 'Failed requests')}" in trial.failures.detail


@pytest.mark.parametrize(("old", "new", "message"), [
    ("Failed requests:        250", "Failed requests:        -250",
     r"^line 18: 'Failed requests: +-250': a count, rate or time cannot be negative$"),
    ("Requests per second:    ", "Requests per second:    -",
     r"^line \d+: 'Requests per second: .*cannot be negative$"),
    ("  99%      5", "  99%     -5", r"^line \d+: '99% +-5': a time cannot be negative$"),
    ("  99%      5", "  99%     10",
     r"^line \d+: the 100 % row \(9 ms\) is below the 99 % row \(10 ms\): the served-within "
     r"table must not decrease$"),
])
def test_ab_impossible_output_is_refused(old: str, new: str, message: str) -> None:
    text = (AB / "ab-5xx.txt").read_text()
    assert old in text
    with pytest.raises(ParseError, match=message):
        ab.parse(text.replace(old, new, 1), CONTEXT)
