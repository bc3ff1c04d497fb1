"""Is a host tuned for low latency? Its fingerprint judged against common HFT host practice.

The recommendations are a table; `tuning_checks` only evaluates it. A fingerprint value of
None means the runner could not read the setting, so the check is unknown (ok=None) unless
absence itself answers it: a kernel parameter missing from the command line is not set.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from latlab.core.schemas import Schema


class TuningCheck(Schema):
    setting: str
    current: str | None
    recommended: str
    ok: bool | None  # None: unknown, or only a note
    why: str


def tuning_checks(fingerprint: Mapping[str, Any]) -> list[TuningCheck]:
    checks = []
    for rec in RECOMMENDATIONS:
        value = fingerprint.get(rec.setting)
        missing = value is None or value == ""
        checks.append(TuningCheck(
            setting=rec.setting,
            current=None if missing else rec.show(value),
            recommended=rec.recommended,
            ok=rec.ok_when_missing if missing else rec.judge(value),
            why=rec.why,
        ))
    return checks


@dataclass(frozen=True)
class Recommendation:
    setting: str  # the fingerprint key
    recommended: str
    judge: Callable[[Any], bool | None]
    why: str
    ok_when_missing: bool | None = None
    show: Callable[[Any], str] = str


def _equals(wanted: str) -> Callable[[Any], bool]:
    return lambda value: str(value).strip().lower() == wanted


def _int_within(low: int | None = None, high: int | None = None) -> Callable[[Any], bool | None]:
    def judge(value: Any) -> bool | None:
        if isinstance(value, bool):
            return None
        try:
            number = int(value)
        except (TypeError, ValueError):
            return None
        return (low is None or number >= low) and (high is None or number <= high)

    return judge


def _is_set(value: Any) -> bool:
    return True  # any value present on the kernel command line


def _is_false(value: Any) -> bool | None:
    return not value if isinstance(value, bool) else None


def _bare_metal(value: Any) -> bool | None:
    return True if value == "none" else None


def _running(value: Any) -> str:
    return "running" if value else "not running"


RECOMMENDATIONS: tuple[Recommendation, ...] = (
    Recommendation(
        "governor", "performance", _equals("performance"),
        "Other governors drop the clock while the CPU idles, so the requests after a pause run "
        "slower and the tail widens.",
    ),
    Recommendation(
        "thp", "never", _equals("never"),
        "Transparent huge pages make the kernel compact and collapse memory behind the "
        "program's back, which shows as rare millisecond stalls.",
    ),
    Recommendation(
        "swappiness", "0 or 1", _int_within(high=1),
        "A swapped-out page turns the next touch of it into a disk read; keep memory resident.",
    ),
    Recommendation(
        "isolcpus", "set (the benchmark's CPUs, e.g. isolcpus=8-27)", _is_set,
        "Without isolated CPUs the scheduler puts other tasks on the benchmark's cores.",
        ok_when_missing=False,
    ),
    Recommendation(
        "nohz_full", "set (same CPUs as isolcpus)", _is_set,
        "The periodic scheduler tick interrupts a busy CPU every few milliseconds unless the "
        "CPU runs tickless.",
        ok_when_missing=False,
    ),
    Recommendation(
        "rcu_nocbs", "set (same CPUs as isolcpus)", _is_set,
        "RCU callbacks otherwise run on the benchmark's CPUs; rcu_nocbs moves them to "
        "housekeeping CPUs.",
        ok_when_missing=False,
    ),
    Recommendation(
        "hugepages", "> 0 (e.g. vm.nr_hugepages=15)", _int_within(low=1),
        "Reserved huge pages let a program map its memory with fewer TLB misses and without "
        "faults on the hot path.",
    ),
    Recommendation(
        "clocksource", "tsc", _equals("tsc"),
        "Each latency sample reads the clock twice; tsc is read in user space in nanoseconds, "
        "hpet and acpi_pm cost a microsecond or more.",
    ),
    Recommendation(
        "irqbalance", "not running", _is_false,
        "irqbalance moves interrupts between CPUs while a benchmark runs; pin them once, away "
        "from the benchmark's CPUs.",
        show=_running,
    ),
    Recommendation(
        "virtualization", "none (bare metal)", _bare_metal,
        "Numbers from a VM are noisier: the hypervisor steals time and stands between the "
        "guest and its timers and interrupts. Compare them only with the same kind of VM.",
    ),
)
