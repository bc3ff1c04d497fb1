"""Helpers for the zmq suite's tests (workers/tests/test_zmq.py, bench/zmq_overhead.py): the
suite built with the runner's own build, the quote server as a process, and instrument command
lines rendered from suite.toml as the runner renders them."""

import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import suite_support
from suite_support import ProgramRun, announced

from latlab_workers.builds import program_context
from latlab_workers.suites import SUITES_DIR, Suite, load_suite
from latlab_workers.templates import render

SUITE: Suite = load_suite(SUITES_DIR / "zmq")
INSTRUMENTS = ["python", "c"]
PATTERNS = ["req-rep", "dealer-router", "pub-sub"]
# The contract's keys (README.md).
REPORT_KEYS = {"instrument", "pattern", "profile", "symbol", "latency_hdr", "sent", "samples",
               "errors", "timeouts", "gaps", "join_gaps", "backlog", "window_s", "throughput",
               "tuning", "intervals"}
COUNTED = ("samples", "errors", "timeouts", "gaps", "join_gaps", "backlog")
BUILD_TIME_S = 600


def build_suite(cache_dir: Path) -> Path:
    return suite_support.build_suite(SUITE, cache_dir, BUILD_TIME_S)


@dataclass
class Server:
    process: subprocess.Popen[bytes]
    router: str  # "127.0.0.1:PORT", as announced
    pub: str


@contextmanager
def quote_server(build_dir: Path, symbol: str = "EURUSD.s", *extra: str,
                 **params: Any) -> Iterator[Server]:
    """The suite's server (its suite.toml command for `symbol` and `params`, plus `extra`
    arguments), once it has announced its endpoints; stopped afterwards."""
    (plan, *_) = SUITE.plan(SUITE.resolved_params("quick", {**params, "symbols": symbol}))
    argv = render(SUITE.programs["server"].command,
                  {**plan.context, **program_context(SUITE, build_dir)})
    with announced([*argv, *extra], SUITE.directory) as (process, endpoints):
        yield Server(process, endpoints["router"], endpoints["pub"])


def instrument_argv(instrument: str, build_dir: Path, server: Server, pattern: str,
                    profile: str = "tuned", **params: Any) -> list[str]:
    """An instrument's command line as the runner renders it for scenario "quick"."""
    (plan,) = SUITE.plan(SUITE.resolved_params("quick", {
        **params, "instruments": instrument, "patterns": pattern, "profiles": profile}))
    context = {**plan.context, **program_context(SUITE, build_dir),
               "server.router": server.router, "server.pub": server.pub}
    return render(plan.load.command, context)


def run(argv: list[str], timeout: float = 60) -> ProgramRun:
    started = time.monotonic()
    try:
        completed = subprocess.run(argv, cwd=SUITE.directory, capture_output=True, text=True,
                                   timeout=timeout, check=False)
    except subprocess.TimeoutExpired as error:
        raise AssertionError(f"{argv[0]} ran past {timeout} s: {error.stderr!r}") from None
    return ProgramRun(completed.returncode, completed.stdout, completed.stderr,
                      time.monotonic() - started)
