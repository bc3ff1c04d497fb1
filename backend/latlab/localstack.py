"""Postgres and Redis from the system binaries, without Docker.

Used by `make up` (a persistent data directory under `.data/`) and by the test harness
(throwaway ones in a temporary directory). Programs are started with argument lists.
"""

import os
import secrets
import shlex
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg

from latlab_contract import ALERTS_QUEUE, INGEST_QUEUE, host_queue


class LocalStackError(RuntimeError):
    pass


@dataclass
class Service:
    name: str
    process: subprocess.Popen[bytes]
    url: str

    def stop(self, timeout: float = 20.0) -> None:
        if self.process.poll() is not None:
            return
        # SIGTERM is a "smart" shutdown for postgres; SIGINT a fast one.
        self.process.send_signal(2 if self.name == "postgres" else 15)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def postgres_bin() -> Path:
    candidates = sorted(
        Path("/usr/lib/postgresql").glob("*/bin/postgres"),
        key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0,
    )
    if candidates:
        return candidates[-1].parent
    found = shutil.which("postgres")
    if found:
        return Path(found).parent
    raise LocalStackError("PostgreSQL server binaries not found; install postgresql")


def _postgres_user() -> str | None:
    # initdb and postgres refuse to run as root: run them as the `postgres` user then.
    return "postgres" if os.geteuid() == 0 else None


def _setpriv(argv: list[str], *, user: str | None = None,
            parent_death: str | None = None) -> list[str]:
    """`argv` through one setpriv, which execs in place (runuser would fork), so the child pid
    is the program's: run as `user`, and sent the signal `parent_death` by the kernel when its
    parent dies, however it dies (PR_SET_PDEATHSIG). Both in one call: a change of user
    clears the parent-death signal, and setpriv sets it after the change."""
    options = [f"--reuid={user}", f"--regid={user}", "--init-groups"] if user else []
    if parent_death:
        options.append(f"--pdeathsig={parent_death}")
    return ["setpriv", *options, "--", *argv] if options else argv


def _give_to_postgres(path: Path) -> None:
    if os.geteuid() == 0:
        shutil.chown(path, "postgres", "postgres")


def init_postgres(directory: Path, *, durable: bool = True) -> Path:
    """Creates the cluster in `directory`/data on first use; returns the data directory."""
    data = directory / "data"
    directory.mkdir(parents=True, exist_ok=True)
    _give_to_postgres(directory)
    reachable = subprocess.run(_setpriv(["test", "-w", str(directory)], user=_postgres_user()),
                               check=False)
    if reachable.returncode != 0:
        raise LocalStackError(
            f"the postgres user cannot reach {directory}; a parent folder is not traversable "
            "(chmod o+x it, or point LATLAB_DATABASE_URL at an existing server)"
        )
    if not (data / "PG_VERSION").exists():
        init = [str(postgres_bin() / "initdb"), "-D", str(data), "-U", "postgres",
                "--auth=trust", "-E", "UTF8"]
        if not durable:
            init.append("--no-sync")
        subprocess.run(_setpriv(init, user=_postgres_user()), check=True,
                       stdout=subprocess.DEVNULL)
    return data


def postgres_argv(directory: Path, port: int, *, durable: bool = True) -> list[str]:
    """The server's command line (run it through `setpriv` as `_postgres_user()`)."""
    command = [str(postgres_bin() / "postgres"), "-D", str(directory / "data"), "-p", str(port),
               "-k", str(directory), "-c", "listen_addresses=127.0.0.1",
               "-c", "max_connections=200"]
    if not durable:
        command += ["-c", "fsync=off", "-c", "synchronous_commit=off",
                    "-c", "full_page_writes=off"]
    return command


def create_database(port: int, database: str) -> str:
    """Creates `database` unless it exists; returns its SQLAlchemy URL."""
    with psycopg.connect(_admin_url(port), autocommit=True) as connection:
        exists = connection.execute(
            "select 1 from pg_database where datname = %s", (database,)
        ).fetchone()
        if not exists:
            connection.execute(f'create database "{database}"')
    return f"postgresql+psycopg://postgres@127.0.0.1:{port}/{database}"


def start_postgres(
    directory: Path, port: int, *, database: str, durable: bool = True, log: Path | None = None
) -> Service:
    """Starts (initialising on first use) a Postgres cluster in `directory`; creates `database`."""
    init_postgres(directory, durable=durable)
    log_file = open(log or directory / "postgres.log", "ab")  # noqa: SIM115 - owned by the child
    process = subprocess.Popen(_setpriv(postgres_argv(directory, port, durable=durable),
                                       user=_postgres_user()),
                               stdout=log_file, stderr=subprocess.STDOUT, start_new_session=True)
    _wait(lambda: _pg_ready(_admin_url(port)), process, "postgres", directory / "postgres.log")
    return Service("postgres", process, create_database(port, database))


def _admin_url(port: int) -> str:
    return f"postgresql://postgres@127.0.0.1:{port}/postgres"


def redis_argv(directory: Path, port: int, *, durable: bool = True) -> list[str]:
    binary = shutil.which("redis-server")
    if binary is None:
        raise LocalStackError("redis-server not found; install redis-server")
    directory.mkdir(parents=True, exist_ok=True)
    return [binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(directory),
            "--save", "60 1" if durable else "", "--appendonly", "no",
            "--logfile", str(directory / "redis.log")]


def start_redis(directory: Path, port: int, *, durable: bool = True) -> Service:
    process = subprocess.Popen(redis_argv(directory, port, durable=durable),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)
    _wait(lambda: _redis_ready(port), process, "redis", directory / "redis.log")
    return Service("redis", process, f"redis://127.0.0.1:{port}/0")


def _pg_ready(url: str) -> bool:
    try:
        with psycopg.connect(url, connect_timeout=1):
            return True
    except psycopg.OperationalError:
        return False


def _redis_ready(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as connection:
            connection.sendall(b"PING\r\n")
            return connection.recv(16).startswith(b"+PONG")
    except OSError:
        return False


def _wait(
    ready: Callable[[], bool],
    process: subprocess.Popen[bytes],
    name: str,
    log: Path,
    timeout: float = 60,
    kill: bool = True,
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise LocalStackError(f"{name} exited with {process.returncode}:\n{tail}")
        if ready():
            return
        time.sleep(0.1)
    if kill:
        process.kill()
    raise LocalStackError(f"{name} was not ready after {timeout} s")


REPO = Path(__file__).resolve().parents[2]


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
                        env["LATLAB_HOST"], "--port", env["LATLAB_PORT"], "--log-level", "info"]),
        Program("ingest", [*celery, "latlab.worker", "worker", "-Q", INGEST_QUEUE, "-c", "1",
                           "-n", "ingest@%h", "--loglevel", "WARNING"], orphan_signal="QUIT"),
        Program("alerts", [*celery, "latlab.worker", "worker", "-Q", ALERTS_QUEUE, "-c", "2",
                           "-n", "alerts@%h", "--loglevel", "WARNING"], orphan_signal="QUIT"),
        Program("beat", [*celery, "latlab.worker", "beat", "--schedule",
                         f"{data}/celerybeat-schedule", "--loglevel", "WARNING"]),
        Program("runner", [*celery, "latlab_workers.app", "worker", "-Q",
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
            "command=" + shlex.join(_setpriv(program.argv, user=program.user,
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


def up() -> int:
    """`make up`: Postgres and Redis (unless URLs are given), migrations, the admin, and the
    api and workers, all under supervisord, which restarts whatever exits. Ctrl-C (or a
    SIGTERM to this process) stops everything; the data stays in `.data/`."""
    import signal

    from latlab.core.migrate import upgrade

    def interrupted(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    # A service manager's stop (SIGTERM) and a closed terminal (SIGHUP) are handled as Ctrl-C
    # is: everything stops cleanly.
    signal.signal(signal.SIGTERM, interrupted)
    signal.signal(signal.SIGHUP, interrupted)
    signal.signal(signal.SIGINT, interrupted)  # also when started with SIGINT ignored
    data = Path(os.environ.get("LATLAB_DATA_DIR", REPO / ".data")).resolve()
    (data / "logs").mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env["LATLAB_DATA_DIR"] = str(data)
    env.setdefault("LATLAB_HOST", "127.0.0.1")
    env.setdefault("LATLAB_PORT", "8000")
    env.setdefault("LATLAB_PUBLIC_URL", f"http://{env['LATLAB_HOST']}:{env['LATLAB_PORT']}")
    env.setdefault("LATLAB_HOST_NAME", socket.gethostname())
    services = []
    pg_port = int(env.get("LATLAB_PG_PORT", "54329"))
    local_pg = "LATLAB_DATABASE_URL" not in env
    if local_pg:
        env["LATLAB_DATABASE_URL"] = f"postgresql+psycopg://postgres@127.0.0.1:{pg_port}/latlab"
        if not _pg_ready(_admin_url(pg_port)):  # else a server left running: reuse it
            init_postgres(data / "pg")
            services.append(Program("postgres", postgres_argv(data / "pg", pg_port),
                                    service=True, stopsignal="INT", stopasgroup=False,
                                    orphan_signal="INT", user=_postgres_user()))
    redis_port = int(env.get("LATLAB_REDIS_PORT", "63799"))
    local_redis = "LATLAB_REDIS_URL" not in env
    if local_redis:
        env["LATLAB_REDIS_URL"] = f"redis://127.0.0.1:{redis_port}/0"
        if not _redis_ready(redis_port):
            services.append(Program("redis", redis_argv(data / "redis", redis_port),
                                    service=True))
    bin_dir = Path(sys.executable).parent
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    lab = programs(env, services)
    config = data / "supervisord.conf"
    config.touch(mode=0o600)
    config.write_text(supervisor_config(data, lab, secrets.token_urlsafe(16)))
    # If this process dies, however it dies, supervisord stops the lab as on Ctrl-C.
    supervisord = subprocess.Popen(
        _setpriv([str(bin_dir / "supervisord"), "-c", str(config)], parent_death="TERM"), env=env,
        start_new_session=True)
    print(f"supervisord {supervisord.pid}: {config}; each process logs to {data / 'logs'}",
          flush=True)
    try:
        if local_pg:
            _wait(lambda: _pg_ready(_admin_url(pg_port)), supervisord, "postgres",
                  data / "logs" / "postgres.log", kill=False)
            create_database(pg_port, "latlab")
        if local_redis:
            _wait(lambda: _redis_ready(redis_port), supervisord, "redis",
                  data / "logs" / "redis.log", kill=False)
        os.environ.update(env)
        upgrade(env["LATLAB_DATABASE_URL"])
        admin = subprocess.run([str(bin_dir / "latlab"), "ensure-admin"], env=env, check=True,
                               capture_output=True, text=True).stdout.strip()
        print(admin, flush=True)
        control = supervisor_rpc(config)
        for program in lab:
            if not program.service:
                control.startProcess(program.name, False)  # all at once, not one by one
        threading.Thread(target=_banner_when_ready, args=(env["LATLAB_PUBLIC_URL"], admin,
                                                          config), daemon=True).start()
        threading.Thread(target=_first_job, daemon=True).start()
        code = supervisord.wait()
        print(f"supervisord ended ({code}); the lab's processes end with it", file=sys.stderr,
              flush=True)
        return code if code >= 0 else 128 - code
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        return 0  # a requested stop, not a failure
    finally:
        if supervisord.poll() is None:
            # supervisord stops the api and workers first, then Postgres and Redis.
            supervisord.send_signal(signal.SIGTERM)
            supervisord.wait()


def supervisor_rpc(config: Path) -> Any:
    """supervisord's XML-RPC interface (what supervisorctl uses), read from its config."""
    import configparser
    import xmlrpc.client

    from supervisor.xmlrpc import SupervisorTransport

    parser = configparser.RawConfigParser()
    parser.read(config)
    section = parser["supervisorctl"]
    transport = SupervisorTransport(section["username"], section["password"],
                                    section["serverurl"])
    return xmlrpc.client.ServerProxy("http://127.0.0.1", transport=transport).supervisor


def _banner_when_ready(url: str, admin: str, config: Path) -> None:
    """Repeats the address and credentials once the api answers (the logs scroll fast)."""
    import urllib.request

    for _ in range(300):
        try:
            with urllib.request.urlopen(f"{url}/api/v1/openapi.json", timeout=1):
                break
        except OSError:
            time.sleep(0.5)
    line = "=" * 72
    print(f"\n{line}\n latlab is up: {url}\n {admin}\n Ctrl-C stops everything; "
          f"`make up` again keeps the data.\n processes: supervisorctl -c {config} status\n"
          f"{line}\n", flush=True)


def _first_job() -> None:
    """On an empty lab, runs one `echo` job as soon as the local runner is online, so the
    dashboard has data at first sight."""
    from sqlalchemy import func, select

    from latlab.core.db import get_sessionmaker
    from latlab.core.errors import AppError
    from latlab.core.settings import get_settings
    from latlab.jobs import service as job_service
    from latlab.jobs.schemas import JobCreate
    from latlab.models import Job, Run
    from latlab.projects import service as projects

    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        time.sleep(2)
        with get_sessionmaker()() as session, session.begin():
            if session.scalar(select(func.count()).select_from(Run)) or session.scalar(
                select(func.count()).select_from(Job)
            ):
                return
            project = projects.ensure(session, get_settings().default_project)
            try:
                jobs = job_service.create_jobs(session, project, JobCreate(suite="echo"))
            except AppError:
                continue  # the runner has not announced itself yet
            print(f"first look: echo job {jobs[0].id} launched on this host", flush=True)
            return


if __name__ == "__main__":
    if sys.argv[1:] != ["up"]:
        print("usage: python -m latlab.localstack up", file=sys.stderr)
        sys.exit(2)
    sys.exit(up())
