"""Postgres and Redis from the system binaries, without Docker.

Used by `make up` (a persistent data directory under `.data/`) and by the test harness
(throwaway ones in a temporary directory). Programs are started with argument lists.
"""

import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import psycopg


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


def _as_postgres_user() -> list[str]:
    # initdb and postgres refuse to run as root: run them as the `postgres` user then.
    # setpriv execs in place (runuser would fork), so the child pid is postgres itself.
    if os.geteuid() != 0:
        return []
    return ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--"]


def _give_to_postgres(path: Path) -> None:
    if os.geteuid() == 0:
        shutil.chown(path, "postgres", "postgres")


def start_postgres(
    directory: Path, port: int, *, database: str, durable: bool = True, log: Path | None = None
) -> Service:
    """Starts (initialising on first use) a Postgres cluster in `directory`; creates `database`."""
    binaries = postgres_bin()
    data = directory / "data"
    directory.mkdir(parents=True, exist_ok=True)
    _give_to_postgres(directory)
    reachable = subprocess.run([*_as_postgres_user(), "test", "-w", str(directory)], check=False)
    if reachable.returncode != 0:
        raise LocalStackError(
            f"the postgres user cannot reach {directory}; a parent folder is not traversable "
            "(chmod o+x it, or point LATLAB_DATABASE_URL at an existing server)"
        )
    if not (data / "PG_VERSION").exists():
        init = [str(binaries / "initdb"), "-D", str(data), "-U", "postgres", "--auth=trust",
                "-E", "UTF8"]
        if not durable:
            init.append("--no-sync")
        subprocess.run(_as_postgres_user() + init, check=True, stdout=subprocess.DEVNULL)
    command = [str(binaries / "postgres"), "-D", str(data), "-p", str(port), "-k", str(directory),
               "-c", "listen_addresses=127.0.0.1", "-c", "max_connections=200"]
    if not durable:
        command += ["-c", "fsync=off", "-c", "synchronous_commit=off",
                    "-c", "full_page_writes=off"]
    log_file = open(log or directory / "postgres.log", "ab")  # noqa: SIM115 - owned by the child
    process = subprocess.Popen(_as_postgres_user() + command, stdout=log_file,
                               stderr=subprocess.STDOUT, start_new_session=True)
    admin_url = f"postgresql://postgres@127.0.0.1:{port}/postgres"
    _wait(lambda: _pg_ready(admin_url), process, "postgres", directory / "postgres.log")
    with psycopg.connect(admin_url, autocommit=True) as connection:
        exists = connection.execute(
            "select 1 from pg_database where datname = %s", (database,)
        ).fetchone()
        if not exists:
            connection.execute(f'create database "{database}"')
    url = f"postgresql+psycopg://postgres@127.0.0.1:{port}/{database}"
    return Service("postgres", process, url)


def start_redis(directory: Path, port: int, *, durable: bool = True) -> Service:
    binary = shutil.which("redis-server")
    if binary is None:
        raise LocalStackError("redis-server not found; install redis-server")
    directory.mkdir(parents=True, exist_ok=True)
    command = [binary, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(directory),
               "--save", "60 1" if durable else "", "--appendonly", "no",
               "--logfile", str(directory / "redis.log")]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
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
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise LocalStackError(f"{name} exited with {process.returncode}:\n{tail}")
        if ready():
            return
        time.sleep(0.1)
    process.kill()
    raise LocalStackError(f"{name} was not ready after {timeout} s")


REPO = Path(__file__).resolve().parents[2]


def up() -> int:
    """`make up`: Postgres and Redis (unless URLs are given), migrations, the admin, then the
    api and workers under honcho. Ctrl-C stops everything; the data stays in `.data/`."""
    import signal

    from latlab.core.migrate import upgrade

    def interrupted(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    # A service manager's stop (SIGTERM) is handled as Ctrl-C is: everything stops cleanly.
    signal.signal(signal.SIGTERM, interrupted)
    signal.signal(signal.SIGINT, interrupted)  # also when started with SIGINT ignored
    data = Path(os.environ.get("LATLAB_DATA_DIR", REPO / ".data"))
    env = dict(os.environ)
    started: list[Service] = []
    try:
        if "LATLAB_DATABASE_URL" not in env:
            port = int(env.get("LATLAB_PG_PORT", "54329"))
            url = f"postgresql+psycopg://postgres@127.0.0.1:{port}/latlab"
            if not _pg_ready(f"postgresql://postgres@127.0.0.1:{port}/postgres"):
                started.append(start_postgres(data / "pg", port, database="latlab"))
            env["LATLAB_DATABASE_URL"] = url
        if "LATLAB_REDIS_URL" not in env:
            port = int(env.get("LATLAB_REDIS_PORT", "63799"))
            if not _redis_ready(port):
                started.append(start_redis(data / "redis", port))
            env["LATLAB_REDIS_URL"] = f"redis://127.0.0.1:{port}/0"
        upgrade(env["LATLAB_DATABASE_URL"])
        address = env.setdefault("LATLAB_HOST", "127.0.0.1")
        api_port = env.setdefault("LATLAB_PORT", "8000")
        env.setdefault("LATLAB_PUBLIC_URL", f"http://{address}:{api_port}")
        env["LATLAB_DATA_DIR"] = str(data)
        env.setdefault("LATLAB_HOST_NAME", socket.gethostname())
        os.environ.update(env)
        venv_bin = Path(sys.executable).parent
        env["PATH"] = f"{venv_bin}{os.pathsep}{env.get('PATH', '')}"
        admin = subprocess.run([str(venv_bin / "latlab"), "ensure-admin"], env=env, check=True,
                               capture_output=True, text=True).stdout.strip()
        print(admin, flush=True)
        procfile = str(REPO / "Procfile")
        honcho = subprocess.Popen(
            [str(venv_bin / "honcho"), "-f", procfile, "-d", str(REPO), "start"], env=env
        )
        threading.Thread(target=_banner_when_ready, args=(env["LATLAB_PUBLIC_URL"], admin),
                         daemon=True).start()
        threading.Thread(target=_first_job, daemon=True).start()
        try:
            return honcho.wait()
        except KeyboardInterrupt:
            # After a Ctrl-C honcho got the same signal (same process group); after a SIGTERM
            # only this one. Either way honcho stops its processes, then the services stop.
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            honcho.send_signal(signal.SIGTERM)
            honcho.wait()
            return 0  # a requested stop, not a failure
    finally:
        for service in reversed(started):
            service.stop()


def _banner_when_ready(url: str, admin: str) -> None:
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
          f"`make up` again keeps the data.\n{line}\n", flush=True)


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
