"""Helpers of the zig-http suite's tests (a module of its own: `conftest` is a name every
test folder may use)."""

import socket
from pathlib import Path

from latlab_workers.builds import program_context
from latlab_workers.suites import SUITES_DIR, Suite, load_suite
from latlab_workers.templates import render

SUITE: Suite = load_suite(SUITES_DIR / "zig-http")


def exchange(address: tuple[str, int], request: bytes, responses: int = 1,
             timeout: float = 5) -> tuple[bytes, bool]:
    """Sends `request`, reads `responses` whole answers (Content-Length framed), and says
    whether the server then closed the connection (within a moment)."""
    with socket.create_connection(address, timeout=timeout) as connection:
        connection.sendall(request)
        reader = connection.makefile("rb")
        raw = b""
        for _ in range(responses):
            head = b""
            while not head.endswith(b"\r\n\r\n"):
                line = reader.readline()
                if not line:
                    return raw + head, True
                head += line
            length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                           if line.lower().startswith(b"content-length:")), 0)
            raw += head + reader.read(length)
        connection.settimeout(0.3)
        try:
            closed = reader.read(1) == b""
        except TimeoutError:
            closed = False
        return raw, closed


def suite_command(built: Path, program: str, scenario: str,
                  params: dict[str, object]) -> list[str]:
    """The suite's `program` command as the runner renders it for the first series of a job
    of `scenario` (with `params`) that runs it, from the suite's folder."""
    plan = next(plan for plan in SUITE.plan(SUITE.resolved_params(scenario, params))
                if program in (plan.load.name, *(server.name for server in plan.servers)))
    return render(SUITE.programs[program].command,
                  {**plan.context, **program_context(SUITE, built)})
