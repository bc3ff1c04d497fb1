"""`latlab-runner`: a machine joins the lab as a host, and runs its runner.

    latlab-runner join https://lab.example 7F3QK-... --service   # the admin's invitation
    latlab-runner run                        # the runner, as its service starts it

`join` trades the invitation's one-time code for the host's name, tags, key and broker URL
(`POST /api/v1/hosts/join`), writes them to the runner's settings file (owner-only: it holds
the key) and checks that the broker answers; with `--service`, installs a systemd unit that
runs the runner at boot and restarts it. `run` starts the Celery runner worker on the
host's queue with those settings (`latlab_workers.settings`).
"""

import argparse
import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import redis

from latlab_contract import host_queue
from latlab_contract.broker import tls_options
from latlab_contract.signing import HostGrant
from latlab_workers.settings import RUNNER_ENV, get_settings


class JoinError(Exception):
    pass


def join(lab_url: str, code: str, env_file: Path) -> dict[str, str]:
    """Joins the lab at `lab_url` with `code`; returns what the lab granted (key left out)."""
    request = urllib.request.Request(
        lab_url.rstrip("/") + "/api/v1/hosts/join", method="POST",
        data=json.dumps({"code": code}).encode(), headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            grant = HostGrant.model_validate_json(response.read())
    except urllib.error.HTTPError as error:
        raise JoinError(f"the lab refused the code ({error.code}): "
                        f"{_detail(error.read())}") from None
    except (urllib.error.URLError, OSError) as error:
        raise JoinError(f"cannot reach the lab at {lab_url}: {error}") from None
    settings = grant.write(env_file)
    tls = tls_options(settings.get("LATLAB_BROKER_CA", ""),
                      settings.get("LATLAB_BROKER_CERT", ""), settings.get("LATLAB_BROKER_KEY", ""))
    try:
        redis.Redis.from_url(grant.broker_url, socket_timeout=5, socket_connect_timeout=5,
                             **(tls or {})).ping()
    except redis.RedisError as error:
        raise JoinError(f"joined as {grant.name} (settings in {env_file}), but the broker "
                        f"does not answer: {error}") from None
    return {k: v for k, v in settings.items() if k != "LATLAB_HOST_KEY"}


def run() -> None:
    """Replaces this process with the runner worker of the enrolled host."""
    name = get_settings().host_name
    os.execv(sys.executable, [sys.executable, "-m", "celery", "-A", "latlab_workers.app",
                              "worker", "-Q", host_queue(name), "-c", "1", "-n", f"{name}@%h",
                              "--loglevel", "INFO"])


UNIT = "latlab-runner.service"
SYSTEM_UNITS = Path("/etc/systemd/system")


def install_service(env_file: Path, unit_dir: Path) -> str:
    """A systemd unit that starts the runner at boot and again whenever it ends, enabled and
    started where systemd runs; says what was done."""
    unit = unit_dir / UNIT
    unit_dir.mkdir(parents=True, exist_ok=True)
    unit.write_text(f"""[Unit]
Description=latlab runner: this host's benchmark jobs
Wants=network-online.target
After=network-online.target

[Service]
Environment=LATLAB_RUNNER_ENV={env_file.resolve()}
ExecStart={sys.executable} -m latlab_workers.host run
Restart=always
RestartSec=5
# A job's programs are the runner's children: they end with it.
KillMode=control-group
TimeoutStopSec=30

[Install]
WantedBy=multi-user.target
""")
    if not Path("/run/systemd/system").is_dir():
        return (f"wrote {unit}; systemd does not run here: have your supervisor run "
                f"`LATLAB_RUNNER_ENV={env_file} latlab-runner run`")
    if unit_dir != SYSTEM_UNITS:
        return f"wrote {unit}; start it: systemctl link {unit} && systemctl enable --now {UNIT}"
    for command in (["systemctl", "daemon-reload"], ["systemctl", "enable", "--now", UNIT]):
        done = subprocess.run(command, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise JoinError(f"{' '.join(command)} failed: {done.stderr.strip()}")
    return f"the runner runs as the service {UNIT} (systemctl status {UNIT})"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="latlab-runner", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    joining = commands.add_parser("join", help="join the lab with an invitation's code")
    joining.add_argument("lab_url")
    joining.add_argument("code")
    joining.add_argument("--env-file", type=Path, default=RUNNER_ENV,
                         help=f"where the host's settings go (default {RUNNER_ENV})")
    joining.add_argument("--service", action="store_true",
                         help="install the runner as a systemd service, started at boot")
    joining.add_argument("--unit-dir", type=Path, default=SYSTEM_UNITS,
                         help="where the service's unit goes (default /etc/systemd/system)")
    commands.add_parser("run", help="run this host's runner (its service's command)")
    args = parser.parse_args(argv)
    if args.command == "run":
        run()
    try:
        granted = join(args.lab_url, args.code, args.env_file)
        print(f"joined the lab as host {granted['LATLAB_HOST_NAME']} "
              f"(tags: {granted['LATLAB_HOST_TAGS'] or 'none'}); the broker answers; "
              f"settings in {args.env_file}", flush=True)
        print(install_service(args.env_file, args.unit_dir) if args.service
              else "start the runner: latlab-runner run")
    except JoinError as error:
        sys.exit(f"latlab-runner join: {error}")


def _detail(body: bytes) -> str:
    try:
        return str(json.loads(body)["detail"])
    except (ValueError, KeyError, TypeError):
        return body.decode(errors="replace")[:500]


if __name__ == "__main__":
    main()
