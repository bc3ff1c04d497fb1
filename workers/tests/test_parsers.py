"""Program output parsers, on real captured outputs (golden files)."""

import json
from pathlib import Path

import pytest
from hdrh.histogram import HdrHistogram

from latlab_workers.parsers import OutputError, parse_output
from latlab_workers.suites import SUITES_DIR, load_suite, load_suites

GOLDEN = Path(__file__).parent / "golden"


def test_echo_client_output_becomes_a_trial() -> None:
    suite = load_suite(SUITES_DIR / "echo")
    raw = (GOLDEN / "echo-client.json").read_text()
    trial = parse_output("latlab-json", raw, suite)
    document = json.loads(raw)
    histogram = HdrHistogram.decode(trial["latency"]["hdr"])
    assert histogram.get_total_count() == document["count"] == 2000
    assert histogram.get_value_at_percentile(99) == document["p99_ns"]
    assert trial["metrics"] == {"throughput": document["throughput"], "errors": 0.0,
                                "timeouts": 0.0}
    assert "latency_uncorrected" not in trial


@pytest.mark.parametrize(("raw", "message"), [
    ("", "not JSON"),
    ("no route to host", "not JSON"),
    ('{"count": 3}', "no latency_hdr"),
])
def test_unusable_output_is_an_error(raw: str, message: str) -> None:
    with pytest.raises(OutputError, match=message):
        parse_output("latlab-json", raw, load_suite(SUITES_DIR / "echo"))


def test_every_suite_loads_and_describes_itself() -> None:
    suites = load_suites()
    assert "echo" in suites
    for suite in suites.values():
        info = suite.info()
        assert info.scenarios and info.params_schema["additionalProperties"] is False
        assert all(p.role in ("server", "load") for p in suite.programs.values())
        for scenario in suite.scenarios:
            params = suite.resolved_params(scenario, {})
            assert suite.loads(scenario, params)
            assert set(params) <= set(suite.params)


def test_echo_server_announces_its_address() -> None:
    line = (GOLDEN / "echo-server-ready.txt").read_text().strip()
    assert json.loads(line)["listening"].startswith("127.0.0.1:")
