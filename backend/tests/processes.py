"""The tests' own processes: a child in a session of its own, and a real runner worker of an
enrolled host. (Imported by `conftest`, after it has pointed the lab's settings at the tests'
servers.)"""

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

from latlab.core.db import get_sessionmaker
from latlab.hosts import enrollment


class ProcessGroup:
    """A test's child process in a session (process group) of its own: `process` is set by
    the subclass."""

    process: "subprocess.Popen[bytes]"

    def kill(self) -> None:
        """SIGKILL to the process and its children, as a machine losing them would."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(20)

    def stop(self) -> None:
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.kill()


class Beat(ProcessGroup):
    """The lab's beat: it advances bisections and experiments and runs the job watchdog."""

    def __init__(self, schedule: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "latlab.worker", "beat", "--schedule",
             str(schedule), "--loglevel", "WARNING"], env=dict(os.environ),
            start_new_session=True)


def enroll_host(name: str, tags: str) -> str:
    """The key of the host `name`, enrolled as `make up` enrolls its runner: a runner signs
    its messages with it."""
    with get_sessionmaker()() as session, session.begin():
        return enrollment.reenroll(session, name, [t for t in tags.split(",") if t]).grant.key


class RunnerProcess(ProcessGroup):
    """A real runner worker (Celery, queue host.<name>) in its own process group, its host
    enrolled (`enroll_host`) unless `env` gives it a key."""

    def __init__(self, name: str, tags: str, build_cache: Path,
                 wrapper: list[str] | None = None, broker_url: str | None = None,
                 address: str | None = None, env: dict[str, str] | None = None) -> None:
        self.name = name
        extra_env = env
        env = {**os.environ, "LATLAB_HOST_NAME": name, "LATLAB_HOST_TAGS": tags,
               "LATLAB_BUILD_CACHE": str(build_cache), "LATLAB_HEARTBEAT_S": "1",
               "LATLAB_EVENT_INTERVAL_S": "0.5"}
        if "LATLAB_HOST_KEY" not in (extra_env or {}):
            env["LATLAB_HOST_KEY"] = enroll_host(name, tags)
        env.pop("LATLAB_DATABASE_URL", None)  # runners hold no database credentials
        if broker_url is not None:
            env["LATLAB_REDIS_URL"] = broker_url
        if address is not None:
            env["LATLAB_HOST_ADDRESS"] = address
        env.update(extra_env or {})
        self.process = subprocess.Popen(
            [*(wrapper or []), sys.executable, "-m", "celery", "-A", "latlab_workers.app",
             "worker", "-Q", f"host.{name}", "-c", "1", "-n", f"{name}@%h",
             "--loglevel", "WARNING"],
            env=env, start_new_session=True,
        )
