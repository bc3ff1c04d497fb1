"""docker-compose.yml makes `make up`'s promise (no Docker engine here): it is valid against
the Compose specification's schema, runs the same processes, and restarts each one that
exits."""

import subprocess
import sys
from pathlib import Path

import yaml

import latlab_stack as localstack

COMPOSE = localstack.REPO / "docker-compose.yml"
CHECK = [str(Path(sys.executable).parent / "check-jsonschema"), "--builtin-schema",
         "vendor.compose-spec"]


def test_the_compose_file_is_valid_and_the_check_can_fail(tmp_path) -> None:
    valid = subprocess.run([*CHECK, str(COMPOSE)], capture_output=True, text=True)
    assert valid.returncode == 0, valid.stdout + valid.stderr
    broken = tmp_path / "docker-compose.yml"
    broken.write_text(COMPOSE.read_text().replace(
        "image: postgres:15\n    restart: unless-stopped",
        "image: postgres:15\n    restart: {when: always}"))
    assert broken.read_text() != COMPOSE.read_text()
    refused = subprocess.run([*CHECK, str(broken)], capture_output=True, text=True)
    assert refused.returncode == 1 and "restart" in refused.stdout, refused.stdout


def test_compose_restarts_the_processes_make_up_supervises() -> None:
    services = yaml.safe_load(COMPOSE.read_text())["services"]
    supervised = {p.name for p in localstack.programs(
        {"LATLAB_DATA_DIR": "/d", "LATLAB_HOST": "h", "LATLAB_PORT": "1",
         "LATLAB_HOST_NAME": "n"}, [])}
    assert supervised | {"db", "redis", "migrate"} == set(services)
    for name, service in services.items():
        expected = "no" if name == "migrate" else "unless-stopped"
        assert service.get("restart") == expected, (name, service.get("restart"))
