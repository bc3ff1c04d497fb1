"""vegeta's adapter against v12.13.0 and v12.8.4: the JSON report and every request of one attack,
compared with vegeta's text report of it, and the README's examples. Where our latency is every
request's, vegeta's numbers are derived from our samples with its own rule."""

import bisect
import json
import re
from pathlib import Path

import pytest
from loadgen_support import (
    CONTEXT,
    VEGETA,
    at_percentile,
    close,
    go_seconds,
    nearest_rank,
    only_trial,
    printed_stats,
    rebuilt,
    relative,
    summary_key,
)

from latlab_contract.parsers import ParseError, vegeta

# v12.8 and later (v11.3.0's older layout, without min, 90th and throughput, is read by
# test_vegeta_honesty).
VEGETA_REPORTS = sorted(p for p in VEGETA.rglob("*.json") if "v11.3.0" not in p.parts)


VEGETA_RESULTS = sorted(VEGETA.rglob("*results.jsonl"))


VEGETA_LATENCIES = {"min": 0.0, "50th": 50.0, "90th": 90.0, "95th": 95.0, "99th": 99.0,
                    "max": 100.0}


VEGETA_KEYS = {"min": "min", "mean": "mean", "max": "max", "50th": "p50", "90th": "p90",
               "95th": "p95", "99th": "p99"}


def vegeta_errors(codes: dict[str, int]) -> int:
    return sum(count for code, count in codes.items() if not 200 <= int(code) < 400)


@pytest.mark.parametrize("path", VEGETA_REPORTS, ids=relative)
def test_vegeta_report_keeps_vegetas_statistics(path: Path) -> None:
    document = json.loads(path.read_text())
    latencies = document["latencies"]
    count = document["requests"]
    trial, ours = rebuilt(vegeta, path, count)
    assert printed_stats(trial.latency) == {VEGETA_KEYS[key]: float(value)
                                            for key, value in latencies.items()
                                            if key in VEGETA_KEYS}
    for key, percentile in VEGETA_LATENCIES.items():
        assert close(at_percentile(ours, percentile, count), latencies[key]), key
    assert trial.metrics == {
        "throughput": document["throughput"], "rate": document["rate"],
        "requests": count, "success_rate": document["success"],
        "errors": vegeta_errors(document["status_codes"])}


def go_duration(nanoseconds: int) -> str:
    """Go's time.Duration.String() of a duration under a minute."""
    assert 0 <= nanoseconds < 60 * 10**9
    if nanoseconds == 0:
        return "0s"
    if nanoseconds < 1000:
        return f"{nanoseconds}ns"
    scale, unit = next((s, u) for s, u in ((10**9, "s"), (10**6, "ms"), (10**3, "µs"))
                       if nanoseconds >= s)
    whole, rest = divmod(nanoseconds, scale)
    digits = str(rest).rjust(len(str(scale)) - 1, "0").rstrip("0")
    return f"{whole}.{digits}{unit}" if digits else f"{whole}{unit}"


def vegeta_round(nanoseconds: int) -> int:
    """`round` of vegeta's lib/reporters.go: to whole units of the unit below the value's own
    (Go's Duration.Round: halves away from zero)."""
    for unit, below in ((3600 * 10**9, 60 * 10**9), (60 * 10**9, 10**9), (10**9, 10**6),
                        (10**6, 10**3), (10**3, 1)):
        if nanoseconds >= unit:
            rest = nanoseconds % below
            return nanoseconds - rest + (below if rest + rest >= below else 0)
    return nanoseconds


def vegeta_text(path: Path) -> Path:
    """vegeta's text report of the same attack as a JSON report."""
    return path.with_name(path.name.replace(".json", ".txt"))


@pytest.mark.parametrize("path", [p for p in VEGETA_REPORTS if vegeta_text(p).exists()
                                  and "upstream" not in p.parts], ids=relative)
def test_vegeta_report_is_vegetas_text_report(path: Path) -> None:
    """(The README's text example is from another attack than its JSON one.)"""
    text = vegeta_text(path).read_text()
    trial = only_trial(vegeta, path)
    stats = printed_stats(trial.latency)
    total, rate, throughput = re.search(
        r"^Requests\s+\[total, rate, throughput\]\s+(\d+), ([\d.]+), ([\d.]+)$", text,
        re.MULTILINE).groups()
    assert trial.metrics["requests"] == int(total)
    assert f"{trial.metrics['rate']:.2f}" == rate
    assert f"{trial.metrics['throughput']:.2f}" == throughput
    names, values = re.search(r"^Latencies\s+\[([^]]+)\]\s+(.+?)$", text, re.MULTILINE).groups()
    assert names.split(", ") == ["min", "mean", "50", "90", "95", "99", "max"]
    for name, value in zip(names.split(", "), values.split(", "), strict=True):
        key = name if name in ("min", "mean", "max") else summary_key(name)
        assert go_duration(vegeta_round(int(stats[key]))) == value, name
    success = re.search(r"^Success\s+\[ratio\]\s+([\d.]+)%$", text, re.MULTILINE).group(1)
    assert f"{trial.metrics['success_rate'] * 100:.2f}" == success
    codes = re.search(r"^Status Codes\s+\[code:count\]\s+(.*)$", text, re.MULTILINE).group(1)
    counted = dict(item.split(":") for item in codes.split())
    assert trial.metrics["errors"] == vegeta_errors({k: int(v) for k, v in counted.items()})


@pytest.mark.parametrize("path", VEGETA_RESULTS, ids=relative)
def test_vegeta_results_are_every_request_of_its_report(path: Path) -> None:
    """`vegeta encode` of the attack `vegeta report -type=json` summed up: its exact
    statistics follow from our samples, and its t-digest percentiles lie within 1 % of the
    requests of the nearest ranks."""
    results = [json.loads(line) for line in path.read_text().splitlines()]
    report = json.loads(path.with_name(path.name.replace("results.jsonl", "report.json"))
                        .read_text())
    trial = only_trial(vegeta, path)
    assert trial.latency.samples_ns == [r["latency"] for r in results]
    assert trial.latency.reported is None and not trial.latency.rebuilt
    ordered = sorted(trial.latency.samples_ns)
    count = len(ordered)
    latencies = report["latencies"]
    assert count == report["requests"]
    assert ordered[0] == latencies["min"] and ordered[-1] == latencies["max"]
    assert sum(ordered) == latencies["total"]
    assert int(sum(ordered) / count) == latencies["mean"]  # Go: Duration(float64 / float64)
    for key, percentile in VEGETA_LATENCIES.items():
        rank = bisect.bisect_left(ordered, latencies[key])
        assert abs(rank - nearest_rank(percentile, count)) <= max(1, count // 100), key
    # rate and throughput as vegeta computes them, to the last bit
    assert trial.metrics == {
        "requests": report["requests"], "success_rate": report["success"],
        "errors": vegeta_errors(report["status_codes"]), "rate": report["rate"],
        "throughput": report["throughput"]}
    duration = report["duration"]
    assert trial.metrics["rate"] == count / go_seconds(duration)


def test_vegeta_named_attacks_are_series_of_their_own() -> None:
    lines = (VEGETA / "v12.13.0" / "results.jsonl").read_text().splitlines()
    named = [line.replace('"attack":""', f'"attack":"{"ab"[i % 2]}"', 1)
             for i, line in enumerate(lines)]
    parsed = vegeta.parse("\n".join(named), CONTEXT)
    by_name = {s.labels["attack"]: s.trials[0] for s in parsed.series}
    assert set(by_name) == {"a", "b"}
    every = [json.loads(line)["latency"] for line in lines]
    assert by_name["a"].latency.samples_ns == every[0::2]
    assert by_name["b"].latency.samples_ns == every[1::2]
    assert by_name["a"].metrics["requests"] == len(every[0::2])


@pytest.mark.parametrize("path", sorted(VEGETA.rglob("*.txt")), ids=relative)
def test_vegeta_text_reports_are_refused(path: Path) -> None:
    with pytest.raises(ParseError, match=r"line 1: not vegeta's JSON"):
        vegeta.parse(path.read_text(), CONTEXT)
