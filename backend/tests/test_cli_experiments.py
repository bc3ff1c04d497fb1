"""`latlab experiment` against a live api, without a runner: the experiment saved from a TOML
file, run with --wait while the test stores its jobs' results as the ingest worker stores a
runner's and the beat's `advance` judges it (committed, so the api and the CLI polling it see
it), its exit status following the judgements; its runs listed and one exported."""

import subprocess
import sys
import time

import pytest
from sqlalchemy import select

from latlab.core import clock as clock_module
from latlab.experiments import service
from latlab.hosts import service as host_service
from latlab.models import ExperimentRun, Scope
from latlab_contract import Heartbeat
from tests.factories import Actors
from tests.test_cli_terminal import latlab, tables
from tests.test_experiments import ECHO, _finish, _trials

TOML = """
name = "tuning"
title = "Does tuning halve the P50?"
question = "Report 001's question, asked of echo."
expectations = ["p50(after) <= 0.5 * p50(before)", "p50(after) <= 0.2 * p50(before)"]

[jobs.baseline]
suite = "echo"
params = { count = 100 }

[jobs.tuned]
suite = "echo"
params = { count = 100, size = 128 }

[series.before]
job = "baseline"
labels = { client = "c" }

[series.after]
job = "tuned"
labels = { client = "c" }

[[references]]
series = "before"
metric = "p50"
value = 410
unit = "us"
source = "report 001, table 2"
"""
WAIT_S = 60


@pytest.fixture
def env(committed_db, live_server, tmp_path) -> dict[str, str]:
    clock_module.set_clock(clock_module.SystemClock())  # the live api's online hosts
    token = Actors(committed_db).token(Scope.read, Scope.jobs_write)
    host_service.record_heartbeat(committed_db, Heartbeat(
        name="lab-1", tags=["local"], fingerprint={}, suites=[ECHO]))
    committed_db.commit()
    return {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "COLUMNS": "160",
            "LATLAB_CONFIG": str(tmp_path / "latlab.toml"), "LATLAB_URL": live_server,
            "LATLAB_TOKEN": token["Authorization"].split()[1]}


def test_saved_run_waited_for_listed_and_exported(env, committed_db, tmp_path) -> None:
    document = tmp_path / "tuning.toml"
    document.write_text(TOML)
    saved = latlab("experiment", "save", str(document), env=env)
    assert (saved.returncode, saved.stdout) == (0, "tuning version 1\n"), saved.stderr
    again = latlab("experiment", "save", str(document), env=env)
    assert again.stdout == "tuning version 1 (unchanged)\n"
    broken = tmp_path / "broken.toml"
    broken.write_text(TOML.replace('"p50(after) <= 0.5 * p50(before)"', '"p50(x) <= 2 ms"'))
    refused = latlab("experiment", "save", str(broken), env=env)
    assert refused.returncode == 2 and "names series 'x'" in refused.stderr, refused.stderr

    waiting = subprocess.Popen([sys.executable, "-m", "latlab_cli", "experiment", "run",
                                "tuning", "--wait"], env=env, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + WAIT_S
    while (run := committed_db.scalar(select(ExperimentRun))) is None:
        committed_db.commit()
        assert time.monotonic() < deadline and waiting.poll() is None, "no run launched"
        time.sleep(0.2)
    jobs = {name: {"job_id": job_id} for name, job_id in run.jobs.items()}
    _finish(committed_db, {"jobs": jobs}, {
        "baseline": [{"labels": {"client": "c"}, "trials": _trials(400_000, 6, 1)}],
        "tuned": [{"labels": {"client": "c"}, "trials": _trials(150_000, 6, 2)}]})
    committed_db.commit()
    assert [r.id for r in service.advance(committed_db)] == [run.id]
    committed_db.commit()
    stdout, stderr = waiting.communicate(timeout=WAIT_S)
    assert waiting.returncode == 1, (stdout, stderr)  # one expectation does not hold
    assert f"experiment tuning version 1, run {run.id}: " in stderr
    (title, header, rows), = tables(stdout)
    assert title == f"experiment tuning version 1, run {run.id}"
    assert header[:3] == ["expectation", "at", "judged"]
    assert [row[:3] for row in rows] == [
        ["p50(after) <= 0.5 * p50(before)", "-", "holds"],
        ["p50(after) <= 0.2 * p50(before)", "-", "does not hold"]]
    assert "p50(after) <= 0.2 * p50(before): p50(after) / p50(before) = 0.37" in stdout

    shown = latlab("experiment", "show", "tuning", env=env)
    (_, header, rows), = tables(shown.stdout)
    assert [row[:6] for row in rows] == [[str(run.id), "1", "done", "1", "1", "0"]]
    exported = tmp_path / "report" / "tuning.md"
    written = latlab("experiment", "export", "tuning", str(run.id), "-o", str(exported),
                     env=env)
    assert written.returncode == 0, written.stderr
    text = exported.read_text()
    assert text.startswith("# Does tuning halve the P50?\n")
    assert "| `p50(after) <= 0.2 * p50(before)` | - | **does not hold** |" in text
    assert latlab("experiment", "show", "tuning", "999999", env=env).returncode == 2
