"""A verdict as an exit status, the same for `latlab submit` and `latlab run`."""

import sys
from typing import Annotated, Literal

import typer

FailOn = Literal["regression", "inconclusive", "never"]
FAIL_ON_HELP = ("'regression': exit 1 when the verdict is fail (an SLA breach or a regression "
                "tested with enough trials); 'inconclusive': also when the trials could not "
                "settle a change; 'never'")
FailOnOption = Annotated[FailOn, typer.Option(help=FAIL_ON_HELP)]


def exit_status(fail_on: FailOn, verdict: str | None) -> int:
    failing = {"regression": {"fail"}, "inconclusive": {"fail", "inconclusive"}}.get(
        fail_on, set())
    if verdict == "inconclusive" and "inconclusive" not in failing:
        print("inconclusive: not a failure (use --fail-on inconclusive to fail on it)",
              file=sys.stderr)
    return 1 if verdict in failing else 0
