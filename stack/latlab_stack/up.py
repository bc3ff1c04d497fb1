"""`make up`: the lab on this machine, under supervisord, with its data in `.data/`."""

import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import httpx

from latlab.core.db import get_sessionmaker
from latlab.core.migrate import upgrade
from latlab.hosts import enrollment
from latlab_stack.services import (
    admin_url,
    broker_tls,
    create_database,
    init_postgres,
    lab_redis_url,
    pg_ready,
    postgres_argv,
    postgres_user,
    redis_argv,
    redis_ready,
    setpriv,
    wait_ready,
)
from latlab_stack.supervisord import (
    REPO,
    Program,
    programs,
    supervisor_config,
    supervisor_rpc,
)


def up() -> int:
    """`make up`: Postgres and Redis (unless URLs are given), migrations, the admin, and the
    api and workers, all under supervisord, which restarts whatever exits. Ctrl-C (or a
    SIGTERM to this process) stops everything; the data stays in `.data/`."""

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
    # This host's runner is enrolled as any host is (`latlab-runner join`): its name and key
    # in a settings file of its own, written once the database is up.
    env["LATLAB_RUNNER_ENV"] = str(data / "runner.env")
    services = []
    pg_port = int(env.get("LATLAB_PG_PORT", "54329"))
    local_pg = "LATLAB_DATABASE_URL" not in env
    if local_pg:
        env["LATLAB_DATABASE_URL"] = f"postgresql+psycopg://postgres@127.0.0.1:{pg_port}/latlab"
        if not pg_ready(admin_url(pg_port)):  # else a server left running: reuse it
            init_postgres(data / "pg")
            services.append(Program("postgres", postgres_argv(data / "pg", pg_port),
                                    service=True, stopsignal="INT", stopasgroup=False,
                                    orphan_signal="INT", user=postgres_user()))
    redis_port = int(env.get("LATLAB_REDIS_PORT", "63799"))
    local_redis = "LATLAB_REDIS_URL" not in env
    # An address other hosts reach the broker at: it listens there too, over TLS only.
    address = env.get("LATLAB_BROKER_ADDRESS") or None
    tls_files = broker_tls(data / "redis", address) if local_redis and address else None
    if local_redis:  # with users: the lab's own, and one per host (`hosts.broker_users`)
        env["LATLAB_REDIS_URL"] = lab_redis_url(data / "redis", redis_port,
                                                secure=tls_files is not None)
        if tls_files is not None:
            env.update({k: v for k, v in tls_files.items() if k.startswith("LATLAB_")})
            env.setdefault("LATLAB_RUNNER_REDIS_URL", f"rediss://{address}:{redis_port}/0")
        if not redis_ready(redis_port, tls_files):
            services.append(Program("redis", redis_argv(data / "redis", redis_port,
                                                        users=True, address=address),
                                    service=True))
    bin_dir = Path(sys.executable).parent
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    lab = programs(env, services)
    config = data / "supervisord.conf"
    config.touch(mode=0o600)
    config.write_text(supervisor_config(data, lab, secrets.token_urlsafe(16)))
    # If this process dies, however it dies, supervisord stops the lab as on Ctrl-C.
    supervisord = subprocess.Popen(
        setpriv([str(bin_dir / "supervisord"), "-c", str(config)], parent_death="TERM"), env=env,
        start_new_session=True)
    print(f"supervisord {supervisord.pid}: {config}; each process logs to {data / 'logs'}",
          flush=True)
    try:
        if local_pg:
            wait_ready(lambda: pg_ready(admin_url(pg_port)), supervisord, "postgres",
                       data / "logs" / "postgres.log", kill=False)
            create_database(pg_port, "latlab")
        if local_redis:
            wait_ready(lambda: redis_ready(redis_port, tls_files), supervisord, "redis",
                       data / "logs" / "redis.log", kill=False)
        os.environ.update(env)
        upgrade(env["LATLAB_DATABASE_URL"])
        admin = subprocess.run([str(bin_dir / "latlab-ensure-admin")], env=env, check=True,
                               capture_output=True, text=True).stdout.strip()
        print(admin, flush=True)
        _enroll_runner(env)
        control = supervisor_rpc(config)
        for program in lab:
            if not program.service:
                control.startProcess(program.name, False)  # all at once, not one by one
        threading.Thread(target=_banner_when_ready, args=(env["LATLAB_PUBLIC_URL"], admin,
                                                          config), daemon=True).start()
        threading.Thread(target=_first_job, args=(env["LATLAB_PUBLIC_URL"], admin, env),
                         daemon=True).start()
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


def _enroll_runner(env: dict[str, str]) -> None:
    """This machine's host, enrolled with a new key, written where its runner reads it."""
    name = env["LATLAB_HOST_NAME"]
    tags = [t for t in env.get("LATLAB_HOST_TAGS", "local").split(",") if t]
    with get_sessionmaker()() as session, session.begin():
        enrolled = enrollment.reenroll(session, name, tags)
    enrolled.grant.write(Path(env["LATLAB_RUNNER_ENV"]))


def _banner_when_ready(url: str, admin: str, config: Path) -> None:
    """Repeats the address and credentials once the api answers (the logs scroll fast)."""
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


def _first_job(url: str, admin: str, env: dict[str, str]) -> None:
    """On a new lab, runs one `echo` job through the API as soon as the local runner is
    online, so the dashboard has data at first sight. A new lab is one whose admin was just
    made (`latlab-ensure-admin` printed the password) and which holds no run or job yet."""
    signed_in = _credentials(admin, env.get("LATLAB_ADMIN_PASSWORD"))
    if signed_in is None:
        return  # an admin made by an earlier `make up`: not a new lab
    email, password = signed_in
    deadline = time.monotonic() + 180
    with httpx.Client(base_url=f"{url}/api/v1", timeout=10) as api:
        while time.monotonic() < deadline:
            time.sleep(2)
            try:
                if not api.cookies and api.post("/auth/login", json={
                        "email": email, "password": password}).status_code != 200:
                    continue  # the api is starting
                if any(api.get(path, params={"limit": 1}).json().get("total")
                       for path in ("/runs", "/jobs")):
                    return
                made = api.post("/jobs", json={"suite": "echo"})
            except httpx.HTTPError:
                continue
            if made.status_code == httpx.codes.ACCEPTED:
                print(f"first look: echo job {made.json()['id']} launched on this host",
                      flush=True)
                return
            # else 409: the runner has not announced itself yet


def _credentials(admin: str, given: str | None) -> tuple[str, str] | None:
    """The admin's email and password from what `latlab-ensure-admin` printed ("admin
    created: EMAIL  password: PASSWORD", or "(from LATLAB_ADMIN_PASSWORD)" for `given`), or
    None when it printed none (an admin made earlier)."""
    said, _, password = admin.partition("  password: ")
    email = said.partition(": ")[2].strip()
    if password.startswith("(from LATLAB_ADMIN_PASSWORD)") and given:
        return email, given
    if said.startswith("admin created: ") and password.strip() and not password.startswith("("):
        return email, password.strip()
    return None
