"""Program output parsers, on real captured outputs (golden files)."""

import json
from pathlib import Path

import pytest
from hdrh.histogram import HdrHistogram

from latlab_contract.parsers import ParseContext, ParseError, get_parser
from latlab_workers.runner import parse_output
from latlab_workers.suites import SUITES_DIR, load_suite

GOLDEN = Path(__file__).parent / "golden"
ECHO = load_suite(SUITES_DIR / "echo")


def test_echo_client_output_becomes_a_trial() -> None:
    raw = (GOLDEN / "echo-client.json").read_text()
    parsed = parse_output(ECHO, ECHO.programs["client"], raw)
    (series,) = parsed.series
    assert series.labels == {}
    (trial,) = series.trials
    document = json.loads(raw)
    assert trial.latency.hdr is not None
    histogram = HdrHistogram.decode(trial.latency.hdr)
    assert histogram.get_total_count() == document["count"] == 2000
    assert histogram.get_value_at_percentile(99) == document["p99_ns"]
    # Only the metrics the suite declares are read from the top level.
    assert trial.metrics == {"throughput": document["throughput"], "errors": 0.0,
                             "timeouts": 0.0, "elapsed_s": document["elapsed_s"]}
    assert trial.latency_uncorrected is None


@pytest.mark.parametrize(("raw", "message"), [
    ("", "line 1: not JSON"),
    ("no route to host", "not JSON"),
    ("[1, 2]", r"\$: the output is not a JSON object"),
    ('{"count": 3}', r"\$.latency_hdr: missing"),
    ('{"latency_hdr": "HISTF", "throughput": "fast", "metrics": {"x": "NaN?"}}',
     r"\$.metrics.x"),
    ('{"latency_hdr": "HISTF", "labels": {"a": 1}}', r"\$.labels.a"),
    ('{"latency_hdr": "HISTF", "profiles": {"tool": "memcheck"}}', r"\$.profiles: not a list"),
    ('{"latency_hdr": "HISTF", "profiles": [{"program": "s", "tool": "memcheck", '
     '"folded": "a;b 1", "labels": {"x": "y"}}]}', "without labels"),
    ('{"latency_hdr": "HISTF", "profiles": [{"program": "s", "tool": "memcheck", '
     '"folded": "a;b many"}]}', "is not 'frame;...;frame count'"),
])
def test_unusable_output_names_where(raw: str, message: str) -> None:
    with pytest.raises(ParseError, match=message):
        get_parser("latlab-json")(raw, ParseContext(metrics=frozenset({"throughput"})))


def test_a_document_may_carry_its_programs_own_stacks() -> None:
    raw = (GOLDEN / "echo-client.json").read_text()
    document = {**json.loads(raw), "profiles": [
        {"program": "server-zig", "tool": "memcheck",
         "folded": "main (main.zig:10);parseHead (http.zig:93);UninitCondition 300\n"}]}
    parsed = get_parser("latlab-json")(json.dumps(document), ParseContext())
    (profile,) = parsed.profiles
    assert (profile.program, profile.tool, profile.labels) == ("server-zig", "memcheck", {})
    assert profile.folded.startswith("main (main.zig:10);parseHead")


def test_an_unknown_format_is_named() -> None:
    with pytest.raises(ParseError, match="unknown output format 'nope'"):
        get_parser("nope")


def test_echo_server_announces_its_address() -> None:
    line = (GOLDEN / "echo-server-ready.txt").read_text().strip()
    assert json.loads(line)["listening"].startswith("127.0.0.1:")
