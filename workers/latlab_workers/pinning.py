"""CPU pinning: the CPUs a program's `cpus` option asks for, checked against what the runner
may use, and the tuning line its trials report; and what its `realtime` and `numa` options
ask for (scheduling.py applies them)."""

import os

from latlab_workers.errors import JobError
from latlab_workers.scheduling import Scheduling
from latlab_workers.suite_file import Program
from latlab_workers.templates import Context, render_one

_OFF = ("", "0", "false", "off")
AUTO = "auto"
SHARED = "shared"


def pinning(program: Program, context: Context) -> tuple[frozenset[int] | None, str | None]:
    """The CPUs to pin a program to (None: leave it) and the tuning line its trials report:
    "off" (not asked), "applied: <cpus>", or "refused: <reason>" when the runner itself may
    not use those CPUs. "auto" splits the runner's CPUs: the servers get the first half, the
    load the rest, so neither takes CPU time from the other (refused with fewer than 2).
    "shared" puts every program on one CPU, the last the runner may use: on a small VM the
    wake-ups between CPUs, not the CPU the programs share, are what makes one trial differ
    from the next (docs/suites.md)."""
    if program.cpus is None:
        return None, None
    text = render_one(program.cpus, context).strip()
    if not text:
        return None, "off"
    if text == AUTO:
        return _split(program)
    if text == SHARED:
        last = max(os.sched_getaffinity(0))
        return frozenset({last}), f"applied: {last} (shared)"
    try:
        wanted = cpu_list(text)
    except ValueError as error:
        raise JobError(f"{program.name}: cpus '{text}': {error}") from error
    allowed = os.sched_getaffinity(0)
    if not wanted <= allowed:
        return None, (f"refused: CPUs {_cpu_text(wanted - allowed)} not available "
                      f"(allowed: {_cpu_text(allowed)})")
    return wanted, f"applied: {text}"


def _split(program: Program) -> tuple[frozenset[int] | None, str]:
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        return None, f"refused: auto needs 2 CPUs, the runner may use {_cpu_text(set(allowed))}"
    half = len(allowed) // 2
    cpus = frozenset(allowed[:half] if program.role == "server" else allowed[half:])
    return cpus, f"applied: {_cpu_text(cpus)} (auto)"


def cpu_list(text: str) -> frozenset[int]:
    """ "0-2,5" -> {0, 1, 2, 5}."""
    cpus: set[int] = set()
    for part in text.split(","):
        low, dash, high = part.strip().partition("-")
        if not low.isdigit() or (dash and not high.isdigit()):
            raise ValueError(f"'{part}' is not a CPU or a range of CPUs")
        first, last = int(low), int(high or low)
        if last < first or last >= 4096:
            raise ValueError(f"'{part}' is not a range of CPUs below 4096")
        cpus.update(range(first, last + 1))
    return frozenset(cpus)


def _cpu_text(cpus: set[int] | frozenset[int]) -> str:
    return ",".join(str(cpu) for cpu in sorted(cpus))


def scheduling(program: Program, context: Context) -> Scheduling | None:
    """What the program's `realtime` and `numa` options ask for (None: nothing)."""
    fifo = None
    if program.realtime is not None:
        text = render_one(program.realtime, context).strip().lower()
        if text not in _OFF:
            if not text.isdigit() or not 1 <= int(text) <= 99:
                raise JobError(f"{program.name}: realtime '{text}' is not a SCHED_FIFO "
                               f"priority (1..99, or 0 for none)")
            fifo = int(text)
    local = False
    if program.numa is not None:
        text = render_one(program.numa, context).strip().lower()
        if text not in (*_OFF, "true", "local"):
            raise JobError(f"{program.name}: numa '{text}' is not 'local' (or off)")
        local = text in ("true", "local")
    if fifo is None and not local:
        return None
    return Scheduling(program.name, fifo, local)
