"""The suites' own unit tests, in their own languages: the echo crate's (which also cover the
pieces it shares with the http-order Rust crates, `workers/suites/common/rust`: the option
parser, the settled warm-up and the histogram encoder), the http-order workspace's (the order
server, the Rust client and the reference load) and the http-order Go client's (with what it
shares with zig-http's hdr-load, `workers/suites/common/go`)."""

import os
import subprocess
from pathlib import Path

import suite_support
from http_order_support import build_suite
from suite_support import build_cache_dir

from latlab_workers.suites import SUITES_DIR, load_suite

HTTP_ORDER = SUITES_DIR / "http-order"
ECHO = load_suite(SUITES_DIR / "echo")
BUILD_TIME_S = 1200


def _passes(argv: list[str], cwd: Path, env: dict[str, str]) -> str:
    completed = subprocess.run(argv, cwd=cwd, env={**os.environ, **env}, capture_output=True,
                               text=True, timeout=1200, check=False)
    assert completed.returncode == 0, completed.stdout[-4000:] + completed.stderr[-4000:]
    return completed.stdout


def test_the_echo_crate_and_its_shared_modules_pass_their_tests() -> None:
    # In the suite's own release build, as http-order's below: its dependencies are built.
    target = suite_support.build_suite(ECHO, build_cache_dir(), BUILD_TIME_S) / "target"
    out = _passes(["cargo", "test", "--release", "--locked", "--quiet"], SUITES_DIR / "echo",
                  {"CARGO_TARGET_DIR": str(target)})
    assert "test result: ok" in out


def test_the_http_order_workspace_passes_its_tests() -> None:
    # The suite's own release build: its dependencies are built already, only the
    # workspace's crates are compiled again, with their tests.
    target = build_suite(build_cache_dir()) / "target"
    out = _passes(["cargo", "test", "--release", "--locked"], HTTP_ORDER,
                  {"CARGO_TARGET_DIR": str(target)})
    ran = [int(line.split()[1]) for line in out.splitlines() if line.startswith("running ")]
    assert sum(ran) > 0, out  # the server's and the client's tests, not only empty harnesses


def test_the_http_order_go_client_passes_its_tests() -> None:
    out = _passes(["go", "test", "-count=1", "./..."], HTTP_ORDER / "clients" / "go",
                  {"GOFLAGS": "-mod=mod"})
    assert out.startswith("ok "), out
