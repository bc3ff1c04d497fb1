"""Postgres and Redis from the system binaries: a throwaway server (tests, benchmarks) or a
durable one (`make up`, under supervisord). Programs are started with argument lists."""

import hashlib
import os
import secrets
import shutil
import socket
import ssl
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import psycopg

from latlab.core import tls


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


class LocalStackError(RuntimeError):
    pass


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def setpriv(argv: list[str], *, user: str | None = None,
            parent_death: str | None = None) -> list[str]:
    """`argv` through one setpriv, which execs in place (runuser would fork), so the child pid
    is the program's: run as `user`, and sent the signal `parent_death` by the kernel when its
    parent dies, however it dies (PR_SET_PDEATHSIG). Both in one call: a change of user
    clears the parent-death signal, and setpriv sets it after the change."""
    options = [f"--reuid={user}", f"--regid={user}", "--init-groups"] if user else []
    if parent_death:
        options.append(f"--pdeathsig={parent_death}")
    return ["setpriv", *options, "--", *argv] if options else argv


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


def postgres_user() -> str | None:
    # initdb and postgres refuse to run as root: run them as the `postgres` user then.
    return "postgres" if os.geteuid() == 0 else None


def _give_to_postgres(path: Path) -> None:
    if os.geteuid() == 0:
        shutil.chown(path, "postgres", "postgres")


def init_postgres(directory: Path, *, durable: bool = True) -> Path:
    """Creates the cluster in `directory`/data on first use; returns the data directory."""
    data = directory / "data"
    directory.mkdir(parents=True, exist_ok=True)
    _give_to_postgres(directory)
    reachable = subprocess.run(setpriv(["test", "-w", str(directory)], user=postgres_user()),
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
        subprocess.run(setpriv(init, user=postgres_user()), check=True,
                       stdout=subprocess.DEVNULL)
    return data


def postgres_argv(directory: Path, port: int, *, durable: bool = True) -> list[str]:
    """The server's command line (run it through `setpriv` as `postgres_user()`)."""
    command = [str(postgres_bin() / "postgres"), "-D", str(directory / "data"), "-p", str(port),
               "-k", str(directory), "-c", "listen_addresses=127.0.0.1",
               "-c", "max_connections=200"]
    if not durable:
        command += ["-c", "fsync=off", "-c", "synchronous_commit=off",
                    "-c", "full_page_writes=off"]
    return command


def create_database(port: int, database: str) -> str:
    """Creates `database` unless it exists; returns its SQLAlchemy URL."""
    with psycopg.connect(admin_url(port), autocommit=True) as connection:
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
    process = subprocess.Popen(setpriv(postgres_argv(directory, port, durable=durable),
                                       user=postgres_user()),
                               stdout=log_file, stderr=subprocess.STDOUT, start_new_session=True)
    wait_ready(lambda: pg_ready(admin_url(port)), process, "postgres", directory / "postgres.log")
    return Service("postgres", process, create_database(port, database))


def admin_url(port: int) -> str:
    return f"postgresql://postgres@127.0.0.1:{port}/postgres"


def pg_ready(url: str) -> bool:
    try:
        with psycopg.connect(url, connect_timeout=1):
            return True
    except psycopg.OperationalError:
        return False


def redis_argv(directory: Path, port: int, *, durable: bool = True, users: bool = False,
               address: str | None = None) -> list[str]:
    """redis-server on 127.0.0.1:`port`; with `users`, its users in `directory/users.acl`
    (`lab_user`): the default user off, the lab's own, and the hosts' the api adds. With an
    `address` other hosts reach it at, it listens there too, over TLS only (`broker_tls`):
    Redis binds one set of addresses for all its ports, so no plain port is left open."""
    binary = shutil.which("redis-server")
    if binary is None:
        raise LocalStackError("redis-server not found; install redis-server")
    directory.mkdir(parents=True, exist_ok=True)
    if users:
        lab_user(directory)
    listen = ["--port", str(port), "--bind", "127.0.0.1"]
    if address is not None:
        tls = broker_tls(directory, address)
        listen = ["--port", "0", "--tls-port", str(port), "--bind", "127.0.0.1", address,
                  "--tls-cert-file", tls["server_cert"], "--tls-key-file", tls["server_key"],
                  "--tls-ca-cert-file", tls["LATLAB_BROKER_CA"], "--tls-auth-clients", "yes"]
    return [binary, *listen, "--dir", str(directory),
            "--save", "60 1" if durable else "", "--appendonly", "no",
            "--logfile", str(directory / "redis.log"),
            *(["--aclfile", str(directory / ACL_FILE)] if users else [])]


ACL_FILE = "users.acl"


def lab_user(directory: Path) -> str:
    """The password of the lab's own Redis user (the api, its workers and beat), made once
    with the ACL file it is in: the default user off, the lab's user allowed everything.
    Hosts' users are added to the file by the api (`latlab.hosts.broker_users`)."""
    directory.mkdir(parents=True, exist_ok=True)
    secret = directory / "lab.password"
    if not secret.exists():
        secret.touch(mode=0o600)
        secret.write_text(secrets.token_hex(24))
        (directory / ACL_FILE).unlink(missing_ok=True)
    password = secret.read_text().strip()
    acl = directory / ACL_FILE
    if not acl.exists():
        acl.touch(mode=0o600)
        digest = hashlib.sha256(password.encode()).hexdigest()
        acl.write_text(f"user default off\nuser lab on #{digest} ~* &* +@all\n")
    return password


def broker_tls(directory: Path, address: str) -> dict[str, str]:
    """The lab's CA in `directory/tls` (`latlab.core.tls`), the broker's certificate for
    127.0.0.1 and `address`, and the lab processes' own: their settings (`LATLAB_BROKER_*`,
    the CA's key for the api to issue hosts' certificates) and the server's files. Made once;
    the broker's certificate again when its address changes."""
    folder = directory / "tls"
    ca, ca_key = tls.make_ca(folder)
    server, made_for = folder / "server.pem", folder / "server.address"
    if not server.exists() or not made_for.exists() or made_for.read_text() != address:
        tls.write_issued(tls.issue(ca, ca_key, "latlab broker", ("127.0.0.1", address)),
                         server, folder / "server.key")
        made_for.write_text(address)
    if not (folder / "lab.pem").exists():
        tls.write_issued(tls.issue(ca, ca_key, "latlab lab"), folder / "lab.pem",
                         folder / "lab.key")
    return {"LATLAB_BROKER_CA": str(ca), "LATLAB_BROKER_CA_KEY": str(ca_key),
            "LATLAB_BROKER_CERT": str(folder / "lab.pem"),
            "LATLAB_BROKER_KEY": str(folder / "lab.key"),
            "server_cert": str(server), "server_key": str(folder / "server.key")}


def lab_redis_url(directory: Path, port: int, *, secure: bool = False) -> str:
    """The lab's own URL of its broker (`rediss://`, with `broker_tls`, when `secure`)."""
    scheme = "rediss" if secure else "redis"
    return f"{scheme}://lab:{lab_user(directory)}@127.0.0.1:{port}/0"


def start_redis(directory: Path, port: int, *, durable: bool = True,
                users: bool = False, address: str | None = None) -> Service:
    process = subprocess.Popen(redis_argv(directory, port, durable=durable, users=users,
                                          address=address),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)
    tls_files = broker_tls(directory, address) if address is not None else None
    wait_ready(lambda: redis_ready(port, tls_files), process, "redis", directory / "redis.log")
    url = lab_redis_url(directory, port, secure=address is not None) if users \
        else f"redis://127.0.0.1:{port}/0"
    return Service("redis", process, url)


def redis_ready(port: int, tls_files: dict[str, str] | None = None) -> bool:
    """Whether a Redis answers on `port` (asking for a password is an answer); over TLS,
    as the lab (`broker_tls`), when given its files."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as plain:
            connection = plain
            if tls_files is not None:
                context = ssl.create_default_context(cafile=tls_files["LATLAB_BROKER_CA"])
                context.load_cert_chain(tls_files["LATLAB_BROKER_CERT"],
                                        tls_files["LATLAB_BROKER_KEY"])
                connection = context.wrap_socket(plain, server_hostname="127.0.0.1")
            connection.sendall(b"PING\r\n")
            return connection.recv(16).startswith((b"+PONG", b"-NOAUTH"))
    except OSError:
        return False


def wait_ready(
    ready: Callable[[], bool],
    process: subprocess.Popen[bytes],
    name: str,
    log: Path,
    timeout: float = 60,
    kill: bool = True,
) -> None:
    """Waits until `ready()`; fails (with the tail of `log`) if `process` exits first."""
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
