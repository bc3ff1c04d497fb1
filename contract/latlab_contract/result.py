"""The result contract `latlab.result/v1`: what CI submits and what runners build.

Defined once, here (its field types in `fields`, a trial's latency in `latency`): the api
validates submissions with these types, and the runner builds them from program output, so a
program's bad output fails its job on the host, naming the program, instead of reaching the
api.
"""

import json
from typing import Annotated, Literal

from pydantic import (
    ConfigDict,
    Field,
    StringConstraints,
    ValidationInfo,
    field_validator,
    model_validator,
)

from latlab_contract.fields import (
    MAX_COUNT,
    NO_NUL,
    Contract,
    Count,
    HostName,
    Key,
    LabelValue,
    Measured,
    Moment,
    Scalar,
    Slug,
    Text,
)
from latlab_contract.latency import Interval, Latency
from latlab_contract.vocabulary import MetricSpec

SCHEMA_VERSION = "latlab.result/v1"

# The most metrics one trial (and metric specs one run) may carry: a k6 summary with its
# custom trends and sub-metrics holds a few hundred.
MAX_METRICS = 1000


class Failures(Contract):
    """What failed in a trial, as the harness counted it: k6's failed requests, vegeta's
    non-2xx and errors, wrk's socket errors and non-2xx, hyperfine's non-zero exits, a go
    test that ended in FAIL."""

    failed: Annotated[int, Field(strict=True, ge=1, le=MAX_COUNT)] = Field(
        description="Operations that failed (requests, runs, benchmarks)")
    total: Count | None = Field(
        None, description="Operations attempted, the failed ones included; None when the "
        "harness does not say (the failure rate is then unknown and counts as total)")
    detail: Text = Field(description="What failed, in the harness's words, e.g. "
                         "'835 socket timeouts, 12 non-2xx responses'")

    @model_validator(mode="after")
    def within(self) -> "Failures":
        if self.total is not None and self.failed > self.total:
            raise ValueError(f"{self.failed} failed of {self.total} attempted")
        return self

    @property
    def rate(self) -> float:
        return 1.0 if self.total is None else self.failed / self.total


class Harness(Contract):
    """What a harness told about itself besides its measurements."""

    context: Annotated[dict[Key, Scalar], Field(max_length=50)] = Field(
        {}, description="The machine and build it ran on as it printed them (Google "
        "Benchmark's context, go's goos/goarch/cpu, JMH's JVM, pytest-benchmark's "
        "machine_info): comparisons warn when CPU, cores or build type differ.")
    notes: Annotated[list[Text], Field(max_length=20)] = Field(
        [], description="What the adapter could not read as asked, and what to do about it "
        "(e.g. k6 printed no p(99): the --summary-trend-stats line that gives it).")


class TrialIn(Contract):
    latency: Latency
    latency_uncorrected: Latency | None = Field(
        None, description="Open-loop runs: the view not corrected for coordinated omission."
    )
    metrics: Annotated[dict[Key, Measured], Field(max_length=MAX_METRICS)] = {}
    failures: Failures | None = Field(
        None, description="Operations the harness counted as failed: a trial with failures "
        "is flagged wherever it is shown, and past the project's error rate fails the gate.")
    intervals: Annotated[list[Interval], Field(max_length=100_000)] | None = None
    tuning: Annotated[dict[Key, Text], Field(max_length=50)] | None = Field(
        None, description='What the program applied or the host refused, e.g. '
        '{"mlock": "refused: Operation not permitted", "pin_cpus": "applied: 0,1"}.')
    disturbed: Text | None = Field(
        None, description="Why the trial is left out of every verdict: the host disturbed it "
        "(another process took its CPUs). It is kept and shown.")


# A profile's folded text: at most 8 MB and 200,000 distinct stacks of at most 512 frames;
# at most 100 profiles a result.
MAX_PROFILE_CHARS = 8_000_000
MAX_PROFILE_STACKS = 200_000
MAX_PROFILE_DEPTH = 512
MAX_PROFILES = 100  # in one result


class ProfileIn(Contract):
    """A CPU profile of one program of a series, as folded stacks: one line per distinct
    stack, its frames from the root down joined by `;`, a space, and how many samples had it
    (Brendan Gregg's format: what stackcollapse-perf, `py-spy record -f raw` and
    async-profiler's `collapsed` output write). Recorded in a trial of its own, which no
    statistic or verdict counts."""

    labels: Annotated[dict[Key, LabelValue], Field(max_length=20)] = Field(
        {}, description="The labels of the series whose program was profiled.")
    program: Key = Field(description="The program profiled, e.g. server or client.")
    tool: Slug = Field(description="What recorded it, e.g. perf, py-spy, async-profiler, pprof.")
    frequency_hz: Annotated[float, Field(gt=0, le=1_000_000, allow_inf_nan=False)] | None = None
    folded: Annotated[str, StringConstraints(min_length=1, max_length=MAX_PROFILE_CHARS,
                                             pattern=NO_NUL)]

    @field_validator("folded")
    @classmethod
    def well_formed(cls, folded: str) -> str:
        stacks = folded_stacks(folded)
        if not stacks:
            raise ValueError("the profile holds no samples")
        return folded


def folded_stacks(folded: str) -> dict[tuple[str, ...], int]:
    """The samples of each distinct stack in folded text (a stack given on several lines is
    summed); a line that is not `frame;...;frame count` raises ValueError naming it."""
    stacks: dict[tuple[str, ...], int] = {}
    total = 0
    for number, line in enumerate(folded.splitlines(), 1):
        if not line.strip():
            continue
        stack, _, count_text = line.rstrip().rpartition(" ")
        frames = tuple(stack.split(";"))
        if not stack or not count_text.isdigit() or any(not f.strip() for f in frames):
            raise ValueError(f"line {number} is not 'frame;...;frame count': {line[:80]!r}")
        if len(frames) > MAX_PROFILE_DEPTH:
            raise ValueError(f"line {number}: a stack deeper than {MAX_PROFILE_DEPTH} frames")
        count = int(count_text)
        total += count
        if count < 1 or total > MAX_COUNT:
            raise ValueError(f"line {number}: counts must be 1 to {MAX_COUNT} samples in all")
        stacks[frames] = stacks.get(frames, 0) + count
        if len(stacks) > MAX_PROFILE_STACKS:
            raise ValueError(f"more than {MAX_PROFILE_STACKS} distinct stacks")
    return stacks


class SeriesIn(Contract):
    labels: Annotated[dict[Key, LabelValue], Field(max_length=20)] = {}
    trials: Annotated[list[TrialIn], Field(min_length=1, max_length=1000)]


Branch = Annotated[str, StringConstraints(min_length=1, max_length=200, pattern=NO_NUL)]
Commit = Annotated[str, StringConstraints(pattern=r"^[0-9a-fA-F]{4,64}$")]


class StartPoint(Contract):
    """Where a branch started: until it has history of its own, its runs are judged against
    this branch's history up to this commit's run."""

    branch: Branch
    commit: Commit | None = None

    @classmethod
    def parse(cls, text: str) -> "StartPoint":
        """`main@9f1c2e7` (or just `main`), as CI writes it on a command line or a query."""
        branch, _, commit = text.partition("@")
        return cls(branch=branch, commit=commit or None)


class SourceIn(Contract):
    kind: Literal["ci", "job", "manual"] = "ci"
    commit: Commit | None = None
    repo: Slug | None = Field(None, description="The project's repository the commit is of "
                              "(a job that built it)")
    branch: Branch | None = None
    build_url: Annotated[str, StringConstraints(pattern=r"^https?://[^\x00]*$",
                                                max_length=2000)] | None = None
    pull_request: Annotated[int, Field(strict=True, gt=0, le=2**31 - 1)] | None = None
    start_point: StartPoint | None = Field(
        None, description='The branch and commit this branch started from, e.g. '
        '{"branch": "main", "commit": "9f1c2e7"}')


class HostIn(Contract):
    name: HostName
    tags: Annotated[list[Slug], Field(max_length=50)] = []
    fingerprint: Annotated[dict[Key, Scalar | list[Scalar]], Field(max_length=100)] = {}


class Sweep(Contract):
    """The axis a run sweeps (concurrency, rate, devices): its series form load-latency
    curves over these values."""

    axis: Key
    values: Annotated[list[Measured], Field(min_length=2, max_length=64)]


class RunCreate(Contract):
    """A `latlab.result/v1` document."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [{
        "schema": "latlab.result/v1", "suite": "http-order", "scenario": "medium",
        "params": {"orders": 1000, "connections": 50},
        "started_at": "2026-11-22T10:00:00Z", "finished_at": "2026-11-22T10:00:12Z",
        "source": {"kind": "ci", "commit": "9f1c2e7", "branch": "main"},
        "host": {"name": "lab-07", "tags": ["hft-tuned"]},
        "series": [{"labels": {"client": "rust"}, "trials": [{
            "latency": {"samples_ns": [350120, 351877, 498003]},
            "metrics": {"throughput": 115554.0}}]}]}]})

    schema_version: Literal["latlab.result/v1"] = Field(alias="schema")
    suite: Slug
    scenario: Slug
    params: Annotated[dict[Key, Scalar | Annotated[list[Scalar], Field(max_length=64)]],
                      Field(max_length=100)] = {}
    started_at: Moment
    finished_at: Moment | None = None
    source: SourceIn = SourceIn()
    host: HostIn | None = None
    sweep: Sweep | None = None
    metric_info: Annotated[dict[Key, MetricSpec], Field(max_length=MAX_METRICS)] = Field(
        {}, description="Units and directions of metrics the lab may not know (a suite no "
        "host advertises, a CI harness's own metrics).")
    gate: Annotated[list[Key], Field(min_length=1, max_length=20)] | None = Field(
        None, description="The metrics the CI gate judges when the lab knows no definition "
        "of this suite (a suite's own `gate` wins; default: p99 and throughput). Adapters set "
        "their harness's headline (go-bench: ns_per_op).")
    series: Annotated[list[SeriesIn], Field(min_length=1, max_length=500)]
    errors_expected: bool = Field(
        False, description="The run is meant to fail some operations (a fault-injection "
        "test): its failures are shown but never fail the gate.")
    harness: Harness | None = Field(
        None, description="What a harness adapter read beside the measurements: the "
        "machine context it printed and notes on what it could not read.")
    profiles: Annotated[list[ProfileIn], Field(max_length=MAX_PROFILES)] = Field(
        [], description="CPU profiles of the series' programs (folded stacks), each recorded "
        "in a trial of its own that no statistic or verdict counts.")

    @field_validator("series")
    @classmethod
    def labels_unique(cls, series: list[SeriesIn]) -> list[SeriesIn]:
        seen: set[tuple[tuple[str, str], ...]] = set()
        for item in series:
            key = tuple(sorted(item.labels.items()))
            if key in seen:
                raise ValueError(f"two series have the same labels {dict(key)}")
            seen.add(key)
        return series

    @model_validator(mode="after")
    def consistent(self) -> "RunCreate":
        if self.finished_at is not None and self.finished_at < self.started_at:
            raise ValueError("finished_at is before started_at")
        if self.sweep is not None and not any(self.sweep.axis in s.labels for s in self.series):
            raise ValueError(f"the sweep axis '{self.sweep.axis}' labels no series")
        return self

    @field_validator("profiles")
    @classmethod
    def profiled_series(cls, profiles: list[ProfileIn], info: ValidationInfo
                        ) -> list[ProfileIn]:
        """Each profile names a series of the run, and a program once per series."""
        labels = [s.labels for s in info.data.get("series", [])]
        seen: set[tuple[str, str]] = set()
        for index, profile in enumerate(profiles):
            if profile.labels not in labels:
                raise ValueError(f"profiles[{index}]: no series has the labels "
                                 f"{profile.labels}")
            key = (json.dumps(profile.labels, sort_keys=True), profile.program)
            if key in seen:
                raise ValueError(f"profiles[{index}]: a second profile of {profile.program} "
                                 f"in the series {profile.labels}")
            seen.add(key)
        return profiles
