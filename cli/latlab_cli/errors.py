"""Why a command stops early, each with its exit status (the README's table)."""


class CliError(Exception):
    """A command that cannot be carried out as asked: bad arguments, or a request the lab
    refuses (an unknown suite or run, params its schema rejects, a token it does not know).
    Exit 2 with the message."""

    code = 2


class Refused(CliError):
    """What `latlab submit` sends, refused (by its adapter before sending, or by the lab):
    exit 1, as a failing verdict does, so a CI step fails either way."""

    code = 1


class Unreachable(CliError):
    """No verdict to give: the lab cannot be reached or failed (5xx), or the job did not
    succeed. Exit 3."""

    code = 3


class Rejected(CliError):
    """The lab answered an error; `status` lets a command tell a refusal from a failure."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"the lab answered {status}: {message}")
        self.status = status
        self.detail = message
        self.code = Unreachable.code if status >= 500 else CliError.code
