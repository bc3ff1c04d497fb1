"""The `latlab` CLI at a terminal, against a live api (and, for `run`, a real runner): its
tables and verdicts read as the API answers them, its exit status follows the verdict, bad
input stops it with a message, and one config file holds the lab's address and token."""

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from latlab.models import Role, Scope
from latlab_cli.params import typed_params
from latlab_contract.vocabulary import quantity
from tests.conftest import wait_for
from tests.factories import PASSWORD, Actors, result, samples

EXIT_BY_VERDICT = {"pass": 0, "no-baseline": 0, "inconclusive": 0, "fail": 1}


def latlab(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "latlab_cli", *args], env=env,
                          capture_output=True, text=True, timeout=600, check=False)


def tables(text: str) -> list[tuple[str, list[str], list[list[str]]]]:
    """The rich tables in `text`: (title, header, rows), as a reader sees them."""
    found: list[tuple[str, list[str], list[list[str]]]] = []
    lines = text.splitlines()
    for index, line in enumerate(lines):
        if line.startswith("┏"):
            title = lines[index - 1].strip() if index else ""
            end = next(i for i in range(index, len(lines)) if lines[i].startswith("┡"))
            header = [" ".join(part for part in column if part) for column in zip(
                *(_cells(row, "┃") for row in lines[index + 1:end]), strict=True)]
            rows = []
            for row in lines[end + 1:]:
                if not row.startswith("│"):
                    break
                rows.append(_cells(row, "│"))
            found.append((title, header, rows))
    return found


def _unwrapped(rows: list[list[str]]) -> list[list[str]]:
    """Table rows with a wrapped label put back on one line: rich continues it on the next
    line, the row's other cells (its last, the verdict) empty there."""
    whole: list[list[str]] = []
    for row in rows:
        if whole and not row[-1]:
            whole[-1] = [f"{a} {b}".strip() for a, b in zip(whole[-1], row, strict=True)]
        else:
            whole.append(list(row))
    return whole


def _cells(line: str, bar: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip(bar).split(bar)]


@pytest.fixture
def lab(committed_db, live_server, tmp_path):
    """A terminal's environment for a member's token (read, runs:write, jobs:write), with a
    home of its own (no config file unless a test writes one)."""
    actors = Actors(committed_db)
    token = actors.token(Scope.read, Scope.runs_write, Scope.jobs_write)
    committed_db.commit()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "COLUMNS": "220",
           "LATLAB_CONFIG": str(tmp_path / "latlab.toml"), "LATLAB_URL": live_server,
           "LATLAB_TOKEN": token["Authorization"].split()[1]}
    http = httpx.Client(base_url=f"{live_server}/api/v1", headers=token, timeout=60)
    return env, http


def _submit(http: httpx.Client, document: dict) -> int:
    response = http.post("/runs", json=document)
    assert response.status_code == 201, response.text
    return int(response.json()["id"])


def _trials(scale_ns: float, seed: int, count: int = 5) -> list[dict]:
    return [{"latency": {"samples_ns": samples(2000, seed=seed + i, scale_ns=scale_ns)},
             "metrics": {"throughput": 1e9 / scale_ns, "errors": 0}} for i in range(count)]


def _two_clients(rust_ns: float, started_at: str, seed: int) -> dict:
    return result(started_at=started_at, finished_at=started_at, series=[
        {"labels": {"client": "rust", "transport": "tcp"}, "trials": _trials(rust_ns, seed)},
        {"labels": {"client": "go", "transport": "tcp"}, "trials": _trials(400_000, seed)}])


def test_compare_prints_the_verdicts_the_dashboard_reads(lab) -> None:
    """Rust 30 % slower in the candidate: the CLI's rows are the API's (`GET /compare`, the
    dashboard's compare page), metric by metric; the series that changed come first (go, not
    changed, only with --all), its overall line counts the verdicts and names each
    regression."""
    env, http = lab
    baseline = _submit(http, _two_clients(350_000, "2026-11-22T10:00:00Z", seed=1))
    candidate = _submit(http, _two_clients(455_000, "2026-11-22T11:00:00Z", seed=11))
    answer = http.get("/compare", params={"baseline": baseline, "candidate": candidate}).json()
    expected = {", ".join(f"{k}={v}" for k, v in sorted(s["labels"].items())):
                [(m["label"] + ("" if m["reliable"] else "*"), m["verdict"])
                 for m in s["metrics"]] for s in answer["series"]}
    changed = [title for title, rows in expected.items()
               if any(verdict in ("regressed", "improved") for _, verdict in rows)]
    assert changed == ["client=rust, transport=tcp"], expected
    shown = latlab("compare", str(baseline), str(candidate), env=env)
    assert shown.returncode == 0, shown.stderr
    printed = {title: [(row[0], row[-1]) for row in rows]
               for title, _, rows in tables(shown.stdout)}
    assert printed == {title: expected[title] for title in changed}, shown.stdout
    assert "1 of 2 series without a significant change not shown (--all shows every " \
           "series)" in shown.stdout
    every = latlab("compare", str(baseline), str(candidate), "--all", env=env)
    assert [title for title, _, _ in tables(every.stdout)] == [
        "client=rust, transport=tcp", "client=go, transport=tcp"], every.stdout
    assert {title: [(row[0], row[-1]) for row in rows]
            for title, _, rows in tables(every.stdout)} == expected
    verdicts = [m["verdict"] for s in answer["series"] for m in s["metrics"]]
    overall = ", ".join(f"{verdicts.count(v)} {v}" for v in ("regressed", "improved",
                                                              "inconclusive") if v in verdicts)
    assert f"overall: {overall}\n" in shown.stdout
    rust = next(s for s in answer["series"] if s["labels"]["client"] == "rust")
    for m in rust["metrics"]:
        if m["verdict"] == "regressed":
            assert (f"  regressed: client=rust, transport=tcp {m['label']} "
                    f"{m['delta_pct']:+.1f} %\n") in shown.stdout
    assert f"baseline   run {baseline}  http-order/medium" in shown.stdout
    # Two series of one run, matched on their other labels: nothing in common says so.
    apart = latlab("compare", str(candidate), str(candidate), "--baseline-series",
                   "client=rust", "--candidate-series", "client=nope", env=env)
    assert apart.returncode == 0, apart.stderr
    assert "overall: no series in common: nothing compared" in apart.stdout


def test_runs_and_show_print_what_the_api_holds(lab) -> None:
    env, http = lab
    first = _submit(http, _two_clients(350_000, "2026-11-22T10:00:00Z", seed=1))
    second = _submit(http, _two_clients(350_000, "2026-11-22T11:00:00Z", seed=21))
    other = _submit(http, result(suite="grpc", started_at="2026-11-22T12:00:00Z",
                                  finished_at="2026-11-22T12:00:00Z"))

    listed = latlab("runs", "--suite", "http-order", env=env)
    assert listed.returncode == 0, listed.stderr
    ((title, header, rows),) = tables(listed.stdout)
    assert title.startswith("2 of 2 runs") and header[:3] == ["run", "started", "suite"]
    assert [row[0] for row in rows] == [str(second), str(first)]
    everything = tables(latlab("runs", "-n", "5", env=env).stdout)[0][2]
    assert [row[0] for row in everything] == [str(other), str(second), str(first)]
    # --suite is a prefix in any case, as the dashboard's filter.
    prefixed = tables(latlab("runs", "--suite", "HTTP", env=env).stdout)[0][2]
    assert [row[0] for row in prefixed] == [str(second), str(first)]

    run = http.get(f"/runs/{second}").json()
    shown = latlab("show", str(second), env=env)
    assert shown.returncode == 0, shown.stderr
    ((title, header, rows),) = tables(shown.stdout)
    # transport is the same in every series: said once, in the title.
    assert title == "every series: transport=tcp"
    assert header[:4] == ["client", "samples", "P50", "P90"] and "throughput" in header
    for series, row in zip(run["series"], rows, strict=True):
        assert row[0] == series["labels"]["client"]
        assert row[header.index("P99")] == quantity(series["summary"]["p99"], "ns")
        assert row[header.index("samples")] == f"{series['summary']['count']:,}"
    assert f"verdict: {run['verdict']}\n" in shown.stdout
    assert f"baseline: run {first} (latlab compare {first} {second})" in shown.stdout

    missing = latlab("show", "999999", env=env)
    assert (missing.returncode, missing.stderr) == (
        2, "latlab: the lab answered 404: no run 999999\n")


def test_trends_print_the_history_point_by_point(lab) -> None:
    env, http = lab
    ids = [_submit(http, _two_clients(scale, f"2026-11-2{day}T10:00:00Z", seed=day))
           for day, scale in zip(range(1, 5), (350_000, 352_000, 351_000, 470_000),
                                 strict=True)]
    trend = http.get("/trends", params={"suite": "http-order", "scenario": "medium",
                                        "labels": json.dumps({"client": "rust",
                                                              "transport": "tcp"})}).json()
    shown = latlab("trends", "http-order", "medium", "--label", "client=rust",
                   "--label", "transport=tcp", env=env)
    assert shown.returncode == 0, shown.stderr
    ((title, header, rows),) = tables(shown.stdout)
    assert title == "the last 4 runs" and header[4] == "P99"
    assert [row[0] for row in rows] == [str(i) for i in ids]
    assert [row[4] for row in rows] == [quantity(p["value"], "ns") for p in trend["points"]]
    assert shown.stdout.startswith("http-order/medium · client=rust, transport=tcp · P99 "
                                   "(lower is better) · branch main")
    nothing = latlab("trends", "http-order", "medium", "--label", "client=none", env=env)
    assert nothing.returncode == 0 and "no runs in this history" in nothing.stdout
    # No --label: the series the newest run shows first in lists, said with how to choose.
    newest = http.get("/runs", params={"suite": "http-order", "limit": 1}).json()["items"][0]
    found = latlab("trends", "http-order", "medium", env=env)
    assert found.returncode == 0, found.stderr
    named = ", ".join(f"{k}={v}" for k, v in newest["headline"]["series"].items())
    assert found.stdout.startswith(f"http-order/medium · {named} · P99")
    assert f"the newest run, #{ids[-1]}, shows it first of its 2" in found.stderr
    assert "--label NAME=VALUE" in found.stderr
    absent = latlab("trends", "no-such-suite", "medium", env=env)
    assert (absent.returncode, absent.stderr) == (
        2, "latlab: no run of no-such-suite/medium has a series\n")


def test_params_are_typed_by_the_suites_schema(lab, start_runner) -> None:
    """`--param` values become what the suite's schema declares (a list where an axis takes
    one), and the lab accepts them; bad input stops with a message and launches nothing."""
    env, http = lab
    start_runner("cli-params")
    echo = wait_for(lambda: next((s for s in http.get("/suites").json()
                                  if s["id"] == "echo" and "cli-params" in s["hosts"]), None))
    params = typed_params(echo, ["connections=1,2,4", "count=5000", "settle_s=0.5",
                                 "server_cpus=0"])
    assert params == {"connections": [1, 2, 4], "count": 5000, "settle_s": 0.5,
                      "server_cpus": "0"}
    estimate = http.post("/jobs/estimate", json={"suite": "echo", "params": params})
    assert estimate.status_code == 200 and estimate.json()["series"] == 3, estimate.text

    for args, message in [
        (["nope"], "no online host offers suite 'nope' (offered: actor-iot, echo, "),
        (["echo", "huge"], "suite 'echo' has no scenario 'huge' (it has: default, steady)"),
        (["echo", "-p", "count=many"], "--param count=many: count must be a whole number"),
        (["echo", "-p", "count"], "--param 'count': write NAME=VALUE"),
        (["echo", "-p", "shell=1"], "--param shell: suite 'echo' has no such param"),
        (["echo", "-p", "count=-1"], "the lab answered 422: $.params.count: -1 is less than the "
                                     "minimum of 0"),
    ]:
        refused = latlab("run", *args, "--wait", env=env)
        assert refused.returncode == 2, (args, refused.stderr)
        assert message in refused.stderr, (args, refused.stderr)
    assert http.get("/jobs").json()["total"] == 0


def test_run_wait_ends_with_the_table_and_exits_by_the_verdict(lab, start_runner) -> None:
    """`latlab run echo --wait`, twice: the lightest scenario by the lab's estimate (default,
    not the 13 s a trial of steady), each job's progress, then its run's table and verdict,
    and the exit status of that verdict; the second run is judged against the first."""
    env, http = lab
    start_runner("cli-echo")
    wait_for(lambda: any("cli-echo" in s["hosts"] for s in http.get("/suites").json()))
    run_ids = []
    for _ in range(2):
        done = latlab("run", "echo", "-p", "count=2000", "-p", "warmup=100", "--wait",
                      env=env)
        job = http.get("/jobs", params={"limit": 1}).json()["items"][0]
        assert job["status"] == "succeeded" and job["scenario"] == "default", job
        assert f"job {job['id']}: echo/default, about " in done.stderr
        assert f"job {job['id']} echo/default on cli-echo: succeeded" in done.stderr
        run = http.get(f"/runs/{job['run_id']}").json()
        assert f"verdict: {run['verdict']}\n" in done.stdout, done.stdout
        assert done.returncode == EXIT_BY_VERDICT[run["verdict"]], (done.stdout, done.stderr)
        ((title, header, rows),) = tables(done.stdout)
        assert title == "every series: transport=tcp", done.stdout
        assert len(rows) == 1, done.stdout
        assert rows[0][header.index("samples")] == "10,000"  # five trials of 2,000
        assert rows[0][header.index("P99")] == quantity(run["series"][0]["summary"]["p99"],
                                                         "ns")
        run_ids.append(run["id"])
    assert http.get(f"/runs/{run_ids[0]}").json()["verdict"] == "no-baseline"
    assert http.get(f"/runs/{run_ids[1]}").json()["baseline_run_id"] == run_ids[0]

    state = latlab("job", str(job["id"]), env=env)
    assert state.stdout == (f"job {job['id']} echo/default on cli-echo: succeeded · run "
                            f"{run_ids[1]}\n")
    launched = latlab("run", "echo", "default", "-p", "count=-1", env=env)
    assert launched.returncode == 2 and "$.params.count" in launched.stderr


def test_one_config_file_env_overrides_it(lab, live_server, committed_db) -> None:
    """`latlab login` checks the token, then keeps it with the address (owner-only); the
    commands read it; LATLAB_URL overrides it; a wrong token is not kept; --email makes a
    token of the account's."""
    env, _ = lab
    bare = {k: v for k, v in env.items() if k not in ("LATLAB_URL", "LATLAB_TOKEN")}
    path = Path(env["LATLAB_CONFIG"])
    wrong = latlab("login", "--url", live_server, "--token", "llt_wrong", env=bare)
    assert wrong.returncode == 2 and "unknown API token" in wrong.stderr
    assert not path.exists()

    saved = latlab("login", "--url", live_server, "--token", env["LATLAB_TOKEN"], env=bare)
    assert saved.returncode == 0, saved.stderr
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert f'url = "{live_server}"' in path.read_text()
    assert latlab("runs", env=bare).returncode == 0
    shown = latlab("config", env=bare).stdout
    assert f"url:   {live_server}  ({path})" in shown and env["LATLAB_TOKEN"] not in shown
    elsewhere = latlab("runs", env={**bare, "LATLAB_URL": "http://127.0.0.1:9"})
    assert elsewhere.returncode == 3 and "cannot reach http://127.0.0.1:9" in elsewhere.stderr

    user = Actors(committed_db).user(Role.member)
    committed_db.commit()
    signed = latlab("login", "--url", live_server, "--email", user.email,
                    env={**bare, "LATLAB_PASSWORD": PASSWORD})
    assert signed.returncode == 0, signed.stderr
    token = path.read_text().split('token = "')[1].split('"')[0]
    assert token.startswith("llt_") and token != env["LATLAB_TOKEN"]
    assert latlab("runs", env=bare).returncode == 0


def test_at_80_columns_no_number_or_verdict_is_cut(lab) -> None:
    """In an 80-column terminal the tables keep every number and verdict whole (rich alone
    printed "149,…" and "inco…"): labels wrap, and what still does not fit is left out, said
    under the table with how to see it."""
    env, http = lab
    narrow = {**env, "COLUMNS": "80"}
    baseline = _submit(http, _two_clients(350_000, "2026-11-22T10:00:00Z", seed=1))
    candidate = _submit(http, _two_clients(455_000, "2026-11-22T11:00:00Z", seed=11))
    answer = http.get("/compare", params={"baseline": baseline, "candidate": candidate}).json()
    run = http.get(f"/runs/{candidate}").json()
    for args in (("compare", str(baseline), str(candidate), "--all", "--evidence"),
                 ("show", str(candidate)), ("runs",)):
        shown = latlab(*args, env=narrow)
        assert shown.returncode == 0, shown.stderr
        assert "…" not in shown.stdout, shown.stdout
        # (Sentences, the verdict's reasons, are the terminal's to wrap.)
        assert max(len(line) for line in shown.stdout.splitlines()
                   if line[:1] in "┏┃┡│└") <= 80, shown.stdout
    compared = latlab("compare", str(baseline), str(candidate), "--all", "--evidence",
                      env=narrow).stdout
    assert "left out at 80 columns: evidence" in compared
    assert "(latlab --wide, or a wider terminal, shows them)" in compared
    # --wide keeps every column, whatever the terminal.
    wide = latlab("--wide", "compare", str(baseline), str(candidate), "--all", "--evidence",
                  env=narrow).stdout
    assert "left out" not in wide and "…" not in wide, wide
    assert {"evidence", "change", "baseline"} <= set(tables(wide)[0][1]), wide
    # Every metric's row holds the API's change % and verdict whole (read as a reader would).
    printed = {title: {row[0]: row for row in _unwrapped(rows)}
               for title, _, rows in tables(compared)}
    for series in answer["series"]:
        rows = printed[", ".join(f"{k}={v}" for k, v in sorted(series["labels"].items()))]
        for m in series["metrics"]:
            row = rows[m["label"] + ("" if m["reliable"] else "*")]
            assert row[-1] == m["verdict"], row
            if m["delta_pct"] is not None:
                assert f"{m['delta_pct']:+.1f} %" in row, row
    ((_, header, rows),) = tables(latlab("show", str(candidate), env=narrow).stdout)
    assert "P99" in header
    for series, row in zip(run["series"], rows, strict=True):
        assert row[header.index("P99")] == quantity(series["summary"]["p99"], "ns")
        if "samples" in header:
            assert row[header.index("samples")] == f"{series['summary']['count']:,}"
