"""The generic runner's pieces that need no broker."""

import pytest

from latlab_workers.runner import JobError, render


def test_parameters_reach_programs_as_single_arguments() -> None:
    argv = render(["client", "--count", "{count}", "--addr", "{server.listening}"],
                  {"count": "10; rm -rf /", "server.listening": "127.0.0.1:5"})
    assert argv == ["client", "--count", "10; rm -rf /", "--addr", "127.0.0.1:5"]


def test_unknown_placeholders_are_refused() -> None:
    with pytest.raises(JobError, match="unknown value"):
        render(["client", "{nope}"], {})
