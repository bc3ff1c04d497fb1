"""Issue 44 for vegeta: a target answering 503 to 79 requests of 80 (v12.13.0 and v11.3.0), half
the requests to a closed port (v12.13.0), and v11.3.0's report layout (no min, 90th or
throughput) read, not refused; impossible reports refused naming the JSON path. Each test states
the figure vegeta printed that it checks against."""

import json
import math
import re
from pathlib import Path
from typing import Any

import pytest
from loadgen_support import (
    CONTEXT,
    GOLDEN,
)

from latlab_contract.parsers import ParseError, vegeta

# vegeta: a target answering 503 to 79 requests of 80 (v12.13.0 and v11.3.0), half the
# requests to a closed port (v12.13.0), and v11.3.0's report layout (no min, 90th or
# throughput).

VEGETA = GOLDEN / "vegeta"


VEGETA_FAILING = [VEGETA / "v12.13.0" / "5xx-report.json", VEGETA / "v12.13.0" /
                  "errors-report.json", VEGETA / "v11.3.0" / "5xx-report.json"]


GO_UNITS = {"ns": 1.0, "µs": 1e3, "ms": 1e6, "s": 1e9}


def vegeta_text(path: Path) -> dict[str, str]:
    """vegeta's text report of the same attack: each line's name and values."""
    found = {}
    for line in path.with_name(path.name.replace(".json", ".txt")).read_text().splitlines():
        name, _, values = line.partition("[")
        if values:
            found[name.strip()] = values
    return found


def go_ns(text: str) -> float:
    """A Go duration as vegeta printed it (`3.242ms`, `120.157µs`), in ns."""
    number, unit = re.fullmatch(r"([\d.]+)(ns|µs|ms|s)", text).groups()  # type: ignore[union-attr]
    return float(number) * GO_UNITS[unit]


@pytest.mark.parametrize("path", VEGETA_FAILING, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_vegeta_failed_requests_are_failures(path: Path) -> None:
    """vegeta printed `Success [ratio] 1.25%` and `Status Codes [code:count] 200:5 503:395`
    (the 503 target), `50.00%` and `0:25 200:25` (the closed port), and its `Error Set`: the
    requests not of status 200 .. 399 are the trial's failures, of all its requests."""
    text = vegeta_text(path)
    codes = dict(item.split(":") for item in text["Status Codes"].partition("]")[2].split())
    total = int(text["Requests"].partition("]")[2].split(",")[0])
    failed = sum(int(count) for code, count in codes.items() if not 200 <= int(code) < 400)
    success = float(text["Success"].partition("]")[2].strip().rstrip("%"))
    assert math.isclose(100 * (total - failed) / total, success, abs_tol=0.005)
    parsed = vegeta.parse(path.read_text(), CONTEXT)
    (trial,) = parsed.series[0].trials
    assert trial.failures is not None
    assert (trial.failures.failed, trial.failures.total) == (failed, total)
    assert trial.metrics["errors"] == failed
    error_set = path.with_name(path.name.replace(".json", ".txt")).read_text().partition(
        "Error Set:\n")[2].strip()
    assert error_set and error_set.splitlines()[0] in trial.failures.detail
    for code, count in codes.items():
        assert f"{code}:{count}" in trial.failures.detail


def test_vegeta_every_request_failures_are_its_reports() -> None:
    """`vegeta encode` of the closed-port attack: 25 of its 50 requests have no response
    (code 0 and an error), as its report (`Status Codes 0:25 200:25`) counts them."""
    lines = (VEGETA / "v12.13.0" / "errors-results.jsonl").read_text().splitlines()
    failed = sum(json.loads(line)["code"] == 0 for line in lines)
    (trial,) = vegeta.parse("\n".join(lines), CONTEXT).series[0].trials
    assert trial.failures is not None
    assert (trial.failures.failed, trial.failures.total) == (failed, len(lines)) == (25, 50)
    assert "connection refused" in trial.failures.detail


@pytest.mark.parametrize("name", ["report.json", "5xx-report.json"])
def test_vegeta_before_v12_8_is_read(name: str) -> None:
    """vegeta v11.3.0's report has no min, no 90th and no throughput: it printed
    `Latencies [mean, 50, 95, 99, max]` (e.g. `1.436027ms, 1.333425ms, 1.638681ms,
    4.288993ms, 5.881168ms`); the trial's summary is exactly those, nothing estimated in
    their place, and notes say what is missing."""
    path = VEGETA / "v11.3.0" / name
    text = vegeta_text(path)
    names = text["Latencies"].partition("]")[0].split(", ")
    values = text["Latencies"].partition("]")[2].strip().split(", ")
    assert names == ["mean", "50", "95", "99", "max"]
    parsed = vegeta.parse(path.read_text(), CONTEXT)
    (trial,) = parsed.series[0].trials
    assert trial.latency.reported is not None
    summary = trial.latency.reported.model_dump(exclude_none=True)
    keys = {"mean": "mean", "50": "p50", "95": "p95", "99": "p99", "max": "max"}
    assert summary.keys() == set(keys.values())
    for label, value in zip(names, values, strict=True):
        assert math.isclose(summary[keys[label]], go_ns(value), rel_tol=1e-9), label
    assert "throughput" not in trial.metrics
    rate = float(text["Requests"].partition("]")[2].split(",")[1])
    assert f"{trial.metrics['rate']:.2f}" == f"{rate:.2f}"
    assert any("no min and no 90th" in note for note in parsed.notes)
    assert any("no throughput" in note for note in parsed.notes)


def vegeta_report(change: Any) -> str:
    document = json.loads((VEGETA / "v12.13.0" / "5xx-report.json").read_text())
    change(document)
    return json.dumps(document)


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d.update(rate=-5.0),
     r"^\$\.rate: -5\.0 is negative: vegeta prints no negative time, rate or count$"),
    (lambda d: d.update(throughput=-1.0), r"^\$\.throughput: -1\.0 is negative"),
    (lambda d: d["latencies"].update({"50th": -1}), r"^\$\.latencies\.50th: -1 is negative"),
    (lambda d: d["bytes_in"].update(mean=-11.9), r"^\$\.bytes_in\.mean: -11\.9 is negative"),
    (lambda d: d["latencies"].update({"99th": d["latencies"]["max"] * 2}),
     r"^\$\.latencies: the p99 \(.* ns\) is above the max .* contradict each other$"),
    (lambda d: d["latencies"].update({"90th": d["latencies"]["50th"] // 2}),
     r"^\$\.latencies: the p50 \(.* ns\) is above the p90"),
    (lambda d: d.update(success=1.0),
     r"^\$\.success: 1 of 400 requests is not the 5 of status 200 \.\. 399"),
])
def test_vegeta_impossible_reports_are_refused(change: Any, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        vegeta.parse(vegeta_report(change), CONTEXT)
