"""The result contract `latlab.result/v1`: what CI submits and what runners build.

Defined once, here: the api validates submissions with these types, and the runner builds
them from program output, so a program's bad output fails its job on the host, naming the
program, instead of reaching the api.
"""

import itertools
import json
from datetime import UTC, datetime
from typing import Annotated, Literal

from pydantic import (
    AfterValidator,
    AwareDatetime,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationInfo,
    field_validator,
    model_validator,
)

from latlab_contract.vocabulary import SUMMARY_PERCENTILES, MetricSpec

SCHEMA_VERSION = "latlab.result/v1"

# Postgres refuses NUL in text and JSON, so no string of the contract may hold one.
_NO_NUL = r"^[^\x00]*$"
Slug = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9._-]{0,63}$")]
Key = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_.-]{0,63}$")]
Text = Annotated[str, StringConstraints(max_length=500, pattern=_NO_NUL)]
# A label value: a harness's benchmark name or command line (hyperfine's can be long).
LabelValue = Annotated[str, StringConstraints(max_length=1024, pattern=_NO_NUL)]
INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
Int64 = Annotated[int, Field(strict=True, ge=INT64_MIN, le=INT64_MAX)]
# Moments the lab deals in: from the Unix epoch to 2200 (date arithmetic stays in range).
EARLIEST, LATEST = datetime(1970, 1, 1, tzinfo=UTC), datetime(2200, 1, 1, tzinfo=UTC)


def _in_range(moment: datetime) -> datetime:
    if not EARLIEST <= moment < LATEST:
        raise ValueError(f"the date must lie between {EARLIEST:%Y-%m-%d} and {LATEST:%Y-%m-%d}")
    return moment


Moment = Annotated[AwareDatetime, AfterValidator(_in_range)]
# Latency is integer nanoseconds up to one hour (the stored histograms' range).
HIGHEST_NS = 3_600_000_000_000
LatencyNs = Annotated[int, Field(strict=True, ge=0, le=HIGHEST_NS)]
Finite = Annotated[float, Field(allow_inf_nan=False)]
# Numbers the lab does arithmetic on (variances, sums of squares, ratios): within +-1e18, so
# none of those overflows a float.
MAX_MEASURED = 1e18
Measured = Annotated[float, Field(allow_inf_nan=False, ge=-MAX_MEASURED, le=MAX_MEASURED)]
NonNegative = Annotated[float, Field(allow_inf_nan=False, ge=0, le=MAX_MEASURED)]


def _no_wide_int(value: object) -> object:
    if isinstance(value, int) and not isinstance(value, bool) and not (
            INT64_MIN <= value <= INT64_MAX):
        raise ValueError("integers must lie within the signed 64-bit range")
    return value


# A param or fingerprint value: an integer too wide for int64 is refused, not made a float.
Scalar = Text | bool | Int64 | Annotated[Finite, BeforeValidator(_no_wide_int)] | None

MAX_SAMPLES = 20_000_000
# The most values one histogram may count: 2^48 (a billion a second for three days). Every
# count from outside is held to it before a histogram library sees it, so sums of a thousand
# trials' counts still fit in int64 with room to spare.
MAX_COUNT = 2**48
Count = Annotated[int, Field(strict=True, ge=0, le=MAX_COUNT)]


class Contract(BaseModel):
    """Unknown fields are refused everywhere in the contract."""

    model_config = ConfigDict(extra="forbid")


ReportedNs = Annotated[float, Field(allow_inf_nan=False, ge=0, le=HIGHEST_NS)]
_ROUNDING = 5e-3


class Reported(Contract):
    """A distribution's statistics as the harness printed them, in nanoseconds (k6's p(95),
    wrk2's 99.000%, pytest-benchmark's median). The trial's summary shows these as the tool's
    own; its other statistics come from the distribution."""

    min: ReportedNs | None = None
    max: ReportedNs | None = None
    mean: ReportedNs | None = None
    stddev: ReportedNs | None = None
    p50: ReportedNs | None = None
    p90: ReportedNs | None = None
    p95: ReportedNs | None = None
    p99: ReportedNs | None = None
    p999: ReportedNs | None = None
    p9999: ReportedNs | None = None

    @model_validator(mode="after")
    def ordered(self) -> "Reported":
        problem = order_problem(self.model_dump(exclude_none=True))
        if problem is not None:
            raise ValueError(f"the reported {problem}")
        return self


def order_problem(summary: dict[str, float]) -> str | None:
    """What breaks min <= p50 <= ... <= p99.99 <= max, the mean between min and max, in a
    summary's statistics (those present), or None. Each comparison allows what printing
    moves a value by: 0.5 % (a tool prints at least three significant digits; wrk2 prints
    1.42s beside a max of 1.41767 s) and 1 ns (samples are whole nanoseconds)."""
    order = [(key, value) for key in ("min", *SUMMARY_PERCENTILES, "max")
             if (value := summary.get(key)) is not None]
    for (below, below_value), (above, above_value) in itertools.pairwise(order):
        if below_value > _printed(above_value):
            return f"{below} ({below_value:g} ns) is above the {above} ({above_value:g} ns)"
    mean, least, most = summary.get("mean"), summary.get("min"), summary.get("max")
    if mean is not None and not ((least or 0.0) <= _printed(mean)
                                 and (most is None or mean <= _printed(most))):
        return f"mean ({mean:g} ns) is outside min .. max"
    return None


def _printed(value: float) -> float:
    """The most a value printed as `value` can have been."""
    return value * (1 + _ROUNDING) + 1.0


class Latency(Contract):
    """A latency distribution in integer nanoseconds: an HdrHistogram or the raw samples."""

    hdr: Annotated[str, StringConstraints(min_length=1, max_length=16_000_000)] | None = Field(
        None, description="Standard compressed HdrHistogram V2, base64."
    )
    samples_ns: Annotated[list[LatencyNs], Field(min_length=1, max_length=MAX_SAMPLES)] | None = (
        None
    )
    reported: Reported | None = Field(
        None, description="Statistics the harness printed itself; they are the trial's "
        "summary where given.")
    rebuilt: bool = Field(
        False, description="The histogram was rebuilt from a percentile spectrum the harness "
        "printed: its values between the printed percentiles are interpolated.")
    resolution_ns: Annotated[int, Field(ge=1, le=1_000_000_000)] | None = Field(
        None, description="The step the harness prints values in (ApacheBench: 1 ms): a value "
        "of 0 means under it.")

    @model_validator(mode="after")
    def exactly_one(self) -> "Latency":
        if (self.hdr is None) == (self.samples_ns is None):
            raise ValueError("give exactly one of 'hdr' or 'samples_ns'")
        return self


class Interval(Contract):
    """Latency over time: one window of a trial."""

    t_s: NonNegative = Field(description="The window's start, seconds since the trial's.")
    length_s: NonNegative | None = None
    count: Count
    p50: NonNegative | None = None
    p90: NonNegative | None = None
    p99: NonNegative | None = None
    p999: NonNegative | None = None
    max: NonNegative | None = None
    hdr: Annotated[str, StringConstraints(min_length=1, max_length=1_000_000)] | None = Field(
        None, description="The window's own histogram (compressed HdrHistogram V2, base64, ns), "
        "kept so that the trial exports as an HdrHistogram interval log.")


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
                                             pattern=_NO_NUL)]

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


Branch = Annotated[str, StringConstraints(min_length=1, max_length=200, pattern=_NO_NUL)]
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
    branch: Branch | None = None
    build_url: Annotated[str, StringConstraints(pattern=r"^https?://[^\x00]*$",
                                                max_length=2000)] | None = None
    pull_request: Annotated[int, Field(strict=True, gt=0, le=2**31 - 1)] | None = None
    start_point: StartPoint | None = Field(
        None, description='The branch and commit this branch started from, e.g. '
        '{"branch": "main", "commit": "9f1c2e7"}')


class HostIn(Contract):
    name: Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$")]
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
