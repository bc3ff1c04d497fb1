"""Suites are data: `suites/<suite>/suite.toml` says how to build and start each program.

    id, description, series_labels
    [build]            command (argv), env, sources (hashed into the version)
    [programs.<name>]  command (argv templates), role = "server" | "load",
                       ready = "stdout-json" (servers), output = "latlab-json" (loads), labels
    [params.<name>]    JSON Schema of one parameter (type, minimum, maximum, enum, default, ...)
    [scenarios.<name>] description, params (overrides), programs (loads to run, in order)
    [params.loads]     if declared: the load programs to run, comma-separated (a job's choice)
    [metrics.<name>]   unit, direction
"""

import hashlib
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from latlab_contract import MetricSpec, ScenarioSpec, SuiteInfo

SUITES_DIR = Path(__file__).resolve().parents[1] / "suites"


class SuiteError(Exception):
    pass


@dataclass(frozen=True)
class Program:
    name: str
    command: list[str]
    role: str
    ready: str | None = None
    output: str | None = None
    labels: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Suite:
    id: str
    directory: Path
    description: str
    series_labels: list[str]
    build_command: list[str] | None
    build_env: dict[str, str]
    sources: list[str]
    programs: dict[str, Program]
    params: dict[str, dict[str, Any]]
    scenarios: dict[str, dict[str, Any]]
    metrics: dict[str, MetricSpec]
    version: str

    @property
    def params_schema(self) -> dict[str, Any]:
        return {
            "type": "object",
            "properties": self.params,
            "additionalProperties": False,
        }

    def loads(self, scenario: str, params: dict[str, Any]) -> list[Program]:
        """The load programs to run in turn: the `loads` param when the suite has one, else
        the scenario's `programs`, else every load program."""
        chosen = params.get("loads") if "loads" in self.params else None
        names = (str(chosen).split(",") if chosen else None) or self.scenarios[scenario].get(
            "programs") or [p.name for p in self.programs.values() if p.role == "load"]
        unknown = [n for n in names if self.programs.get(n, Program(n, [], "")).role != "load"]
        if unknown:
            raise SuiteError(f"suite '{self.id}' has no load program {', '.join(unknown)}")
        return [self.programs[name] for name in dict.fromkeys(names)]

    def servers(self) -> list[Program]:
        return [p for p in self.programs.values() if p.role == "server"]

    def resolved_params(self, scenario: str, given: dict[str, Any]) -> dict[str, Any]:
        defaults = {name: spec["default"] for name, spec in self.params.items()
                    if "default" in spec}
        return {**defaults, **self.scenarios[scenario].get("params", {}), **given}

    def info(self) -> SuiteInfo:
        return SuiteInfo(
            id=self.id, description=self.description, version=self.version,
            programs={name: self.version for name in self.programs},
            scenarios={name: ScenarioSpec(description=s.get("description", ""),
                                          params=s.get("params", {}))
                       for name, s in self.scenarios.items()},
            params_schema=self.params_schema, series_labels=self.series_labels,
            metrics=self.metrics,
        )


def load_suite(directory: Path) -> Suite:
    path = directory / "suite.toml"
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise SuiteError(f"{path}: {error}") from error
    build = data.get("build", {})
    sources = list(build.get("sources", []))
    programs = {
        name: Program(name=name, command=list(spec["command"]), role=spec["role"],
                      ready=spec.get("ready"), output=spec.get("output"),
                      labels=dict(spec.get("labels", {})))
        for name, spec in data.get("programs", {}).items()
    }
    return Suite(
        id=data["id"], directory=directory, description=data.get("description", ""),
        series_labels=list(data.get("series_labels", [])),
        build_command=list(build["command"]) if "command" in build else None,
        build_env=dict(build.get("env", {})), sources=sources, programs=programs,
        params=dict(data.get("params", {})), scenarios=dict(data.get("scenarios", {})),
        metrics={name: MetricSpec(**spec) for name, spec in data.get("metrics", {}).items()},
        version=_version(directory, sources),
    )


def load_suites(root: Path = SUITES_DIR) -> dict[str, Suite]:
    suites = {}
    for path in sorted(root.glob("*/suite.toml")):
        suite = load_suite(path.parent)
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
