"""Helpers shared by the suites' tests (workers/tests, the suites' own tests, backend/tests):
the build cache, a suite built with the runner's own build, a program that announces itself
on its first stdout line, as the runner starts servers, and a program run to its end."""

import json
import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from latlab_workers.builds import build
from latlab_workers.suites import Suite


def build_cache_dir() -> Path:
    """The cache the backend's tests use too (builds are kept across sessions)."""
    path = Path(os.environ.get("LATLAB_TEST_BUILD_CACHE",
                               Path.home() / ".cache" / "latlab" / "test-builds"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def build_suite(suite: Suite, cache_dir: Path, seconds: float) -> Path:
    """The suite's build directory, built (once per version) by the runner's build."""
    return build(suite, cache_dir, time.monotonic() + seconds)


@contextmanager
def announced(argv: list[str], cwd: Path) -> Iterator[tuple[subprocess.Popen[bytes],
                                                             dict[str, Any]]]:
    """`argv` started in `cwd`, with the JSON object of its first stdout line (what it
    announced once ready); stopped with SIGTERM afterwards (killed after 10 s)."""
    stderr = tempfile.TemporaryFile()  # noqa: SIM115 (closed after the process)
    process = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=stderr)
    try:
        assert process.stdout is not None
        line = process.stdout.readline().decode()
        if not line:
            process.wait(10)
            stderr.seek(0)
            raise AssertionError(f"{Path(argv[0]).name} did not start: "
                                 f"{stderr.read().decode()}")
        yield process, json.loads(line)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()
        stderr.close()


@dataclass
class ProgramRun:
    """A suite's program (a client, an instrument) run to its end."""

    returncode: int
    stdout: str
    stderr: str
    elapsed_s: float

    @property
    def report(self) -> dict[str, Any]:
        """What it printed on stdout: one JSON document, its report."""
        document = json.loads(self.stdout)
        assert isinstance(document, dict), self.stdout
        return document


class Quiet:
    """A runner reporter that reports nothing (tests that call `execute` directly)."""

    def progress(self, *args: object, **kwargs: object) -> None:
        pass
