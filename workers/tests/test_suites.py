"""suite.toml format 2: validation naming file and key, the matrix, sweeps, params."""

import textwrap
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from latlab_workers.suites import SuiteError, load_suite, load_suites

MINIMAL = """
format = 2
id = "demo"
description = "a demo"
sweep = "size"

[programs.server-a]
role = "server"
command = ["a"]
ready = "stdout-json"

[programs.server-b]
role = "server"
command = ["b"]

[programs.load]
role = "load"
command = ["{exe}", "--size", "{size}", "--to", "{server.listening}"]
output = "latlab-json"

[axes.server]
values = ["a", "b"]

[axes.server.vars]
a = { exe = ["python", "load.py"] }
b = { exe = "{build_dir}/load" }

[axes.size]
param = "sizes"

[series]
load = "load"
servers = ["server-{server}"]

[params.sizes]
type = "integer"
minimum = 1
default = 8

[params.flag]
type = "boolean"
default = false

[scenarios.default]
params = {}

[scenarios.sweep]
params = { sizes = [1, 10, 100] }

[metrics."frobs_per_s"]
unit = "frobs/s"
direction = "higher"
"""


def write(tmp_path: Path, text: str, name: str = "demo") -> Path:
    folder = tmp_path / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "suite.toml").write_text(textwrap.dedent(text))
    return folder


def test_axes_expand_into_series_in_declaration_order(tmp_path: Path) -> None:
    suite = load_suite(write(tmp_path, MINIMAL))
    plans = suite.plan(suite.resolved_params("sweep", {}))
    assert [p.labels for p in plans] == [
        {"server": s, "size": n} for s in ("a", "b") for n in ("1", "10", "100")]
    assert [s.name for s in plans[0].servers] == ["server-a"]
    assert [s.name for s in plans[3].servers] == ["server-b"]
    assert plans[4].context["sizes"] == plans[4].context["size"] == "10"
    sweep = suite.sweep(suite.resolved_params("sweep", {}))
    assert sweep is not None and (sweep.axis, sweep.values) == ("size", [1.0, 10.0, 100.0])


def test_one_value_of_a_param_axis_is_one_series_and_no_sweep(tmp_path: Path) -> None:
    suite = load_suite(write(tmp_path, MINIMAL))
    params = suite.resolved_params("default", {})
    assert [p.labels for p in suite.plan(params)] == [
        {"server": "a", "size": "8"}, {"server": "b", "size": "8"}]
    assert suite.sweep(params) is None


def test_an_optional_axis_labels_only_a_list(tmp_path: Path) -> None:
    text = MINIMAL.replace('param = "sizes"', 'param = "sizes"\noptional = true')
    suite = load_suite(write(tmp_path, text))
    assert suite.plan(suite.resolved_params("default", {}))[0].labels == {"server": "a"}
    listed = suite.plan(suite.resolved_params("default", {"sizes": [8]}))
    assert listed[0].labels == {"server": "a", "size": "8"}


def test_axis_params_take_one_value_or_a_list(tmp_path: Path) -> None:
    schema = load_suite(write(tmp_path, MINIMAL)).params_schema
    validator = Draft202012Validator(schema)
    for good in ({"sizes": 5}, {"sizes": [1, 2]}, {"flag": True}):
        assert validator.is_valid(good), good
    for bad in ({"sizes": 0}, {"sizes": [1, 1]}, {"sizes": []}, {"sizes": ["x"]},
                {"sizes": list(range(1, 100))}, {"other": 1}):
        assert not validator.is_valid(bad), bad
    assert schema["properties"]["sizes"]["default"] == 8


@pytest.mark.parametrize(("change", "message"), [
    (("format = 2", "format = 1"), "format: Input should be 2"),
    (('role = "server"\ncommand = ["a"]', 'role = "srv"\ncommand = ["a"]'),
     "programs.server-a.role"),
    (('output = "latlab-json"', 'output = "nope"'), "no parser 'nope'"),
    (('param = "sizes"', 'param = "nope"'), "axes.size.param: no param 'nope'"),
    (('sweep = "size"', 'sweep = "speed"'), "sweep: no axis 'speed'"),
    (("params = { sizes = [1, 10, 100] }", "params = { speed = 1 }"),
     "scenarios.sweep.params: unknown params"),
    (('[axes.server]\nvalues = ["a", "b"]', '[axes.server]\nvalues = ["a"]\nparam = "sizes"'),
     "exactly one of `values` or `param`"),
    (('id = "demo"', 'id = "Demo!"'), "id: String should match pattern"),
    (('direction = "higher"', 'direction = "up"'), "metrics.frobs_per_s.direction"),
    (('output = "latlab-json"', 'output = "latlab-json"\npeak_rss = true'),
     "`peak_rss` is measured for servers only"),
    (('command = ["a"]\nready = "stdout-json"',
      'command = ["a"]\nready = "stdout-json"\nreport = { url = "http://{listening}/x", '
      'when = "sizes" }'), "report.when: no boolean param 'sizes'"),
    (('command = ["b"]', 'command = ["b"]\nreport = { url = "http://{listening}/x" }'),
     "`report` is for a server with ready"),
])
def test_a_bad_suite_names_its_file_and_key(tmp_path: Path, change: tuple[str, str],
                                            message: str) -> None:
    assert change[0] in MINIMAL
    folder = write(tmp_path, MINIMAL.replace(*change))
    with pytest.raises(SuiteError, match=message) as error:
        load_suite(folder)
    assert str(folder / "suite.toml") in str(error.value)


def test_a_broken_suite_does_not_hide_the_others(tmp_path: Path) -> None:
    write(tmp_path, MINIMAL)
    write(tmp_path, "format = 2\nid = 'broken'\n", name="broken")
    with pytest.raises(SuiteError, match="broken"):
        load_suites(tmp_path)
    errors: list[Exception] = []
    assert list(load_suites(tmp_path, on_error=errors.append)) == ["demo"]
    assert len(errors) == 1


def test_every_shipped_suite_loads_and_plans_every_scenario() -> None:
    suites = load_suites()
    assert {"echo", "http-order"} <= set(suites)
    for suite in suites.values():
        info = suite.info()
        assert info.params_schema["additionalProperties"] is False
        for scenario in suite.scenarios:
            params = suite.resolved_params(scenario, {})
            assert Draft202012Validator(info.params_schema).is_valid(params), scenario
            plans = suite.plan(params)
            assert plans and all(set(p.labels) <= set(info.series_labels) for p in plans)
