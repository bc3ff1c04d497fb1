from typing import Any

import pytest
from fingerprint_support import TUNED_FINGERPRINT

from latlab.hosts.tuning import RECOMMENDATIONS, TuningCheck, tuning_checks

UNTUNED_VM: dict[str, Any] = {
    "cpu_model": "AMD EPYC",
    "cores": 2,
    "kernel": "6.18.44-fc-v595",
    "governor": None,
    "thp": "madvise",
    "hugepages": 0,
    "swappiness": 60,
    "isolcpus": None,
    "nohz_full": None,
    "rcu_nocbs": None,
    "clocksource": "kvm-clock",
    "virtualization": "firecracker",
    "irqbalance": True,
}


def by_setting(checks: list[TuningCheck]) -> dict[str, TuningCheck]:
    return {check.setting: check for check in checks}


def test_tuned_host_passes_every_check() -> None:
    """The fingerprint the runner reads from a tuned host passes every check."""
    checks = tuning_checks(TUNED_FINGERPRINT)
    assert [c.setting for c in checks] == [
        "governor", "thp", "swappiness", "isolcpus", "nohz_full", "rcu_nocbs", "hugepages",
        "clocksource", "irqbalance", "virtualization",
    ]
    assert all(c.ok is True for c in checks), [c for c in checks if c.ok is not True]


def test_untuned_vm() -> None:
    checks = by_setting(tuning_checks(UNTUNED_VM))
    assert {name: c.ok for name, c in checks.items()} == {
        "governor": None,  # VMs rarely expose cpufreq: unknown, not wrong
        "thp": False,
        "swappiness": False,
        "isolcpus": False,
        "nohz_full": False,
        "rcu_nocbs": False,
        "hugepages": False,
        "clocksource": False,
        "irqbalance": False,
        "virtualization": None,
    }
    assert checks["swappiness"].current == "60"
    assert checks["swappiness"].recommended == "0 or 1"
    assert checks["irqbalance"].current == "running"
    assert checks["isolcpus"].current is None
    assert checks["virtualization"].current == "firecracker"
    assert "noisier" in checks["virtualization"].why


def test_empty_fingerprint_is_unknown_except_kernel_parameters() -> None:
    checks = by_setting(tuning_checks({}))
    assert all(c.current is None for c in checks.values())
    assert {name for name, c in checks.items() if c.ok is not None} == {
        "isolcpus", "nohz_full", "rcu_nocbs",
    }
    assert all(checks[name].ok is False for name in ("isolcpus", "nohz_full", "rcu_nocbs"))


@pytest.mark.parametrize(
    ("setting", "value", "ok"),
    [
        ("swappiness", 0, True),
        ("swappiness", 1, True),
        ("swappiness", 2, False),
        ("swappiness", "1", True),  # a fingerprint that went through JSON as text
        ("swappiness", "lots", None),
        ("hugepages", 1, True),
        ("hugepages", "0", False),
        ("governor", "powersave", False),
        ("governor", "Performance\n", True),
        ("thp", "always", False),
        ("clocksource", "hpet", False),
        ("isolcpus", "", False),
        ("isolcpus", "managed_irq,domain,2-3", True),
        ("irqbalance", False, True),
        ("irqbalance", "unknown", None),
        ("virtualization", "kvm", None),
        ("virtualization", "none", True),
    ],
)
def test_single_settings(setting: str, value: Any, ok: bool | None) -> None:
    check = by_setting(tuning_checks({setting: value}))[setting]
    assert check.ok is ok


def test_every_recommendation_explains_itself() -> None:
    settings = [rec.setting for rec in RECOMMENDATIONS]
    assert len(settings) == len(set(settings))
    assert all(rec.why.strip() and rec.recommended.strip() for rec in RECOMMENDATIONS)


def test_checks_serialise_for_the_api() -> None:
    dumped = tuning_checks(UNTUNED_VM)[0].model_dump()
    assert dumped == {
        "setting": "governor",
        "current": None,
        "recommended": "performance",
        "ok": None,
        "why": dumped["why"],
    }
