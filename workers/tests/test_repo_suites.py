"""A suite that runs a repository's code: its file's `[repo]` and `from = "repo"` checked
when it loads, array params kept as argument lists, the order a try job's two commits are
measured in, and a load's output read from the file it wrote (never through a link out of
its folder)."""

import collections
import os
from pathlib import Path

import pytest

from latlab_contract import JobSpec
from latlab_contract.parsers import PARSERS
from latlab_workers.errors import JobError
from latlab_workers.runner import _order, _output, _Variant
from latlab_workers.suites import SuiteError, load_suite, load_suites
from latlab_workers.templates import render

SERVER = """
[programs.server]
role = "server"
from = "repo"
command = ["{repo_dir}/server"]
ready = "stdout-json"
"""
LOAD = """
[programs.load]
role = "load"
command = ["load", "{server.listening}"]
output = "latlab-json"
"""
SCENARIOS = """
[scenarios.default]
"""
REPO = """
[repo]
command = ["{build}"]
artifacts = ["server"]

[params.build]
type = "array"
items = { type = "string" }
default = ["make", "server"]
"""


def _suite(tmp_path: Path, text: str) -> Path:
    folder = tmp_path / "mine"
    folder.mkdir(parents=True)
    (folder / "suite.toml").write_text(
        f'format = 2\nid = "mine"\ndescription = "d"\n{text}{SCENARIOS}')
    return folder


def test_a_program_from_the_repository_needs_the_suites_recipe_and_the_recipe_a_program(
        tmp_path: Path) -> None:
    with pytest.raises(SuiteError, match=r'from = "repo": the suite needs a \[repo\] table'):
        load_suite(_suite(tmp_path / "a", SERVER + LOAD))
    with pytest.raises(SuiteError, match=r'\[repo\]: no program is from = "repo"'):
        load_suite(_suite(tmp_path / "b", LOAD + REPO))
    suite = load_suite(_suite(tmp_path / "c", SERVER + LOAD + REPO))
    assert suite.builds_repo and suite.info().builds_repo
    assert not load_suites()["echo"].builds_repo
    assert load_suites()["http-order"].builds_repo and load_suites()["harness"].builds_repo


def test_an_array_param_stays_an_argument_list(tmp_path: Path) -> None:
    suite = load_suite(_suite(tmp_path, SERVER + LOAD + REPO))
    params = suite.resolved_params("default", {"build": ["go", "build", "-o", "a b", "."]})
    context = suite.plan_context(params)
    assert render(["{build}"], context) == ["go", "build", "-o", "a b", "."]
    harness = load_suites()["harness"]
    context = harness.plan_context(harness.resolved_params("default", {}))
    assert context["build"] == [] and render(["{build}"], context) == []
    assert render(["{command}"], context)[:2] == ["go", "test"]


def test_a_try_jobs_commits_take_turns_in_a_random_order_each_repetition(
        tmp_path: Path) -> None:
    suite = load_suite(_suite(tmp_path, SERVER + LOAD + REPO))
    base = _Variant(suite, tmp_path, {"side": "base"})
    head = _Variant(suite, tmp_path, {"side": "head"})
    plans = [(variant, plan) for variant in (base, head) for plan in suite.plan({})]
    spec = JobSpec(job_id=7, attempt=1, project="p", suite="mine", scenario="default",
                   params={}, repetitions=40, timeout_s=60, commit="a" * 40,
                   base_commit="b" * 40)
    order = _order(spec, plans)
    pairs = [tuple(order[i:i + 2]) for i in range(0, len(order), 2)]
    assert all(sorted(pair) == [0, 1] for pair in pairs)  # each repetition measures both
    firsts = collections.Counter(pair[0] for pair in pairs)
    assert firsts[0] > 5 and firsts[1] > 5, firsts  # neither side always goes first
    assert _order(spec, plans) == order  # the job's own order, the same on a retry
    confirmation = spec.model_copy(update={"base_commit": None})
    assert _order(confirmation, plans) == [0, 1] * 40


def test_a_loads_output_file_is_read_once_and_never_through_a_link_out(
        tmp_path: Path) -> None:
    suite = load_suites()["harness"]
    load = suite.programs["bench"]
    folder = tmp_path / "checkout"
    folder.mkdir()
    (folder / "out.json").write_text('{"benchmarks": []}')
    assert _output(load, "stdout", {"output_file": ""}, folder) == "stdout"
    assert _output(load, "stdout", {"output_file": "out.json"}, folder) == '{"benchmarks": []}'
    assert not (folder / "out.json").exists()  # the next trial's is its own
    with pytest.raises(JobError, match=r"left no output file out\.json"):
        _output(load, "", {"output_file": "out.json"}, folder)
    secret = tmp_path / "runner-secret"
    secret.write_text("broker password")
    os.symlink(secret, folder / "link.json")
    with pytest.raises(JobError, match="outside its folder"):
        _output(load, "", {"output_file": "link.json"}, folder)
    (folder / "sub").mkdir()
    os.symlink(folder / "sub", folder / "inner")
    (folder / "sub" / "x").write_text("fine")
    assert _output(load, "", {"output_file": "inner/x"}, folder) == "fine"


def test_the_harness_suite_offers_every_adapter_and_only_those() -> None:
    """Its `format` parameter names the adapter that reads the command's output: one
    registry, so an adapter added there is offered here (and a typo fails)."""
    formats = load_suites()["harness"].params_schema["properties"]["format"]["enum"]
    assert formats == sorted(PARSERS)
