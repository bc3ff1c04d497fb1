"""What makes two runs' machines hard to compare: the keys of a host's fingerprint (the
runner's `fingerprint.read`) and of a harness's own context whose values must agree, and the
ones that differ between two of them. The comparison's warnings and the lab's host annotations
both read them."""

from typing import Any

# Fingerprint keys whose difference makes two hosts' numbers hard to compare.
COMPARABILITY_KEYS = ("cpu_model", "cores", "kernel", "governor", "thp", "isolcpus",
                      "nohz_full", "rcu_nocbs", "hugepages", "swappiness", "clocksource",
                      "virtualization")

# What a harness says it ran on (`RunCreate.harness.context`: Google Benchmark's context,
# go's cpu line, pytest-benchmark's machine_info) that makes two runs hard to compare.
HARNESS_COMPARABILITY_KEYS = ("cpu_model", "cpu_count", "build_type")


def differences(before: dict[str, Any], after: dict[str, Any],
                keys: tuple[str, ...] = COMPARABILITY_KEYS) -> list[tuple[str, Any, Any]]:
    """The keys whose values differ between two host fingerprints (or harness contexts),
    with both values; a key missing on one side is None there."""
    return [(key, before.get(key), after.get(key)) for key in keys
            if before.get(key) != after.get(key)]
