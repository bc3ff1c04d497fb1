"""The CLI installs for CI as the README says, alone, in a clean virtual environment (none of the
server comes with it), and submits a harness's output to a running lab; the packages can only
ever take this repository's contract and workers packages, never ones of those names from a
public index."""

import json
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

from latlab.models import Scope
from tests.factories import Actors

ROOT = Path(__file__).resolve().parents[2]
# What the server runs on, which a CI step that submits a file needs none of.
SERVER = {"fastapi", "starlette", "uvicorn", "sqlalchemy", "psycopg", "alembic", "scipy",
          "celery", "redis", "py-spy", "argon2-cffi", "latlab", "latlab-workers"}


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
    listed = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "list", "--format",
                             "json"], capture_output=True, text=True, timeout=120, check=True)
    packages = {p["name"].lower() for p in json.loads(listed.stdout)}
    assert {"latlab-cli", "latlab-contract"} <= packages
    assert not SERVER & packages, "the CLI's install brought the server's stack"
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


@pytest.mark.parametrize(("package", "needs"), [
    ("backend", "contract"), ("backend", "workers"), ("workers", "contract"), ("cli", "contract")])
def test_a_package_takes_only_this_repositorys_own(package: str, needs: str) -> None:
    """A bare `latlab-contract` or `latlab-workers` would be fetched from PyPI by a `pip
    install ./cli`, where anyone may register the name; a local version (`+repo`) is one PyPI
    refuses to host."""
    project = _project(package)
    needed = _project(needs)
    (ours,) = [Requirement(r) for r in project["dependencies"]
               if Requirement(r).name == needed["name"]]
    version = Version(needed["version"])
    assert version.local and str(ours.specifier) == f"=={version}"


def test_the_server_does_not_carry_the_cli() -> None:
    """The CLI is its own package: the server's has no `latlab` command, and the CLI's
    dependencies are the contract and an HTTP client, with typer and rich."""
    assert "latlab" not in _project("backend").get("scripts", {})
    assert _project("cli")["scripts"] == {"latlab": "latlab_cli:main"}
    assert not list((ROOT / "backend" / "latlab").glob("cli/*.py"))
    needs = {Requirement(r).name for r in _project("cli")["dependencies"]}
    assert needs == {"latlab-contract", "httpx", "typer", "rich"}


def _project(folder: str) -> dict[str, Any]:
    project: dict[str, Any] = tomllib.loads((ROOT / folder / "pyproject.toml").read_text())[
        "project"]
    return project


def test_the_cli_starts_without_the_servers_stack() -> None:
    """Every command is a client of the API: loading the CLI loads no database layer, web
    framework, password hashing, broker or statistics library, even where they are installed."""
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, latlab_cli; "
         "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))"],
        capture_output=True, text=True, timeout=60, check=True).stdout.split()
    assert not {"sqlalchemy", "fastapi", "starlette", "argon2", "psycopg", "scipy",
                "celery", "latlab", "latlab_workers"} & set(loaded)
