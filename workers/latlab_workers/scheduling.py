"""How a program asks to be scheduled, beyond its CPUs (pinning.py): SCHED_FIFO at a priority
(`realtime`), and memory from the NUMA node it runs on (`numa = "local"`, the seed's HFT
client's `numa_set_localalloc`). Both are set in the child before it execs, so every thread it
starts inherits them, then read back from the running process: a trial's tuning says what
the kernel kept (`applied: ...`), or that it refused (`refused: ...`) and the program ran
without it."""

import contextlib
import ctypes
import os
from dataclasses import dataclass
from pathlib import Path

_MPOL_LOCAL = 4
_SET_MEMPOLICY = {"x86_64": 238, "aarch64": 237}  # the syscall's number
_EXITED = "not read: it had already exited"


@dataclass(frozen=True)
class Scheduling:
    name: str
    fifo: int | None = None  # SCHED_FIFO priority, 1..99
    local_memory: bool = False

    def before_exec(self) -> None:
        """In the child: asks for both; what the kernel refuses is seen in `applied`."""
        if self.fifo is not None:
            with contextlib.suppress(OSError):
                os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(self.fifo))
        number = _SET_MEMPOLICY.get(os.uname().machine)
        if self.local_memory and number is not None:
            ctypes.CDLL(None, use_errno=True).syscall(number, _MPOL_LOCAL, None, 0)

    def applied(self, pid: int) -> dict[str, str]:
        """The tuning lines of the started process, as it runs. A program that has already
        exited (a short load that SCHED_FIFO let run to its end before the runner got the CPU
        back) has no mappings left to read: its line says so, never that it was refused."""
        lines = {}
        if self.fifo is not None:
            try:
                kept = os.sched_getscheduler(pid) == os.SCHED_FIFO
                lines[f"sched.{self.name}"] = (
                    f"applied: FIFO {os.sched_getparam(pid).sched_priority}" if kept else
                    f"refused: SCHED_FIFO {self.fifo} not permitted (needs CAP_SYS_NICE or "
                    f"an RLIMIT_RTPRIO of {self.fifo}, and real-time time in its cgroup)")
            except OSError:
                lines[f"sched.{self.name}"] = _EXITED
        if self.local_memory:
            try:  # the policy of its program's mapping, the first line
                first = Path(f"/proc/{pid}/numa_maps").read_text().split(maxsplit=2)
            except OSError:
                first = []
            policy = first[1] if len(first) > 1 else None
            lines[f"numa.{self.name}"] = (_EXITED if policy is None else
                                          "applied: local" if policy == "local" else
                                          f"refused: its memory policy is {policy}")
        return lines
