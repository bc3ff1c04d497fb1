"""Settings of a runner worker. It needs the broker only: no database URL, by design.

Read from the environment (`LATLAB_*`), then from the file `latlab-runner join` writes
(`LATLAB_RUNNER_ENV`, by default /etc/latlab/runner.env): the host's name, key and broker.
"""

import os
import socket
from functools import lru_cache
from pathlib import Path

from pydantic_settings import BaseSettings, SettingsConfigDict

from latlab_contract.broker import tls_options
from latlab_workers.suites import SUITES_DIR

# Where `latlab-runner join` writes the host's settings, and the runner reads them.
RUNNER_ENV = Path(os.environ.get("LATLAB_RUNNER_ENV", "/etc/latlab/runner.env"))


class RunnerSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="LATLAB_", extra="ignore", env_file=RUNNER_ENV)

    redis_url: str = "redis://127.0.0.1:63799/0"
    host_name: str = socket.gethostname()
    host_tags: str = "local"
    host_address: str | None = None
    # The key the host signs its messages with (`latlab_contract.signing`), given at enrollment.
    host_key: str | None = None
    # TLS to a broker beyond loopback (`rediss://`): the lab's CA, and the host's certificate
    # and key, issued at enrollment (`latlab_contract.broker.tls_options`).
    broker_ca: str = ""
    broker_cert: str = ""
    broker_key: str = ""
    suites_dir: Path = SUITES_DIR
    build_cache: Path = Path.home() / ".cache" / "latlab" / "builds"
    code_user: str = "latlab-code"  # what a repository builds and runs runs as (sandbox.py)
    # Repositories' builds and the folders of the jobs that run them: outside any home, as
    # the code user must reach them (and only them: `checkouts`).
    code_cache: Path = Path("/var/cache/latlab/code")
    heartbeat_s: float = 10.0
    event_interval_s: float = 2.0

    @property
    def broker_tls(self) -> dict[str, str] | None:
        return tls_options(self.broker_ca, self.broker_cert, self.broker_key)

    @property
    def tags(self) -> list[str]:
        return sorted({t.strip() for t in self.host_tags.split(",") if t.strip()})


@lru_cache
def get_settings() -> RunnerSettings:
    return RunnerSettings()
