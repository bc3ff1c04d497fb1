"""The ApacheBench parser on real ab 2.3 output (golden/ab/, commands in golden/README.md).
Expected values are read off the files by eye; the histogram is read back with hdrh."""

from pathlib import Path

import pytest
from hdrh.histogram import HdrHistogram

from latlab_contract.parsers import ParseContext, ParseError, get_parser

GOLDEN = Path(__file__).parent / "golden" / "ab"
ROWS = (50, 66, 75, 80, 90, 95, 98, 99, 100)


def parse(name: str):  # type: ignore[no-untyped-def]
    parsed = get_parser("ab")((GOLDEN / name).read_text(), ParseContext())
    (series,) = parsed.series
    assert series.labels == {}
    (trial,) = series.trials
    return parsed, trial


@pytest.mark.parametrize(("name", "expected", "table"), [
    ("ab-c100.txt",
     {"requests": 5000, "throughput": 6270.21, "mean_ms": 15.948, "duration_s": 0.797,
      "failed": 0, "non_2xx": 0, "errors": 0, "keepalive_requests": 0},
     (13, 15, 18, 19, 28, 33, 59, 77, 86)),
    ("ab-keepalive-c10.txt",
     {"requests": 20000, "throughput": 49777.87, "mean_ms": 0.201, "keepalive_requests": 20000,
      "errors": 0},
     (0, 0, 0, 0, 0, 0, 0, 1, 16)),
    ("ab-timelimit-c1000.txt",
     {"requests": 44618, "throughput": 22216.59, "mean_ms": 45.011, "duration_s": 2.008},
     (43, 47, 50, 53, 60, 70, 80, 89, 97)),
])
def test_ab_output_becomes_a_trial(name: str, expected: dict[str, float],
                                   table: tuple[int, ...]) -> None:
    parsed, trial = parse(name)
    for metric, value in expected.items():
        assert trial.metrics[metric] == value, metric
    for percent, value in zip(ROWS, table, strict=True):
        key = "ab_max_ms" if percent == 100 else f"ab_p{percent}_ms"
        assert trial.metrics[key] == value, key
    # The histogram stands for the table: ab's count, ab's value at each of ab's rows.
    histogram = HdrHistogram.decode(trial.latency.hdr)
    assert histogram.get_total_count() == expected["requests"]
    for percent, value in zip(ROWS, table, strict=True):
        assert histogram.values_are_equivalent(
            histogram.get_value_at_percentile(percent), value * 1_000_000), percent
    # Every metric is declared, but the two the lab knows (requests/s, failed + non-2xx).
    assert set(trial.metrics) - set(parsed.metric_info) == {"throughput", "errors"}


def test_failures_and_non_2xx_are_counted() -> None:
    _, trial = parse("ab-non-2xx.txt")
    assert trial.metrics["non_2xx"] == 1000 and trial.metrics["failed"] == 0
    assert trial.metrics["errors"] == 1000

    _, trial = parse("ab-failed-length.txt")
    assert trial.metrics["failed"] == 1995 and trial.metrics["failed_length"] == 1995
    assert trial.metrics["failed_connect"] == trial.metrics["failed_receive"] == 0
    assert trial.metrics["errors"] == 1995


def test_a_server_dying_under_load_shows_in_the_breakdown() -> None:
    assert (GOLDEN / "ab-server-killed.exit-status").read_text().strip() == "0"
    _, trial = parse("ab-server-killed.txt")
    assert (trial.metrics["failed"], trial.metrics["failed_receive"],
            trial.metrics["failed_length"], trial.metrics["failed_exceptions"]) == (
        449953, 179981, 179981, 89991)
    assert trial.metrics["requests"] == 200000 and trial.metrics["ab_max_ms"] == 225


def test_ab_that_measured_nothing_is_refused_with_its_last_words() -> None:
    assert (GOLDEN / "ab-refused.exit-status").read_text().strip() == "111"
    with pytest.raises(ParseError, match=r"ab printed no results.*be patient"):
        parse("ab-refused.txt")
    with pytest.raises(ParseError, match="Connection refused"):
        get_parser("ab")((GOLDEN / "ab-refused.stderr.txt").read_text(), ParseContext())


@pytest.mark.parametrize(("edit", "message"), [
    (lambda text: text.replace("  99%      1\n", ""), "has rows"),
    (lambda text: text.replace("  99%      1\n", "  99%      0\n").replace(
        "  98%      0\n", "  98%      3\n"), "must not decrease"),
    (lambda text: text.replace("Complete requests:      20000", "Complete requests:      1"),
     "needs two or more"),
    (lambda text: text[:text.index("Percentage of")], "no 'Percentage"),
])
def test_a_damaged_table_is_refused(edit, message: str) -> None:  # type: ignore[no-untyped-def]
    text = edit((GOLDEN / "ab-keepalive-c10.txt").read_text())
    with pytest.raises(ParseError, match=message):
        get_parser("ab")(text, ParseContext())
