"""The CI gate against history, through the api: one-trial CI runs judged against a window
of their series' history, start points, and the evidence a verdict names."""

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import select

from latlab.models import Role, Scope, Series
from latlab.suites import service as suite_service
from latlab_workers.suites import load_suites
from tests.factories import Actors, one_series, result, submit, trial

ROOT = Path(__file__).resolve().parents[2]
SPREAD = 0.04  # run-to-run, as a CI machine gives


def _submit(client, headers, index: int, level: float, rng: np.random.Generator, *,
            branch: str = "main", trials: int = 1, start_point: dict[str, str] | None = None,
            params: dict[str, Any] | None = None) -> dict[str, Any]:
    """A run whose trials' p99 sit at `level` x 1 ms, with the run-to-run spread."""
    run_level = level * float(np.exp(rng.normal(0, SPREAD)))
    document = result(
        series=one_series([trial(rng, 500_000 * run_level, sigma=0.3) for _ in range(trials)],
                          client="go"),
        started_at=f"2026-11-{1 + index // 10:02d}T{index % 10 + 10}:00:00Z", branch=branch,
        commit=f"{index:04x}" + "c0ffee")
    if start_point is not None:
        document["source"]["start_point"] = start_point
    if params is not None:
        document["params"] = params
    return submit(client, document, headers)


def test_a_one_trial_candidate_25_percent_slower_fails_against_a_20_run_window(
        client, actors) -> None:
    headers = actors.token(Scope.runs_write, Scope.read)
    rng = np.random.default_rng(28)
    history = [_submit(client, headers, i, 1.0, rng) for i in range(20)]
    slower = _submit(client, headers, 20, 1.25, rng, branch="feature-slow")
    assert slower["verdict"] == "fail", slower["reasons"]
    (reason,) = slower["reasons"]
    assert reason["kind"] == "regression" and reason["metric"] == "p99"
    window = reason["window"]
    assert window["branch"] == "main" and window["runs"] + window["outliers"] == 20
    assert (window["first_run_id"], window["last_run_id"]) == (history[0]["id"],
                                                             history[-1]["id"])
    assert reason["candidate"] > reason["bound"] > reason["baseline"]
    assert "against the window of its last 20 runs on main" in reason["message"]
    assert f"run {history[0]['id']} @ 0000c0ffee" in reason["message"]
    smallest = reason["smallest_change"]
    assert set(smallest) == {"1", "3", "5"} and smallest["1"] >= smallest["5"] >= 0.05
    # The evidence names every judged metric, passing or not; the run page has it too.
    (evidence,) = slower["gate_evidence"]
    assert evidence["outcome"] == "regressed" and evidence["trials"] == 1
    run = client.get(f"/api/v1/runs/{slower['id']}", headers=headers).json()
    assert run["gate_evidence"] == slower["gate_evidence"]
    assert run["baseline_run_id"] == history[-1]["id"]
    # An A/A candidate passes, and says how small a change its window lets the gate see.
    same = _submit(client, headers, 21, 1.0, rng, branch="feature-same")
    assert same["verdict"] == "pass", same["reasons"]
    (evidence,) = same["gate_evidence"]
    assert evidence["outcome"] == "unchanged" and evidence["p_value"] > evidence["level"]


def test_a_new_branch_is_judged_against_its_start_point_not_main_as_it_is_now(
        client, actors) -> None:
    """main got 20 % faster after the branch started: the branch's unchanged code is judged
    against main up to its start commit, where it is no slower."""
    headers = actors.token(Scope.runs_write, Scope.read)
    rng = np.random.default_rng(5)
    before = [_submit(client, headers, i, 1.0, rng) for i in range(12)]
    for i in range(12, 24):
        _submit(client, headers, i, 0.8, rng)
    start = {"branch": "main", "commit": "000bc0ffee"}  # run 11, the last before the change
    started = _submit(client, headers, 24, 1.0, rng, branch="topic", start_point=start)
    assert started["verdict"] == "pass", started["reasons"]
    (evidence,) = started["gate_evidence"]
    assert evidence["window"]["branch"] == "main"
    assert evidence["window"]["last_run_id"] == before[-1]["id"]
    run = client.get(f"/api/v1/runs/{started['id']}", headers=headers).json()
    assert run["source"]["start_point"] == start
    # Without its start point the same code is judged against main as it is now: slower.
    unaware = _submit(client, headers, 25, 1.0, rng, branch="other-topic")
    assert unaware["verdict"] == "fail", unaware["reasons"]


def test_a_branch_with_history_of_its_own_is_judged_against_it(client, actors) -> None:
    headers = actors.token(Scope.runs_write, Scope.read)
    rng = np.random.default_rng(9)
    for i in range(10):
        _submit(client, headers, i, 1.0, rng)
    own = [_submit(client, headers, 10 + i, 1.5, rng, branch="rewrite") for i in range(6)]
    assert own[0]["verdict"] == "fail"  # its first run, against main
    later = _submit(client, headers, 16, 1.5, rng, branch="rewrite")
    (evidence,) = later["gate_evidence"]
    assert evidence["window"]["branch"] == "rewrite" and later["verdict"] == "pass"


def test_few_runs_of_history_fall_back_to_one_baseline_run(client, actors) -> None:
    headers = actors.token(Scope.runs_write, Scope.read)
    rng = np.random.default_rng(1)
    for i in range(3):
        _submit(client, headers, i, 1.0, rng)
    candidate = _submit(client, headers, 3, 1.25, rng, branch="feature")
    assert candidate["gate_evidence"] == []
    assert candidate["verdict"] == "inconclusive"  # one trial against one run


def test_thresholds_are_project_settings_by_suite_and_scenario(client, actors) -> None:
    actors.login(client, Role.admin)
    headers = actors.token(Scope.runs_write, Scope.read)
    assert client.get("/api/v1/gate-settings").json()["effective_default"] == {
        "window": 30, "test": "t", "false_alarm": 0.01, "min_effect": 0.05, "percentage": 0.1,
        "max_error_rate": 0.01}
    refused = client.put("/api/v1/gate-settings", json={"default": {"window": 2}})
    assert refused.status_code == 422 and refused.json()["detail"][0]["path"] == (
        "$.default.window")
    settings = {"default": {"window": 10},
                "suites": {"http-order/medium": {"test": "percentage", "percentage": 0.3}}}
    answer = client.put("/api/v1/gate-settings", json=settings)
    assert answer.status_code == 200, answer.text
    stored = answer.json()["suites"]["http-order/medium"]
    assert {k: v for k, v in stored.items() if v is not None} == (
        settings["suites"]["http-order/medium"])
    rng = np.random.default_rng(2)
    history = [_submit(client, headers, i, 1.0, rng) for i in range(20)]
    # 25 % slower is under the scenario's 30 % percentage threshold: a pass, from the last
    # 10 runs (the project's window).
    slower = _submit(client, headers, 20, 1.25, rng, branch="feature")
    assert slower["verdict"] == "pass", slower["reasons"]
    (evidence,) = slower["gate_evidence"]
    assert evidence["window"]["runs"] + evidence["window"]["outliers"] == 10
    assert evidence["window"]["first_run_id"] == history[10]["id"]
    assert evidence["smallest_change"]["1"] == 0.3
    assert _submit(client, headers, 21, 1.5, rng, branch="feature")["verdict"] == "fail"


def test_only_admins_set_the_thresholds(client, actors) -> None:
    actors.login(client, Role.member)
    assert client.put("/api/v1/gate-settings", json={}).status_code == 403
    assert client.get("/api/v1/gate-settings").status_code == 200


def test_ci_submits_one_go_test_run_per_commit_and_the_cli_reports_the_window(
        committed_db, live_server, tmp_path) -> None:
    """As a CI pipeline: `go test -bench` once per commit on main, then a branch started at
    main's last commit whose code is 30 % slower: `latlab submit` exits 1 (--fail-on
    regression) and its Markdown summary and JUnit name the window."""
    token = Actors(committed_db).token(Scope.runs_write, Scope.read)["Authorization"].split()[1]
    committed_db.commit()
    rng = np.random.default_rng(4)

    def cli_submit(index: int, level: float, *args: str) -> subprocess.CompletedProcess[str]:
        path = tmp_path / f"bench-{index}.txt"
        ns = 1500 * level * float(np.exp(rng.normal(0, SPREAD)))
        path.write_text(f"pkg: example.org/lib\nBenchmarkParse-2   \t  800000\t{ns:.1f} ns/op\n")
        return subprocess.run(
            [sys.executable, "-m", "latlab_cli", "submit", "--url", live_server, "--adapter",
             "go-bench", "--suite", "lib", "--commit", f"{index:04x}beef",
             "--started-at", f"2026-11-01T{index // 60:02d}:{index % 60:02d}:00+00:00",
             *args, str(path)],
            env={"LATLAB_TOKEN": token, "PATH": "/usr/bin:/bin"}, capture_output=True,
            text=True, timeout=120, check=False)

    for index in range(12):
        done = cli_submit(index, 1.0, "--branch", "main")
        assert done.returncode == 0, done.stderr
    summary, junit = tmp_path / "summary.md", tmp_path / "junit.xml"
    slower = cli_submit(12, 1.3, "--branch", "topic", "--start-point", "main@000bbeef",
                        "--fail-on", "regression", "--summary", str(summary), "--junit", str(junit))
    assert slower.returncode == 1, slower.stderr
    assert "regression: benchmark=BenchmarkParse" in slower.stderr
    assert "the window of its last 12 runs on main" in slower.stderr
    text = summary.read_text()
    assert text.startswith("### latlab: fail\n") and "window of 12 runs; sees" in text
    assert "**fail**" in text and "ns\\_per\\_op" in text
    report = junit.read_text()
    assert 'failures="1"' in report and "against the window of its last 12 runs" in report


def test_a_param_added_with_a_default_keeps_the_history_of_runs_stored_before_it(
        db, client, actors) -> None:
    """http-order gained `server_cpus` and `load_cpus` (pinning, default: none). Runs stored
    before, without them, and runs at their defaults share one history key; pinned runs
    start another."""
    headers = actors.token(Scope.runs_write, Scope.read)
    rng = np.random.default_rng(6)
    before = [_submit(client, headers, i, 1.0, rng) for i in range(8)]  # no suite known yet
    suite = load_suites(ROOT / "workers" / "suites")["http-order"].info()
    assert {"server_cpus", "load_cpus"} <= set(suite.params_schema["properties"])
    suite_service.record(db, [suite])
    params = {**result()["params"], "server_cpus": "", "load_cpus": ""}
    after = _submit(client, headers, 8, 1.0, rng, params=params)
    keys = dict(db.execute(select(Series.run_id, Series.params_key).where(
        Series.run_id.in_([before[0]["id"], after["id"]]))).all())
    assert keys[before[0]["id"]] == keys[after["id"]]
    (evidence,) = after["gate_evidence"]
    assert evidence["window"]["first_run_id"] == before[0]["id"]
    pinned = _submit(client, headers, 9, 1.0, rng, params={**params, "server_cpus": "0"})
    assert pinned["gate_evidence"] == [] and pinned["baseline_run_id"] is None
