"""The CLI installs for CI as the README says, in a clean virtual environment, and submits a
harness's output to a running lab; the api's package can only ever take this repository's
workers package, never one of that name from a public index."""

import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

from latlab.models import Scope
from tests.conftest import Actors

ROOT = Path(__file__).resolve().parents[2]


def test_the_readme_install_gives_a_cli_that_submits(live_server, committed_db,
                                                     tmp_path) -> None:
    readme = (ROOT / "README.md").read_text()
    found = re.search(r"`(pip install \./[^`]+)`", readme)
    assert found, "the README says how to install the CLI"
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    command = shlex.split(found.group(1))
    installed = subprocess.run([str(venv / "bin" / "python"), "-m", *command, "-q"],
                               cwd=ROOT, capture_output=True, text=True, timeout=900,
                               check=False)
    assert installed.returncode == 0, installed.stderr[-2000:]
    token = Actors(committed_db).token(Scope.runs_write, Scope.read)
    committed_db.commit()
    golden = ROOT / "workers" / "tests" / "golden" / "adapters" / "go-bench" / "fast.txt"
    submitted = subprocess.run(
        [str(venv / "bin" / "latlab"), "submit", "--url", live_server, "--adapter", "go-bench",
         "--suite", "go-demo", "--commit", "abcd1234", str(golden)],
        env={"LATLAB_TOKEN": token["Authorization"].split()[1], "PATH": "/usr/bin:/bin",
             "HOME": str(tmp_path)},
        capture_output=True, text=True, timeout=120, check=False)
    assert submitted.returncode == 0, submitted.stderr
    assert re.search(r"/runs/\d+$", submitted.stdout.strip()), submitted.stdout
    assert "verdict: no-baseline" in submitted.stderr


def test_the_api_package_takes_only_this_repositorys_workers() -> None:
    """A bare `latlab-workers` would be fetched from PyPI by a `pip install ./backend`, where
    anyone may register the name; a local version (`+repo`) is one PyPI refuses to host."""
    backend = tomllib.loads((ROOT / "backend" / "pyproject.toml").read_text())["project"]
    workers = tomllib.loads((ROOT / "workers" / "pyproject.toml").read_text())["project"]
    (ours,) = [Requirement(r) for r in backend["dependencies"]
               if Requirement(r).name == workers["name"]]
    version = Version(workers["version"])
    assert version.local and str(ours.specifier) == f"=={version}"


def test_the_cli_starts_without_the_servers_stack() -> None:
    """Every command but `ensure-admin` is a client of the API: loading the CLI loads no
    database layer, web framework, password hashing or statistics library (it took 1.8 s to
    start when `ensure-admin`'s imports came with it; 0.55 s without, `latlab --help` here)."""
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, latlab.cli; "
         "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))"],
        capture_output=True, text=True, timeout=60, check=True).stdout.split()
    assert not {"sqlalchemy", "fastapi", "starlette", "argon2", "psycopg", "scipy",
                "celery"} & set(loaded)
