"""`latlab submit` against a live api, as CI would run it."""

import json
import subprocess
import sys

from latlab.models import Scope
from tests.conftest import Actors
from tests.factories import edited, result


def _submit(live_server: str, token: str, path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "latlab.cli", "submit", str(path), "--url", live_server, *extra],
        env={"LATLAB_TOKEN": token, "PATH": "/usr/bin:/bin"}, capture_output=True, text=True,
        timeout=120, check=False,
    )


def test_submit_prints_the_run_url_and_retries_store_once(committed_db, live_server,
                                                          tmp_path) -> None:
    token = Actors(committed_db).token(Scope.runs_write)["Authorization"].split()[1]
    committed_db.commit()
    path = tmp_path / "result.json"
    path.write_text(json.dumps(result()))
    first = _submit(live_server, token, path)
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith(f"{live_server}/runs/")
    again = _submit(live_server, token, path)
    assert again.stdout == first.stdout


def test_rejected_submission_exits_non_zero_with_the_server_message(committed_db, live_server,
                                                                    tmp_path) -> None:
    token = Actors(committed_db).token(Scope.runs_write)["Authorization"].split()[1]
    committed_db.commit()
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(edited(result(), "schema", "latlab.result/v0")))
    rejected = _submit(live_server, token, path)
    assert rejected.returncode == 1
    assert "rejected (422)" in rejected.stderr and "$.schema" in rejected.stderr
    refused = _submit(live_server, "llt_wrong", path)
    assert refused.returncode == 1 and "unknown API token" in refused.stderr
    missing = _submit(live_server, token, tmp_path / "nope.json")
    assert missing.returncode == 2 and "cannot read" in missing.stderr
