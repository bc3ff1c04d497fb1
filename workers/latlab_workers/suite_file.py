"""A suite's file, `suites/<id>/suite.toml` (format 2, `workers/suites/README.md`), as it is
validated when loaded: its programs and how each is built, axes, params, scenarios, estimates
and reports. An error names the key."""

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from latlab_contract import ScenarioSpec, SlaTemplate
from latlab_contract.estimate import (
    AxisValue,
)
from latlab_contract.fields import Key, Slug
from latlab_contract.parsers import PARSERS
from latlab_contract.vocabulary import DEFAULT_GATE, MetricSpec
from latlab_workers import network
from latlab_workers.templates import Context

MAX_AXIS_VALUES = 64

Template = Annotated[str, Field(min_length=1)]


class _Spec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class AptPackage(_Spec):
    package: str
    command: str | None = None


class GoTool(_Spec):
    module: str  # path@version
    as_: str | None = Field(None, alias="as")  # the installed binary's name


class Toolchain(_Spec):
    apt: list[str | AptPackage] = []
    pip: list[str] = []
    go: list[str | GoTool] = []


class BuildSpec(_Spec):
    command: Annotated[list[Template], Field(min_length=1)] | None = None
    env: dict[str, str] = {}
    sources: list[str] = []


class RepoBuild(_Spec):
    """How a job's repository is built, in a checkout of its commit, as code under test
    (`sandbox`): the command (none: nothing to build), its environment, and the paths
    (relative to the checkout) it must leave behind. Templates over the job's params."""

    command: list[Template] = []
    env: dict[str, str] = {}
    artifacts: list[Template] = []


class Report(_Spec):
    """A URL (over the server's own announced fields, "http://{listening}/stats") the runner
    POSTs to right before each trial and right after it; the answer after is a latlab-json
    document of what the server measured in the trial, kept as a series of its own beside
    the load's, labelled view=<server>. Only when the boolean param `when` is true, if named."""

    url: Template
    when: str | None = None


class Program(_Spec):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)

    name: str = ""
    role: Literal["server", "load"]
    # "repo": the job's repository as built by the suite's [repo], run as code under test
    # from its checkout (`{repo_dir}`); "suite": one of the suite's own programs.
    from_: Literal["suite", "repo"] = Field("suite", alias="from")
    command: Annotated[list[Template], Field(min_length=1)]
    ready: Literal["stdout-json"] | None = None
    output: str | None = None
    # Loads: the file (relative to the program's folder, a template) its output is read from
    # once it exits, instead of its stdout; empty renders mean stdout.
    output_file: str | None = None
    # CPUs to pin the program to before it starts, a template ("{server_cpus}"): a CPU list
    # such as "0" or "2-3,6"; empty renders mean not pinned. Reported in each trial's tuning.
    cpus: str | None = None
    # SCHED_FIFO priority (1..99; empty or 0: none) and NUMA memory policy ("local"), set
    # before it execs (scheduling.py); each trial says what the kernel kept.
    realtime: str | None = None
    numa: str | None = None
    # Servers: report the server's peak resident memory during each trial (`peak_rss_mb`).
    peak_rss: bool = False
    # Announced fields that are HOST:PORT addresses the load connects to: the job's network
    # profile stands between them and the load.
    endpoints: list[Key] = []
    # JVM programs: the folder async-profiler's jar is unpacked into (it holds linux-x64/ and
    # linux-arm64/libasyncProfiler.so), a template; a job's profiled trial loads the agent.
    async_profiler: str | None = None
    # Servers: what the server measured of each trial itself (`Report`).
    report: Report | None = None

    @model_validator(mode="after")
    def fits_role(self) -> "Program":
        if self.role == "load" and self.output is None:
            raise ValueError("a load program needs an `output` (the parser of its stdout)")
        if self.role == "server" and self.output is not None:
            raise ValueError("a server has no `output`; it may have `ready`")
        if self.output_file is not None and self.role != "load":
            raise ValueError("`output_file` is for a load program")
        if self.role == "load" and self.peak_rss:
            raise ValueError("`peak_rss` is measured for servers only")
        if self.report is not None and (self.role != "server" or self.ready != "stdout-json"):
            raise ValueError("`report` is for a server with ready = \"stdout-json\" (its "
                             "URL is made of what the server announces)")
        if self.endpoints and self.ready != "stdout-json":
            raise ValueError("`endpoints` are announced fields: a server with "
                             "ready = \"stdout-json\"")
        return self


class ParserSpec(_Spec):
    module: str


class Axis(_Spec):
    values: Annotated[list[AxisValue], Field(min_length=1, max_length=MAX_AXIS_VALUES)] | None = (
        None)
    param: str | None = None
    optional: bool = False
    vars: dict[str, Context] = {}

    @model_validator(mode="after")
    def one_source(self) -> "Axis":
        if (self.values is None) == (self.param is None):
            raise ValueError("give exactly one of `values` or `param`")
        if self.optional and self.param is None:
            raise ValueError("only a param axis can be `optional`")
        return self


class EstimateSpec(_Spec):
    # Seconds one trial of one series takes, warm-up included: an expression over the
    # series' params and axis values (latlab_contract.estimate).
    trial_s: str


class SeriesSpec(_Spec):
    load: Template
    servers: list[Template] = []


class SuiteFile(_Spec):
    """suite.toml, format 2."""

    format: Literal[2]
    id: Slug
    description: str
    gate: list[Key] = list(DEFAULT_GATE)
    sweep: str | None = None
    toolchain: Toolchain = Toolchain()
    build: BuildSpec = BuildSpec()
    repo: RepoBuild | None = None
    programs: Annotated[dict[str, Program], Field(min_length=1)]
    parsers: dict[str, ParserSpec] = {}
    axes: dict[Key, Axis] = {}
    series: SeriesSpec | None = None
    estimate: EstimateSpec | None = None  # without one, a job's timeout is the default
    params: dict[Key, dict[str, Any]] = {}
    scenarios: Annotated[dict[Slug, ScenarioSpec], Field(min_length=1)]
    metrics: dict[Key, MetricSpec] = {}
    sla_templates: list[SlaTemplate] = []

    @property
    def uses_network(self) -> bool:
        return any(program.endpoints for program in self.programs.values())

    @model_validator(mode="after")
    def consistent(self) -> "SuiteFile":
        if self.uses_network and network.PARAM in self.params:
            raise ValueError(f"params.{network.PARAM}: the runner's param for a suite with "
                             f"endpoints (its network profile); the suite cannot declare it")
        params = {*self.params, *([network.PARAM] if self.uses_network else [])}
        for name, axis in self.axes.items():
            if axis.param is not None and axis.param not in self.params:
                raise ValueError(f"axes.{name}.param: no param '{axis.param}'")
        if self.sweep is not None and self.sweep not in self.axes:
            raise ValueError(f"sweep: no axis '{self.sweep}'")
        for name, scenario in self.scenarios.items():
            unknown = sorted(set(scenario.params) - params)
            if unknown:
                raise ValueError(f"scenarios.{name}.params: unknown params {unknown}")
        for name, program in self.programs.items():
            when = program.report.when if program.report is not None else None
            if when is not None and self.params.get(when, {}).get("type") != "boolean":
                raise ValueError(f"programs.{name}.report.when: no boolean param '{when}'")
        loads = [n for n, p in self.programs.items() if p.role == "load"]
        if self.series is None and len(loads) != 1:
            raise ValueError("without [series], a suite has exactly one load program")
        from_repo = [n for n, p in self.programs.items() if p.from_ == "repo"]
        if from_repo and self.repo is None:
            raise ValueError(f"programs {from_repo} are from = \"repo\": the suite needs a "
                             f"[repo] table saying how the repository is built")
        if self.repo is not None and not from_repo:
            raise ValueError("[repo]: no program is from = \"repo\"")
        known = set(PARSERS) | set(self.parsers)
        for name, program in self.programs.items():
            # A template ("{format}") is checked when a job renders it.
            if (program.output is not None and "{" not in program.output
                    and program.output not in known):
                raise ValueError(f"programs.{name}.output: no parser '{program.output}' "
                                 f"(known: {', '.join(sorted(known))})")
        return self
