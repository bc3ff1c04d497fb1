"""Suites are data: `suites/<id>/suite.toml` (format 2, `workers/suites/README.md`) says how to
build each program, which axes expand into series, and which programs a series runs.

The file is validated when it is loaded; an error names the file and the key.
"""

import hashlib
import itertools
import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from latlab_contract import ScenarioSpec, SuiteInfo
from latlab_contract.estimate import (
    AxisValue,
    EstimateError,
    axis_values,
    series_contexts,
    trials_s,
)
from latlab_contract.params import merge_params
from latlab_contract.parsers import Parser, get_parser, load_parser
from latlab_contract.result import Sweep
from latlab_contract.vocabulary import MetricSpec
from latlab_workers import network
from latlab_workers.suite_file import MAX_AXIS_VALUES, Axis, Program, SuiteFile
from latlab_workers.templates import Context, render, render_one

SUITES_DIR = Path(__file__).resolve().parents[1] / "suites"


class SuiteError(Exception):
    pass

@dataclass(frozen=True)
class SeriesPlan:
    """One series of a job: its labels, the values its templates see, what it runs."""

    labels: dict[str, str]
    context: Context
    load: Program
    servers: list[Program]


@dataclass(frozen=True)
class Suite:
    id: str
    directory: Path
    spec: SuiteFile
    version: str

    @property
    def programs(self) -> dict[str, Program]:
        return self.spec.programs

    @property
    def scenarios(self) -> dict[str, ScenarioSpec]:
        return self.spec.scenarios

    @property
    def metrics(self) -> dict[str, MetricSpec]:
        return self.spec.metrics

    @property
    def uses_network(self) -> bool:
        return self.spec.uses_network

    @property
    def builds_repo(self) -> bool:
        """Its jobs may build and run a repository's code (`[repo]`)."""
        return self.spec.repo is not None

    @property
    def params_schema(self) -> dict[str, Any]:
        """JSON Schema of a job's params; an axis param takes one value or a list of them."""
        axis_params = {a.param for a in self.spec.axes.values() if a.param is not None}
        properties = {}
        for name, schema in self.spec.params.items():
            if name in axis_params and schema.get("type") != "array":
                one = {k: v for k, v in schema.items() if k not in ("default", "description")}
                properties[name] = {
                    **{k: v for k, v in schema.items()
                       if k in ("default", "description", "x-history-key")},
                    "anyOf": [one, {"type": "array", "items": one, "minItems": 1,
                                    "maxItems": MAX_AXIS_VALUES, "uniqueItems": True}],
                }
            else:
                properties[name] = schema
        if self.uses_network:
            properties[network.PARAM] = network.load_profiles().param_schema()
        return {"type": "object", "properties": properties, "additionalProperties": False}

    def resolved_params(self, scenario: str, given: dict[str, Any]) -> dict[str, Any]:
        return merge_params(self.params_schema, self.scenarios[scenario].params, given)

    def plan(self, params: dict[str, Any]) -> list[SeriesPlan]:
        """The job's series: the cartesian product of the axes, in declaration order."""
        axes = [(name, self._axis_values(name, axis, params), self._labelled(axis, params))
                for name, axis in self.spec.axes.items()]
        base = self.plan_context(params)
        plans = []
        for combination in itertools.product(*(values for _, values, _ in axes)):
            labels: dict[str, str] = {}
            context = dict(base)
            for (name, _, labelled), value in zip(axes, combination, strict=True):
                axis = self.spec.axes[name]
                text = _text(value)
                context[name] = text
                if axis.param is not None:
                    context[axis.param] = text
                if axis.vars:
                    if text not in axis.vars:
                        raise SuiteError(f"suite '{self.id}': axis '{name}' has no value "
                                         f"'{text}' (it has: {', '.join(axis.vars)})")
                    context.update(axis.vars[text])
                if labelled:
                    labels[name] = text
            load, servers = self._programs_of(context)
            plans.append(SeriesPlan(labels, context, load, servers))
        return plans

    def plan_context(self, params: dict[str, Any]) -> Context:
        """The values every template of a job sees: its params as text. An array param stays
        a list: an argument that is exactly its placeholder becomes its items (a command or a
        build line given as a job's param)."""
        return {k: [_text(x) for x in v] if self._is_array(k) else _text(v)
                for k, v in params.items()}

    def sweep(self, params: dict[str, Any]) -> Sweep | None:
        """The run's sweep, when the sweep axis has two or more numeric values."""
        name = self.spec.sweep
        if name is None:
            return None
        axis = self.spec.axes[name]
        values = self._axis_values(name, axis, params)
        if len(values) < 2 or not self._labelled(axis, params):
            return None
        try:
            return Sweep(axis=name, values=[float(v) for v in values])
        except ValueError as error:
            raise SuiteError(f"suite '{self.id}': sweep axis '{name}' is not numeric") from error

    def trials_s(self, params: dict[str, Any], trials: int) -> float | None:
        """Seconds `trials` of every series take, by the suite's estimate (if it has one)."""
        if self.spec.estimate is None:
            return None
        return trials_s(self.spec.estimate.trial_s, series_contexts(self._axis_sources, params),
                        trials)

    @property
    def _axis_sources(self) -> dict[str, list[AxisValue] | str]:
        """Each axis's values, or the param that gives them (how the estimate expands them)."""
        return {name: axis.values if axis.values is not None else axis.param or ""
                for name, axis in self.spec.axes.items()}

    def _is_array(self, param: str) -> bool:
        return self.spec.params.get(param, {}).get("type") == "array"

    def parser(self, name: str) -> Parser:
        if name in self.spec.parsers:
            return load_parser(self.directory / self.spec.parsers[name].module)
        return get_parser(name)

    def info(self) -> SuiteInfo:
        return SuiteInfo(
            id=self.id, description=self.spec.description, version=self.version,
            programs={name: self.version for name in self.programs},
            scenarios=self.scenarios, params_schema=self.params_schema,
            series_labels=list(self.spec.axes),
            axes=self._axis_sources,
            trial_s=None if self.spec.estimate is None else self.spec.estimate.trial_s,
            sweep=self.spec.sweep, gate=self.spec.gate,
            metrics=self.metrics, sla_templates=self.spec.sla_templates,
            builds_repo=self.builds_repo,
        )

    def _axis_values(self, name: str, axis: Axis, params: dict[str, Any]) -> list[AxisValue]:
        if axis.values is not None:
            return list(axis.values)
        assert axis.param is not None
        given = params.get(axis.param)
        if given is None:
            raise SuiteError(f"suite '{self.id}': axis '{name}' needs param '{axis.param}'")
        return axis_values(given)

    @staticmethod
    def _labelled(axis: Axis, params: dict[str, Any]) -> bool:
        return not axis.optional or isinstance(params.get(axis.param or ""), list)

    def _programs_of(self, context: Context) -> tuple[Program, list[Program]]:
        if self.spec.series is None:
            load = next(p for p in self.programs.values() if p.role == "load")
            return load, [p for p in self.programs.values() if p.role == "server"]
        load = self._program(render_one(self.spec.series.load, context), "load")
        # An entry that is exactly one list variable stands for its items (none, or several).
        servers = render(self.spec.series.servers, context)
        return load, [self._program(name, "server") for name in servers]

    def _program(self, name: str, role: str) -> Program:
        program = self.programs.get(name)
        if program is None or program.role != role:
            raise SuiteError(f"suite '{self.id}': a series needs {role} program '{name}', "
                             f"which the suite does not define")
        return program


def load_suite(directory: Path) -> Suite:
    path = directory / "suite.toml"
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise SuiteError(f"{path}: {error}") from error
    try:
        spec = SuiteFile.model_validate(data)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '(top level)'}: {e['msg']}"
            for e in error.errors(include_url=False))
        raise SuiteError(f"{path}: {problems}") from None
    if spec.id != directory.name:
        raise SuiteError(f"{path}: id: '{spec.id}' is not the folder's name '{directory.name}'")
    if spec.uses_network:
        _check_network(path, spec)
    programs = {name: program.model_copy(update={"name": name})
                for name, program in spec.programs.items()}
    spec = spec.model_copy(update={"programs": programs})
    suite = Suite(id=spec.id, directory=directory, spec=spec,
                  version=_version(directory, spec.build.sources))
    for name in spec.scenarios:  # the api will evaluate it: it must work at every scenario
        try:
            suite.trials_s(suite.resolved_params(name, {}), 1)
        except EstimateError as error:
            raise SuiteError(f"{path}: estimate.trial_s at scenario '{name}': {error}") from None
    return suite


def _check_network(path: Path, spec: SuiteFile) -> None:
    """A suite with endpoints needs the network profiles, and its scenarios name real ones."""
    try:
        profiles = network.load_profiles().profiles
    except network.NetworkError as error:
        raise SuiteError(f"{path}: its endpoints need the network profiles: {error}") from None
    for name, scenario in spec.scenarios.items():
        chosen = scenario.params.get(network.PARAM)
        if chosen is not None and chosen not in profiles:
            raise SuiteError(f"{path}: scenarios.{name}.params.{network.PARAM}: no network "
                             f"profile '{chosen}' (known: {', '.join(profiles)})")


def load_suites(root: Path = SUITES_DIR,
                on_error: Callable[[SuiteError], None] | None = None) -> dict[str, Suite]:
    """Every suite under `root`; with `on_error`, a broken suite is reported and skipped
    (a runner keeps offering the others) instead of raising."""
    suites = {}
    for path in sorted(root.glob("*/suite.toml")):
        try:
            suite = load_suite(path.parent)
        except SuiteError as error:
            if on_error is None:
                raise
            on_error(error)
            continue
        suites[suite.id] = suite
    return suites


def _version(directory: Path, sources: list[str]) -> str:
    """A hash of suite.toml and the program sources: a new version means a new build."""
    digest = hashlib.sha256()
    files = [directory / "suite.toml"]
    for source in sources:
        target = directory / source
        files += sorted(p for p in target.rglob("*") if p.is_file()) if target.is_dir() else [
            target]
    for file in files:
        digest.update(str(file.relative_to(directory)).encode())
        digest.update(file.read_bytes())
    return digest.hexdigest()[:16]


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ",".join(_text(v) for v in value)
    return str(value)


def main(argv: list[str]) -> int:
    """`python -m latlab_workers.suites check [ID...]`: load and validate suites."""
    if argv[:1] != ["check"]:
        print("usage: python -m latlab_workers.suites check [SUITE ...]", file=sys.stderr)
        return 2
    try:
        suites = load_suites()
    except SuiteError as error:
        print(error, file=sys.stderr)
        return 1
    for suite_id in argv[1:] or sorted(suites):
        if suite_id not in suites:
            print(f"no suite '{suite_id}' in {SUITES_DIR}", file=sys.stderr)
            return 1
        suite = suites[suite_id]
        for name in suite.scenarios:
            params = suite.resolved_params(name, {})
            plans = suite.plan(params)
            seconds = suite.trials_s(params, 1)
            about = "" if seconds is None else f", about {seconds:.0f} s a repetition"
            print(f"{suite_id}/{name}: {len(plans)} series{about} {[p.labels for p in plans]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
