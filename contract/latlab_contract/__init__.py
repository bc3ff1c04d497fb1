"""Wire types between the api/ingest side and the runners, defined once for both.

The api never imports runner code and runners never touch the database: they exchange these
JSON payloads through Celery tasks sent by name.
"""

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from latlab_contract.estimate import AxisValue, EstimateError, series_contexts, trials_s
from latlab_contract.params import merge_params
from latlab_contract.vocabulary import DEFAULT_GATE, MetricSpec

EXECUTE_JOB = "runner.execute_job"
HOST_HEARTBEAT = "ingest.host_heartbeat"
JOB_EVENT = "ingest.job_event"
JOB_OUTCOME = "ingest.job_outcome"
# What runners send (heartbeats, job events, outcomes): the one queue a host may write to.
INGEST_QUEUE = "ingest"
# The lab's own tasks (beat's schedule), consumed by the ingest worker too: no host writes it.
LAB_QUEUE = "lab"
# The queues of the ingest worker (`celery worker -Q`).
INGEST_WORKER = f"{INGEST_QUEUE},{LAB_QUEUE}"
# Alert delivery has its own queue and worker: a slow receiver delays no heartbeat or job.
ALERTS_QUEUE = "alerts"

HEARTBEAT_INTERVAL_S = 10.0
# A host is offline after this many missed heartbeats.
OFFLINE_AFTER_INTERVALS = 3

Phase = Literal["build", "start", "warmup", "measure", "report"]


def host_queue(host_name: str) -> str:
    return f"host.{host_name}"


def attempt_key(job_id: int) -> str:
    """The Redis key that holds the task id of the attempt the lab expects of a job: set with
    its dispatch, deleted when the attempt ends. A runner starts only the attempt it names."""
    return f"latlab:attempt:{job_id}"


class Wire(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ScenarioSpec(Wire):
    description: str = ""
    params: dict[str, Any] = {}


class SlaTemplate(Wire):
    """An SLA rule a suite suggests; `op` is the breach condition ("p99 > 2 ms")."""

    name: str
    metric: str
    op: Literal["<", "<=", ">", ">="]
    threshold: float
    unit: str = ""
    kind: Literal["static", "relative"] = "static"
    severity: Literal["warning", "critical"] = "warning"
    scenario: str | None = None


class SuiteInfo(Wire):
    """What a runner can execute for one suite, as it advertises it."""

    id: str
    description: str
    version: str = Field(description="Hash of the suite's definition and program sources")
    programs: dict[str, str] = Field(description="Program name -> version")
    scenarios: dict[str, ScenarioSpec]
    params_schema: dict[str, Any] = Field(description="JSON Schema of the parameters")
    series_labels: list[str] = Field(description="The axes: labels its series may carry")
    axes: dict[str, list[AxisValue] | str] = Field(
        {}, description="Each axis's values, or the param that gives them")
    trial_s: str | None = Field(
        None, description="Seconds one trial of one series takes, an expression over its "
        "params and axis values (latlab_contract.estimate)")
    sweep: str | None = Field(None, description="The axis drawn as load-latency curves")
    gate: list[str] = Field(list(DEFAULT_GATE),
                            description="The metrics the CI gate judges")
    metrics: dict[str, MetricSpec] = Field(description="Metrics the suite adds")
    sla_templates: list[SlaTemplate] = []
    builds_repo: bool = Field(False, description="Its jobs build the code of a repository "
                              "of the project at a commit (`[repo]` in suite.toml)")

    def estimate_s(self, contexts: list[dict[str, Any]], trials: int) -> float | None:
        """Seconds `trials` trials of the series `contexts` (`series_contexts`) take by the
        suite's estimate; None when it states none, or for params outside what its author
        foresaw (checked at every scenario when the suite loads)."""
        if self.trial_s is None:
            return None
        try:
            return trials_s(self.trial_s, contexts, trials)
        except EstimateError:
            return None

    def lightest(self) -> str | None:
        """The scenario whose one trial of each series the suite estimates shortest (None:
        the suite estimates none): where a launch form starts."""
        estimates = {}
        for name, scenario in self.scenarios.items():
            params = merge_params(self.params_schema, scenario.params, {})
            seconds = self.estimate_s(series_contexts(self.axes, params), 1)
            if seconds is not None:
                estimates[name] = seconds
        return min(sorted(estimates), key=estimates.__getitem__) if estimates else None


class Attempt(Wire):
    job_id: int
    attempt: int


class Heartbeat(Wire):
    name: str
    tags: list[str]
    address: str | None = None
    fingerprint: dict[str, Any]
    suites: list[SuiteInfo]
    running: Attempt | None = Field(
        None, description="The attempt the runner is executing, whatever the lab thinks")


Sha = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{40}$")]


class RepoCheckout(Wire):
    """The repository a job builds and measures: where the runner fetches it from, with which
    credentials (never logged, never in a run), and whether its build may use the network."""

    repo: str = Field(description="Its name in the project")
    url: str
    secret: str | None = Field(None, repr=False)
    build_network: bool = False


class JobSpec(Wire):
    """A frozen job, as sent to `runner.execute_job`."""

    job_id: int
    attempt: int
    project: str
    suite: str
    scenario: str
    params: dict[str, Any]
    repetitions: int
    timeout_s: int
    baseline_version: str | None = Field(
        None, description="A confirmation job: interleave each repetition with this version "
        "of the suite (its build and definition as the host cached them), labelled "
        "variant=baseline beside variant=candidate")
    profile: bool = Field(
        False, description="After the repetitions, one more trial per series with each "
        "program's CPU profiled; the profiles go with the result, the trial nowhere else")
    repo: RepoCheckout | None = Field(None, description="The repository the suite builds")
    commit: Sha | None = Field(None, description="The repository's commit measured (a try "
                               "job's head)")
    base_commit: Sha | None = Field(
        None, description="A try job: interleave each repetition with this commit, after a "
        "warm-up of each, labelled side=base beside side=head")


class ProgramInfo(Wire):
    name: str
    pid: int


class JobEvent(Wire):
    job_id: int
    attempt: int
    status: Literal["running", "failed", "timed_out", "cancelled"] | None = None
    phase: Phase | None = None
    progress: float | None = Field(None, ge=0, le=100)
    programs: list[ProgramInfo] | None = None
    error: str | None = None


class JobOutcome(Wire):
    job_id: int
    attempt: int
    result: dict[str, Any] = Field(description="A latlab.result/v1 document")
