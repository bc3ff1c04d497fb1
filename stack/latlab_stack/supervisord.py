"""supervisord over the lab: its programs, its configuration, and its XML-RPC interface."""

import configparser
import os
import shlex
import sys
import xmlrpc.client
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from supervisor.xmlrpc import SupervisorTransport

from latlab_contract import ALERTS_QUEUE, INGEST_WORKER, host_queue
from latlab_stack.services import setpriv

REPO = Path(__file__).resolve().parents[2]
# Seconds the api keeps an idle connection: well above its 503s' `Retry-After` (5 s,
# `latlab.main.RETRY_AFTER_S`), so a client that waits that long and reuses its connection
# does not meet the server closing it (uvicorn's default, 5 s, reset such reuses).
KEEP_ALIVE_S = 20
# The lab's credentials, which its runner does without (it has its host's own).
RUNNER_HOLDS_NOT = ("LATLAB_DATABASE_URL", "LATLAB_REDIS_URL", "LATLAB_BROKER_CA",
                    "LATLAB_BROKER_CERT", "LATLAB_BROKER_KEY", "LATLAB_BROKER_CA_KEY")


@dataclass(frozen=True)
class Program:
    """A process of the lab, as supervisord runs it."""

    name: str
    argv: list[str]
    # Services start first and stop last.
    service: bool = False
    stopsignal: str = "TERM"
    # Postgres stops its own children; Celery's pool children and a runner's programs are
    # stopped with their group.
    stopasgroup: bool = True
    # Sent by the kernel when supervisord dies, however it dies: the lab does not outlive
    # its supervisor. A Celery worker's is QUIT, its cold shutdown (TERM would wait for a
    # running job; nothing would come to end that wait).
    orphan_signal: str = "TERM"
    user: str | None = None  # the program's own, else supervisord's


def programs(env: dict[str, str], services: list[Program]) -> list[Program]:
    """The api, the workers, beat and this host's runner."""
    bin_dir = Path(sys.executable).parent
    celery = [str(bin_dir / "celery"), "-A"]
    data = env["LATLAB_DATA_DIR"]
    return [
        *services,
        Program("api", [str(bin_dir / "uvicorn"), "latlab.main:app", "--host",
                        env["LATLAB_HOST"], "--port", env["LATLAB_PORT"], "--log-level", "info",
                        "--timeout-keep-alive", str(KEEP_ALIVE_S),
                        "--no-proxy-headers"]),  # the api reads trusted proxies itself
        Program("ingest", [*celery, "latlab.worker", "worker", "-Q", INGEST_WORKER, "-c", "1",
                           "-n", "ingest@%h", "--loglevel", "WARNING"], orphan_signal="QUIT"),
        Program("alerts", [*celery, "latlab.worker", "worker", "-Q", ALERTS_QUEUE, "-c", "2",
                           "-n", "alerts@%h", "--loglevel", "WARNING"], orphan_signal="QUIT"),
        Program("beat", [*celery, "latlab.worker", "beat", "--schedule",
                         f"{data}/celerybeat-schedule", "--loglevel", "WARNING"]),
        # The runner holds none of the lab's credentials: its host's name, key and broker
        # user come from its settings file (LATLAB_RUNNER_ENV, written at enrollment).
        Program("runner", ["env", *(a for name in RUNNER_HOLDS_NOT for a in ("-u", name)),
                           *celery, "latlab_workers.app", "worker", "-Q",
                           host_queue(env["LATLAB_HOST_NAME"]), "-c", "1", "-n", "runner@%h",
                           "--loglevel", "INFO"], orphan_signal="QUIT"),
    ]


def supervisor_config(data: Path, lab: list[Program], password: str) -> str:
    """supervisord's configuration: a process that exits is started again (at once after a
    run of `startsecs`, else after 1, 2, 3 ... s, up to `startretries` times), and each one's
    exit and restart is logged; services come first and go last; if supervisord dies, each
    process gets its `orphan_signal`."""
    logs = data / "logs"
    user = ["user=root"] if os.geteuid() == 0 else []  # says so, rather than warn about it
    credentials = ["username=latlab", f"password={password}"]
    lines = [
        "[supervisord]", "nodaemon=true", "loglevel=info", f"logfile={logs}/supervisord.log",
        "logfile_maxbytes=10MB", f"pidfile={data}/supervisord.pid", f"childlogdir={logs}",
        *user, "",
        "[unix_http_server]", f"file={data}/supervisor.sock", "chmod=0700", *credentials, "",
        "[supervisorctl]", f"serverurl=unix://{data}/supervisor.sock", *credentials, "",
        "[rpcinterface:supervisor]",
        "supervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface", "",
    ]
    for program in lab:
        lines += [
            f"[program:{program.name}]",
            # supervisord expands %(name)s itself: Celery's `%h` is written `%%h`.
            "command=" + shlex.join(setpriv(program.argv, user=program.user,
                                           parent_death=program.orphan_signal)
                                    ).replace("%", "%%"),
            f"directory={REPO}",
            f"priority={10 if program.service else 100}",
            # Services are started by supervisord; the rest once the database is migrated.
            f"autostart={'true' if program.service else 'false'}",
            "autorestart=true", "startsecs=10", "startretries=20",
            f"stopsignal={program.stopsignal}", "stopwaitsecs=20",
            f"stopasgroup={'true' if program.stopasgroup else 'false'}",
            f"killasgroup={'true' if program.stopasgroup else 'false'}",
            "redirect_stderr=true", f"stdout_logfile={logs}/{program.name}.log",
            "stdout_logfile_maxbytes=10MB", "stdout_logfile_backups=2", "",
        ]
    return "\n".join(lines)


def supervisor_rpc(config: Path) -> Any:
    """supervisord's XML-RPC interface (what supervisorctl uses), read from its config."""
    parser = configparser.RawConfigParser()
    parser.read(config)
    section = parser["supervisorctl"]
    transport = SupervisorTransport(section["username"], section["password"],
                                    section["serverurl"])
    return xmlrpc.client.ServerProxy("http://127.0.0.1", transport=transport).supervisor


def program_processes(pid: int) -> list[int]:
    """A supervised program's processes: its main process first, then every descendant. Not
    its process group: Postgres gives each child a session of its own (`setsid`), so a signal to
    the postmaster's group reaches the postmaster alone."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rpartition(")")[2].split()
        except OSError:  # ended meanwhile
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    found = [pid]
    for parent in found:  # grows as it goes: breadth first
        found.extend(children.get(parent, []))
    return found

