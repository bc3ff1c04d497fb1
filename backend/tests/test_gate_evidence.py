"""No verdict without evidence: a gate that compared nothing says so (`no-baseline`, never
`pass`), names every series or metric it left out and why (new, vanished, a statistic the
harness never printed), and a run whose harness counted failed operations is flagged, and
fails past the project's error rate unless the submission expects errors."""

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np

from latlab.models import Role, Scope
from tests.factories import Actors, result, submit, trial

SUITE = "evidence-demo"  # a suite no host advertises: the submission's gate is the gate


def _trials(rng: np.random.Generator, count: int = 3) -> list[dict[str, Any]]:
    return [trial(rng, 400_000, throughput=(1e4, 100)) for _ in range(count)]


def test_two_runs_sharing_no_series_are_not_a_pass(client, actors) -> None:
    """19 Google Benchmark series against a baseline run of 2 others, same suite: before,
    `pass` with empty evidence; now no-baseline, each new series and each vanished one
    named, in the api and in the CLI's summary."""
    headers = actors.token(Scope.runs_write, Scope.read)
    rng = np.random.default_rng(4)
    submit(client, result(suite=SUITE, commit="aaaa01", series=[
        {"labels": {"benchmark": f"BM_old/{n}"}, "trials": _trials(rng)} for n in (1, 2)]),
        headers)
    new = submit(client, result(suite=SUITE, commit="aaaa02", series=[
        {"labels": {"benchmark": f"BM_new/{n}"}, "trials": _trials(rng)} for n in range(19)]),
        headers)
    assert new["verdict"] == "no-baseline", new
    kinds = [r["kind"] for r in new["reasons"]]
    assert kinds == ["not-compared"] * 21, kinds
    messages = {r["series"]["benchmark"]: r["message"] for r in new["reasons"]}
    assert messages["BM_new/7"].startswith("new: the baseline, run ")
    assert messages["BM_old/2"].startswith("vanished: the baseline, run ")
    run = client.get(f"/api/v1/runs/{new['id']}", headers=headers).json()
    assert run["verdict"] == "no-baseline"
    assert len(run["verdict_reasons"]) == 21


def test_a_new_series_beside_compared_ones_is_named_and_the_rest_judged(client, actors) -> None:
    headers = actors.token(Scope.runs_write, Scope.read)
    rng = np.random.default_rng(5)
    submit(client, result(suite=SUITE, scenario="partial", commit="bbbb01", series=[
        {"labels": {"client": "go"}, "trials": _trials(rng, 10)}]), headers)
    both = submit(client, result(suite=SUITE, scenario="partial", commit="bbbb02", series=[
        {"labels": {"client": "go"}, "trials": _trials(rng, 10)},
        {"labels": {"client": "zig"}, "trials": _trials(rng, 10)}]), headers)
    assert both["verdict"] == "pass", both
    assert [(r["kind"], r["series"]) for r in both["reasons"]] == [
        ("not-compared", {"client": "zig"})]


def _rebuilt(rng: np.random.Generator) -> dict[str, Any]:
    """A trial as the k6 adapter gives a default summary: the histogram rebuilt from k6's
    avg, med, p(90), p(95) and max, p99 not printed."""
    p50 = float(rng.normal(20e6, 2e5))
    points = [(500, int(p50)), (900, int(p50 * 1.5)), (950, int(p50 * 2)), (1000, 400_000_000)]
    histogram = _encoded(points)
    return {"latency": {"hdr": histogram, "rebuilt": True, "reported": {
        "p50": points[0][1], "p90": points[1][1], "p95": points[2][1], "max": points[3][1]}},
        "metrics": {"throughput": float(rng.normal(50, 0.5))}}


def _encoded(points: list[tuple[int, int]]) -> str:
    from latlab_contract import hdr
    return hdr.encode(hdr.rebuilt(points))


def test_an_interpolated_percentile_is_not_judged_unless_asked(client, actors) -> None:
    """k6 without p(99): the lab's p99 is interpolated between p(95) and max; the gate
    leaves it out and says so, and judges it when the submission names it."""
    headers = actors.token(Scope.runs_write, Scope.read)
    rng = np.random.default_rng(6)
    for commit in ("cccc01", "cccc02"):
        first = submit(client, result(suite=SUITE, scenario="k6", commit=commit, series=[
            {"trials": [_rebuilt(rng) for _ in range(3)]}]), headers)
    reasons = first["reasons"]
    assert [(r["kind"], r["metric"]) for r in reasons] == [("not-compared", "p99")], reasons
    assert "not printed by the harness" in reasons[0]["message"]
    assert first["verdict"] == "pass"  # throughput was compared
    only_p99 = submit(client, result(
        suite=SUITE, scenario="k6", commit="cccc03", gate=["p99"],
        series=[{"trials": [_rebuilt(rng) for _ in range(3)]}]), headers)
    assert not [r for r in only_p99["reasons"] if r["kind"] == "not-compared"], only_p99
    assert only_p99["verdict"] in ("pass", "inconclusive")
    too_few = submit(client, result(
        suite=SUITE, scenario="k6", commit="cccc04", gate=["p999"],
        series=[{"trials": [_rebuilt(rng) for _ in range(3)]}]), headers)
    assert too_few["verdict"] == "no-baseline"  # 1,000 values a trial: p99.9 untrusted
    assert "too few samples beyond p99.9" in too_few["reasons"][0]["message"], too_few


def _failing(rng: np.random.Generator, failed: int, total: int) -> dict[str, Any]:
    return {**_trials(rng, 1)[0], "failures": {
        "failed": failed, "total": total, "detail": f"k6 http_req_failed: {failed} of {total}"}}


def test_failed_operations_warn_and_past_the_project_rate_fail(client, actors) -> None:
    headers = actors.token(Scope.runs_write, Scope.read)
    rng = np.random.default_rng(7)
    few = submit(client, result(suite=SUITE, scenario="errors", commit="dddd01",
                                series=[{"trials": [_failing(rng, 5, 1000)]}]), headers)
    assert few["verdict"] == "no-baseline"
    assert [r["kind"] for r in few["reasons"]] == ["failures"]
    assert "5 of 1,000 operations failed (0.5 %)" in few["reasons"][0]["message"]
    many = submit(client, result(suite=SUITE, scenario="errors", commit="dddd02",
                                 series=[{"trials": [_failing(rng, 950, 1000)]}]), headers)
    assert many["verdict"] == "fail"
    errors = [r for r in many["reasons"] if r["kind"] == "errors"]
    assert errors and "950 of 1,000 operations failed (95 %)" in errors[0]["message"]
    expected = submit(client, result(
        suite=SUITE, scenario="errors", commit="dddd03", errors_expected=True,
        series=[{"trials": [_failing(rng, 950, 1000)]}]), headers)
    assert expected["verdict"] != "fail"
    assert "expects errors" in next(r for r in expected["reasons"]
                                    if r["kind"] == "failures")["message"]
    run = client.get(f"/api/v1/runs/{many['id']}", headers=headers).json()
    assert run["series"][0]["failures"] == {
        "failed": 950, "total": 1000, "trials": 1, "detail": "k6 http_req_failed: 950 of 1000"}
    assert run["series"][0]["trials"][0]["failures"]["failed"] == 950
    # The project sets the rate it allows.
    actors.login(client, Role.admin)
    response = client.put("/api/v1/gate-settings", json={"default": {"max_error_rate": 0.99}})
    assert response.status_code == 200, response.text
    allowed = submit(client, result(suite=SUITE, scenario="errors", commit="dddd04",
                                    series=[{"trials": [_failing(rng, 950, 1000)]}]), headers)
    assert allowed["verdict"] != "fail"


def test_the_cli_prints_what_was_not_compared(live_server, committed_db, tmp_path) -> None:
    """`latlab submit` says what the gate left out, and its JUnit XML skips those cases."""
    token = Actors(committed_db).token(Scope.runs_write, Scope.read)
    committed_db.commit()
    rng = np.random.default_rng(8)
    done = []
    for commit, name in (("eeee01", "old"), ("eeee02", "new")):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(result(suite=SUITE, scenario="cli", commit=commit, series=[
            {"labels": {"benchmark": name}, "trials": _trials(rng)}])))
        done.append(subprocess.run(
            [sys.executable, "-m", "latlab_cli", "submit", "--url", live_server, str(path),
             "--junit", str(tmp_path / f"{name}.xml")],
            env={"LATLAB_TOKEN": token["Authorization"].split()[1], "PATH": "/usr/bin:/bin"},
            capture_output=True, text=True, timeout=120, check=False))
    assert all(d.returncode == 0 for d in done), [d.stderr for d in done]
    assert "verdict: no-baseline" in done[1].stderr
    assert "not-compared: benchmark=new: new: the baseline, run" in done[1].stderr, (
        done[1].stderr)
    assert "not-compared: benchmark=old: vanished: the baseline, run" in done[1].stderr
    junit = (tmp_path / "new.xml").read_text()
    assert junit.count("<skipped") == 2, junit


def test_the_cli_passes_on_what_the_adapter_could_not_read(live_server, committed_db,
                                                          tmp_path) -> None:
    """k6's default summary has no p(99): the CLI says so and how to get it, on the
    terminal and in the Markdown summary, and the gate judges k6's p(95)."""
    token = Actors(committed_db).token(Scope.runs_write, Scope.read)
    committed_db.commit()
    golden = (Path(__file__).resolve().parents[2] / "workers" / "tests" / "golden" /
              "adapters" / "k6" / "v1.8.1" / "default-trend-stats" / "summary.json")
    done = subprocess.run(
        [sys.executable, "-m", "latlab_cli", "submit", "--url", live_server, "--adapter", "k6",
         "--suite", "k6-demo", str(golden), "--summary", str(tmp_path / "summary.md")],
        env={"LATLAB_TOKEN": token["Authorization"].split()[1], "PATH": "/usr/bin:/bin"},
        capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "note: k6 printed no p(99)" in done.stderr
    assert '--summary-trend-stats "avg,min,med,max,p(90),p(95),p(99)"' in done.stderr
    assert "- note: k6 printed no p(99)" in (tmp_path / "summary.md").read_text()
