"""A tuned lab host as the runner reads it: the files of its /proc and /sys, and the
fingerprint `read_fingerprint` reads from them (workers/tests/test_fingerprint.py), on which
every one of the api's tuning checks passes (backend/tests/test_tuning.py)."""

from typing import Any

TUNED_CPUINFO = "".join(
    f"processor\t: {n}\n"
    "vendor_id\t: GenuineIntel\n"
    "model name\t: Intel(R) Core(TM) i7-14700K\n"
    "flags\t\t: fpu vme de pse tsc msr pae constant_tsc nonstop_tsc\n\n"
    for n in range(4)
)
# Its /proc and /sys, by path below the root.
TUNED_HOST: dict[str, str] = {
    "proc/cpuinfo": TUNED_CPUINFO,
    "proc/cmdline": (
        "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro isolcpus=managed_irq,domain,2-3 "
        "nohz_full=2-3 rcu_nocbs=2-3 mitigations=off quiet\n"
    ),
    "proc/sys/kernel/osrelease": "6.14.0-29-generic\n",
    "proc/sys/vm/nr_hugepages": "15\n",
    "proc/sys/vm/swappiness": "1\n",
    "proc/1/comm": "systemd\n",
    "proc/812/comm": "sshd\n",
    "proc/self/comm": "python\n",
    "sys/devices/system/node/node0/cpulist": "0-1\n",
    "sys/devices/system/node/node1/cpulist": "2-3\n",
    "sys/devices/system/node/online": "0-1\n",
    "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor": "performance\n",
    "sys/devices/system/cpu/cpuidle/current_driver": "intel_idle\n",
    "sys/devices/system/clocksource/clocksource0/current_clocksource": "tsc\n",
    "sys/devices/system/clocksource/clocksource0/available_clocksource": "tsc hpet\n",
    "sys/kernel/mm/transparent_hugepage/enabled": "always madvise [never]\n",
    "sys/kernel/mm/transparent_hugepage/defrag": "always defer defer+madvise madvise [never]\n",
    "sys/class/dmi/id/sys_vendor": "ASUS\n",
    "sys/class/dmi/id/product_name": "System Product Name\n",
}
# What `read_fingerprint` reads from them.
TUNED_FINGERPRINT: dict[str, Any] = {
    "cpu_model": "Intel(R) Core(TM) i7-14700K",
    "cores": 4,
    "numa_nodes": 2,
    "kernel": "6.14.0-29-generic",
    "governor": "performance",
    "thp": "never",
    "thp_defrag": "never",
    "hugepages": 15,
    "swappiness": 1,
    "isolcpus": "managed_irq,domain,2-3",
    "nohz_full": "2-3",
    "rcu_nocbs": "2-3",
    "cmdline_mitigations": "off",
    "clocksource": "tsc",
    "virtualization": "none",
    "irqbalance": False,
    "cpu_idle_driver": "intel_idle",
}
