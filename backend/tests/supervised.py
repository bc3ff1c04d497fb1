"""A lab run as `make up` runs it (`python -m latlab_stack up`: supervisord over Postgres,
Redis, the api, the workers, beat and this host's runner), in a directory of its own, for the
tests that need the whole lab as one machine runs it (`test_faults.py`, `test_host_tls.py`)."""

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

import latlab_stack as localstack
from tests.conftest import wait_for
from tests.test_jobs_e2e import _finish

PASSWORD = "supervised-lab-admin"


@dataclass
class SupervisedLab:
    process: subprocess.Popen[bytes]
    data: Path
    api: httpx.Client  # signed in as the admin
    token: dict[str, str]
    env: dict[str, str]  # `make up`'s
    host: str  # this machine's host

    def up_log(self) -> str:
        return (self.data / "up.log").read_text(errors="replace")

    def wait_until_up(self) -> None:
        """Until the admin is signed in and this host's runner is online."""
        def signed_in() -> bool:
            if self.process.poll() is not None:
                raise AssertionError(self.up_log()[-3000:])
            with contextlib.suppress(httpx.HTTPError):
                return self.api.post("/api/v1/auth/login", json={
                    "email": "admin@latlab.local", "password": PASSWORD}).status_code == 200
            return False

        wait_for(signed_in, timeout=180, interval=0.5)
        wait_for(lambda: any(h["name"] == self.host and h["online"]
                             for h in self.api.get("/api/v1/hosts").json()), timeout=180)

    def rpc(self) -> Any:
        return localstack.supervisor_rpc(self.data / "supervisord.conf")

    def pids(self) -> dict[str, int]:
        return {p["name"]: p["pid"] for p in self.rpc().getAllProcessInfo()}

    def running(self) -> bool:
        return all(p["statename"] == "RUNNING" for p in self.rpc().getAllProcessInfo())

    def log(self, name: str) -> str:
        return (self.data / "logs" / f"{name}.log").read_text(errors="replace")

    def finish(self, job_id: int, timeout: float = 300) -> dict:
        """The job once it ended; if it does not, the error carries the workers' last words."""
        try:
            return _finish(self.api, job_id, timeout)[0]
        except AssertionError as error:
            tails = "".join(f"\n--- {name}.log ---\n" + "\n".join(self.log(name).splitlines()[-40:])
                            for name in ("runner", "ingest"))
            raise AssertionError(f"{error}{tails}") from None

    def restart(self) -> None:
        """`make up` again, on the same data."""
        self.process = make_up(self.env, self.data)
        self.wait_until_up()


@contextlib.contextmanager
def supervised_lab(build_cache: Path, host: str, address: str = "127.0.0.1",
                   **settings: str) -> Iterator[SupervisedLab]:
    """The lab, its api on `address`, its runner the host `host`, with `settings`
    (`LATLAB_*`) beside the tests' own; once its first-look job has ended."""
    data = Path(tempfile.mkdtemp(prefix="latlab-supervised-"))
    data.chmod(0o755)  # postgres runs as its own user and must reach its directory
    port = localstack.free_port()
    env = {k: v for k, v in os.environ.items()
           if k not in ("LATLAB_DATABASE_URL", "LATLAB_REDIS_URL")}
    env.update({
        "LATLAB_DATA_DIR": str(data), "LATLAB_HOST": address, "LATLAB_PORT": str(port),
        "LATLAB_PG_PORT": str(localstack.free_port()),
        "LATLAB_REDIS_PORT": str(localstack.free_port()),
        "LATLAB_PUBLIC_URL": f"http://{address}:{port}",
        "LATLAB_ADMIN_PASSWORD": PASSWORD, "LATLAB_HOST_NAME": host,
        "LATLAB_BUILD_CACHE": str(build_cache), "LATLAB_HEARTBEAT_S": "1",
        "LATLAB_EVENT_INTERVAL_S": "0.5", **settings,
    })
    # Signed-in writes declare JSON (CSRF), bodies or not.
    api = httpx.Client(base_url=env["LATLAB_PUBLIC_URL"], timeout=30,
                       headers={"Content-Type": "application/json"})
    supervised = SupervisedLab(make_up(env, data), data, api, {}, env, host)
    try:
        supervised.wait_until_up()
        # The first-look echo job `make up` launches on an empty lab ends first.
        first = wait_for(lambda: api.get("/api/v1/jobs").json()["items"], timeout=60)
        _finish(api, first[-1]["id"])
        yield supervised
    finally:
        api.close()
        stopped = stop(supervised.process)
        assert stopped == 0, supervised.up_log()[-3000:]
    # Ctrl-C's path stopped everything, Postgres and Redis included.
    assert not (data / "pg" / "data" / "postmaster.pid").exists()
    shutil.rmtree(data, ignore_errors=True)


def make_up(env: dict[str, str], data: Path) -> subprocess.Popen[bytes]:
    with open(data / "up.log", "ab") as log:
        return subprocess.Popen([sys.executable, "-m", "latlab_stack", "up"], env=env,
                                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)


def stop(process: subprocess.Popen[bytes]) -> int | None:
    with contextlib.suppress(ProcessLookupError):
        os.kill(process.pid, signal.SIGTERM)
    try:
        return process.wait(90)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        return None
