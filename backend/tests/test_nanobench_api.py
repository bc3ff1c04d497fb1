"""Nanobenchmarks and failed benchmarks submitted as CI would (`POST /runs?adapter=`), from the
real go test and Google Benchmark output of workers/tests/golden/adapters/*/honesty/: the
stored trial's summary is the time the tool printed (2.22 ns, not 2), a failed benchmark is
the run's failure in the tool's words, and the tool's machine context reaches the run."""

import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from latlab.models import Scope

GOLDEN = Path(__file__).resolve().parents[2] / "workers" / "tests" / "golden" / "adapters"


def _stored(client, headers, path: Path, adapter: str) -> dict[str, Any]:
    response = client.post("/api/v1/runs", content=path.read_text(),
                           params={"adapter": adapter, "suite": f"{adapter}-nano",
                                   "scenario": "ci"},
                           headers={**headers, "Content-Type": "text/plain"})
    assert response.status_code == 201, response.text
    run: dict[str, Any] = client.get(f"/api/v1/runs/{response.json()['id']}",
                                     headers=headers).json()
    return run


def test_go_bench_trial_summary_is_the_printed_ns_per_op(client, actors) -> None:
    # go printed "BenchmarkAdd-2  100000000  2.220 ns/op", 1.635 and 1.870 (fail.txt), then
    # "--- FAIL: BenchmarkFails-2" three times and "FAIL\tlatlab.example/honesty".
    headers = actors.token(Scope.runs_write, Scope.read)
    path = GOLDEN / "go-bench" / "honesty" / "fail.txt"
    printed: dict[str, list[float]] = {}
    for line in path.read_text().splitlines():
        if match := re.match(r"^(Benchmark\w+)-2\s+\d+\s+([\d.]+) ns/op$", line):
            printed.setdefault(match.group(1), []).append(float(match.group(2)))
    assert printed["BenchmarkAdd"] == [2.22, 1.635, 1.87]
    run = _stored(client, headers, path, "go-bench")
    for series in run["series"]:
        values = printed[series["labels"]["benchmark"]]
        trials = series["trials"]
        for trial, value in zip(trials, values, strict=True):
            for key in ("min", "max", "mean", "p50", "p90", "p99"):
                assert trial["summary"][key] == value, key  # 2.22, not 2
            assert trial["summary"]["stddev"] == 0.0
            assert "p50" in trial["reported"] and trial["interpolated"] == []
        # The series is the printed values themselves, nearest rank (numpy's inverted_cdf),
        # not their whole-nanosecond buckets: BenchmarkAdd's p50 is 1.87, not 2.
        summary = series["summary"]
        assert (summary["count"], summary["min"], summary["max"]) == (
            3, min(values), max(values))
        for key, q in (("p50", 50), ("p90", 90), ("p99", 99)):
            assert summary[key] == float(np.percentile(values, q, method="inverted_cdf")), key
        assert summary["mean"] == pytest.approx(float(np.mean(values)), rel=1e-12)
        assert trials[-1]["failures"]["failed"] == 3
        assert trials[-1]["failures"]["total"] == 9
        assert "--- FAIL: BenchmarkFails-2" in trials[-1]["failures"]["detail"]
        assert series["failures"]["failed"] == 3
    assert run["harness"]["context"] == {"os": "linux", "arch": "amd64",
                                         "cpu_model": "Intel(R) Xeon(R) Processor",
                                         "package": "latlab.example/honesty"}


def test_google_benchmark_trial_summary_is_the_exact_real_time(client, actors) -> None:
    # The console printed "BM_Add  1.17 ns" and "BM_NeedsInput ERROR OCCURRED: 'no input
    # file'"; the JSON holds BM_Add's real_time unrounded.
    headers = actors.token(Scope.runs_write, Scope.read)
    path = GOLDEN / "google-benchmark" / "honesty" / "1.7.1" / "nano.json"
    document = json.loads(path.read_text())
    real_time = {e["name"]: e["real_time"] for e in document["benchmarks"]
                 if not e.get("error_occurred")}
    assert f"{real_time['BM_Add']:.2f}" == "1.17"
    run = _stored(client, headers, path, "google-benchmark")
    assert {s["labels"]["benchmark"] for s in run["series"]} == set(real_time)
    for series in run["series"]:
        (trial,) = series["trials"]
        assert trial["summary"]["p50"] == real_time[series["labels"]["benchmark"]]
        assert trial["failures"]["detail"] == "BM_NeedsInput ERROR OCCURRED: 'no input file'"
        assert (trial["failures"]["failed"], trial["failures"]["total"]) == (1, 3)
    context = run["harness"]["context"]
    assert (context["cpu_count"], context["build_type"]) == (2, "debug")
    assert any("built as debug" in note for note in run["harness"]["notes"])
