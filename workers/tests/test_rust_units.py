"""The Rust unit and integration tests of the echo suite (`cargo test`), which also cover the
pieces its crate shares with the http-order Rust clients (`workers/suites/common/rust`: the
option parser and the settled warm-up)."""

import os
import subprocess
from pathlib import Path

from latlab_workers.suites import SUITES_DIR


def test_the_echo_crate_and_its_shared_modules_pass_their_tests(tmp_path: Path) -> None:
    completed = subprocess.run(
        ["cargo", "test", "--release", "--locked", "--quiet"], cwd=SUITES_DIR / "echo",
        env={**os.environ, "CARGO_TARGET_DIR": str(tmp_path / "target")},
        capture_output=True, text=True, timeout=1200, check=False)
    assert completed.returncode == 0, completed.stdout[-4000:] + completed.stderr[-4000:]
    assert "test result: ok" in completed.stdout
