"""What the OS did for each program during a trial: CPU time, context switches (voluntary
and involuntary), CPU migrations and page faults, stored as the trial's metrics with the CPU
that other processes of the host used meanwhile; and the trials those other processes
disturbed (marked, kept, and left out of every verdict).

Servers outlive a trial, so theirs are differences of readings of /proc: the process's
`/proc/PID/stat` for CPU time and page faults (every thread's, ended ones too), each thread's
`/proc/PID/task/TID/sched` for switches and migrations, read at the trial's edges and five
times a second between them (a thread that ends keeps what it had at the last reading). The load
program ends with its trial: its counters are its rusage, the runner's children's usage
before and after it was reaped (no migrations there). The host's busy time comes from
`/proc/stat`, for the CPUs the runner may use. Nothing is read by the programs measured, and
the runner's readings take microseconds five times a second."""

import os
import resource
import statistics
from dataclasses import dataclass
from pathlib import Path

from latlab_contract.result import SeriesIn
from latlab_contract.vocabulary import MetricSpec

# A trial is disturbed when other processes used DISTURBED_CPUS more of the host's CPUs
# during it than during the series' median trial: they took CPU time from the programs
# measured. It takes three trials to have a median to stand out from.
DISTURBED_CPUS = 0.5
DISTURBED_MIN_TRIALS = 3
OTHERS = "others_cpus"
_TICK_S = 1 / os.sysconf("SC_CLK_TCK")

METRICS: dict[str, MetricSpec] = {
    "cpu_s": MetricSpec(unit="s", direction="lower", label="CPU time"),
    "cpu_us_per_op": MetricSpec(unit="us", direction="lower", label="CPU per operation"),
    # CPU seconds per second of the trial: 100 % is one CPU busy all along (top's CPU %).
    "cpu_pct": MetricSpec(unit="%", direction="none", label="CPU use"),
    "switches_per_s": MetricSpec(unit="1/s", direction="none", label="context switches"),
    "preempted_per_s": MetricSpec(unit="1/s", direction="none",
                                  label="involuntary switches"),
    "migrations": MetricSpec(unit="count", direction="lower", label="CPU migrations"),
    "page_faults": MetricSpec(unit="count", direction="lower", label="page faults"),
    OTHERS: MetricSpec(unit="CPUs", direction="lower", label="other processes' CPU"),
}


@dataclass(frozen=True)
class Reading:
    cpu_s: float
    voluntary: int
    involuntary: int
    migrations: int | None
    page_faults: int

    def __sub__(self, other: "Reading") -> "Reading":
        return Reading(
            self.cpu_s - other.cpu_s, self.voluntary - other.voluntary,
            self.involuntary - other.involuntary,
            None if self.migrations is None or other.migrations is None
            else self.migrations - other.migrations,
            self.page_faults - other.page_faults)


_Switches = tuple[int, int, int]  # a thread's voluntary, involuntary switches, migrations


class ProcessWatch:
    """A live process watched across a trial: `poll` while it runs, `used` at its end."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.start = _stat(pid)
        self.first = _threads(pid)
        self.last = dict(self.first)

    def poll(self) -> None:
        self.last.update(_threads(self.pid))

    def used(self) -> Reading | None:
        """Since the watch began; None when the process is gone or was never read."""
        end = _stat(self.pid)
        self.poll()
        if self.start is None or end is None:
            return None
        moved = [tuple(now[i] - self.first.get(tid, (0, 0, 0))[i] for i in range(3))
                 for tid, now in self.last.items()]
        return Reading(end[0] - self.start[0], sum(m[0] for m in moved),
                       sum(m[1] for m in moved), sum(m[2] for m in moved),
                       end[1] - self.start[1])


def of_children() -> Reading:
    """The usage of the runner's reaped children so far (the load's, as a difference)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return Reading(usage.ru_utime + usage.ru_stime, usage.ru_nvcsw, usage.ru_nivcsw, None,
                   usage.ru_minflt + usage.ru_majflt)


def host_busy_s() -> float:
    """CPU seconds the runner's CPUs have spent busy (user, system, interrupts, and time a
    hypervisor stole) since boot."""
    allowed = {f"cpu{cpu}" for cpu in os.sched_getaffinity(0)}
    busy = 0
    for line in Path("/proc/stat").read_text().splitlines():
        name, *values = line.split()
        if name in allowed:
            user, nice, system, _idle, _iowait, irq, softirq, steal = map(int, values[:8])
            busy += user + nice + system + irq + softirq + steal
    return busy * _TICK_S


def _stat(pid: int) -> tuple[float, int] | None:
    """A process's CPU seconds and page faults, every thread's (ended ones too)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return ((int(fields[11]) + int(fields[12])) * _TICK_S,  # utime, stime
                int(fields[7]) + int(fields[9]))  # minflt, majflt
    except (OSError, IndexError, ValueError):
        return None


def _threads(pid: int) -> dict[int, _Switches]:
    found = {}
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:
        return {}
    for task in tasks:
        try:
            values = _sched(task / "sched")
            found[int(task.name)] = (int(values["nr_voluntary_switches"]),
                                     int(values["nr_involuntary_switches"]),
                                     int(values["se.nr_migrations"]))
        except (OSError, KeyError, ValueError):
            continue  # the thread ended between the listing and the read
    return found


def _sched(path: Path) -> dict[str, float]:
    values = {}
    for line in path.read_text().splitlines():
        name, colon, value = line.partition(":")
        if colon:
            try:
                values[name.strip()] = float(value)
            except ValueError:
                continue
    return values


def metrics(used: dict[str, Reading], seconds: float, operations: int,
            host_busy: float) -> dict[str, float]:
    """A trial's metrics from each program's counters over `seconds` of wall time, named
    `<metric>.<program>`; per operation over the trial's measured operations (the CPU of
    its start-up and warm-up included); and the CPUs other processes used meanwhile
    (`host_busy` seconds of the runner's CPUs, less the programs' own)."""
    found: dict[str, float] = {}
    for program, reading in used.items():
        found[f"cpu_s.{program}"] = reading.cpu_s
        if operations:
            found[f"cpu_us_per_op.{program}"] = reading.cpu_s * 1e6 / operations
        if seconds > 0:
            found[f"cpu_pct.{program}"] = 100 * reading.cpu_s / seconds
            found[f"switches_per_s.{program}"] = (
                reading.voluntary + reading.involuntary) / seconds
            found[f"preempted_per_s.{program}"] = reading.involuntary / seconds
        if reading.migrations is not None:
            found[f"migrations.{program}"] = reading.migrations
        found[f"page_faults.{program}"] = reading.page_faults
    if seconds > 0:
        own = sum(reading.cpu_s for reading in used.values())
        found[OTHERS] = max(host_busy - own, 0.0) / seconds
    return found


def metric_info(names: list[str]) -> dict[str, MetricSpec]:
    return {name: METRICS[name.split(".", 1)[0]] for name in names
            if name.split(".", 1)[0] in METRICS}


def mark_disturbed(series: SeriesIn) -> SeriesIn:
    """Marks the trials during which other processes used far more CPU than during the
    series' median trial, saying so: they are kept and shown, and left out of every
    verdict."""
    others = [trial.metrics.get(OTHERS) for trial in series.trials]
    known = [value for value in others if value is not None]
    if len(known) < DISTURBED_MIN_TRIALS:
        return series
    median = statistics.median(known)
    trials = [
        trial.model_copy(update={"disturbed": (
            f"other processes used {value:.2f} CPUs during it, {median:.2f} during the "
            f"series' median trial: they took CPU time from the programs measured")})
        if value is not None and value - median >= DISTURBED_CPUS else trial
        for trial, value in zip(series.trials, others, strict=True)]
    return series.model_copy(update={"trials": trials})
