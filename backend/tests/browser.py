"""The dashboard's browser tests (frontend/tests/e2e/*.test.mjs: Debian's Chromium through
playwright-core), run by the Python tests that give them a lab."""

import os
import subprocess
from pathlib import Path

from tests.factories import PASSWORD

FRONTEND = Path(__file__).resolve().parents[2] / "frontend"
SCREENSHOTS = FRONTEND / "tests" / "e2e" / "screenshots"


def assert_built() -> None:
    """The api serves the built dashboard: fails early, saying so, when there is none."""
    assert (FRONTEND / "dist" / "index.html").is_file(), "build the dashboard: make test does"


def run_browser(script: str, url: str, *, email: str | None = None, timeout: float = 300,
                **env: str) -> None:
    """Runs frontend/tests/e2e/<script>.test.mjs against the api at `url`, as the user
    `email` (a test user: its password is `PASSWORD`), with `env` (its LATLAB_* inputs), and
    fails with the end of its output unless every step passed. Screenshots go to
    `SCREENSHOTS`."""
    signed = {"LATLAB_EMAIL": email, "LATLAB_PASSWORD": PASSWORD} if email else {}
    completed = subprocess.run(
        ["node", "--test", f"tests/e2e/{script}.test.mjs"], cwd=FRONTEND,
        env={**os.environ, "LATLAB_URL": url, **signed, **env,
             "LATLAB_SCREENSHOT_DIR": str(SCREENSHOTS)},
        capture_output=True, text=True, timeout=timeout, check=False)
    assert completed.returncode == 0, completed.stdout[-6000:] + completed.stderr[-4000:]
