"""The lab without Docker: Postgres and Redis from the system binaries, and supervisord.

`make up` runs `python -m latlab_stack up` (`up.py`: durable servers under supervisord,
data in `.data/`); the test harness and the benchmarks start throwaway servers in a temporary
directory (`services.py`). `up` is not imported here: it imports the whole app.

What the tests and the benchmarks share lives here too, so tests import nothing under `bench/`:
synthetic histories (`history.py`), the example repository with a planted slowdown
(`planted.py`), the fuzz's seeds and mutations (`fuzz_inputs.py`) and the chaos soak
(`chaos/`).
"""

from latlab_stack.services import (
    LocalStackError,
    Service,
    free_port,
    lab_redis_url,
    start_postgres,
    start_redis,
)
from latlab_stack.supervisord import (
    REPO,
    Program,
    program_processes,
    programs,
    supervisor_config,
    supervisor_rpc,
)

__all__ = [
    "REPO",
    "LocalStackError",
    "Program",
    "Service",
    "free_port",
    "lab_redis_url",
    "program_processes",
    "programs",
    "start_postgres",
    "start_redis",
    "supervisor_config",
    "supervisor_rpc",
]
