"""The generic runner's pieces that need no broker."""

import pytest

from latlab_workers.templates import TemplateError, render


def test_parameters_reach_programs_as_single_arguments() -> None:
    argv = render(["client", "--count", "{count}", "--addr", "{server.listening}"],
                  {"count": "10; rm -rf /", "server.listening": "127.0.0.1:5"})
    assert argv == ["client", "--count", "10; rm -rf /", "--addr", "127.0.0.1:5"]


def test_a_list_value_standing_alone_becomes_several_arguments() -> None:
    context = {"exe": ["{python}", "client.py"], "python": "/usr/bin/python3",
               "native": "{build_dir}/client", "build_dir": "/cache/x", "n": "5"}
    assert render(["{exe}", "-n", "{n}"], context) == [
        "/usr/bin/python3", "client.py", "-n", "5"]
    assert render(["{native}", "-n={n}"], context) == ["/cache/x/client", "-n=5"]
    with pytest.raises(TemplateError, match="is a list"):
        render(["--run={exe}"], context)


def test_unknown_and_cyclic_placeholders_are_refused() -> None:
    with pytest.raises(TemplateError, match="unknown value"):
        render(["client", "{nope}"], {})
    with pytest.raises(TemplateError, match="nest too deeply"):
        render(["{a}"], {"a": "{b}", "b": "{a}"})
