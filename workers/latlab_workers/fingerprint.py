"""What makes a Linux host's latency numbers comparable, read from /proc and /sys.

Every read is tolerant: a file that is missing or unreadable gives None, never an exception,
because the fingerprint rides on each heartbeat and must not stop a runner. Nothing is
executed; everything comes from files under `root`, so tests can point it at a fake tree.
"""

import os
import re
from pathlib import Path

Fingerprint = dict[str, str | int | bool | None]

# DMI vendor or product substrings (lower case) that only a hypervisor reports.
_DMI_HYPERVISORS = (
    ("firecracker", "firecracker"),
    ("vmware", "vmware"),
    ("qemu", "kvm"),
    ("kvm", "kvm"),
    ("cloud hypervisor", "kvm"),
    ("xen", "xen"),
    ("virtual machine", "hyperv"),  # Microsoft Corporation / Virtual Machine
    ("hyper-v", "hyperv"),
)
# Paravirtual clocks a guest is offered, in available_clocksource.
_CLOCK_HYPERVISORS = (
    ("kvm-clock", "kvm"),
    ("hyperv_clocksource", "hyperv"),
    ("xen", "xen"),
)


def read_fingerprint(root: Path = Path("/")) -> Fingerprint:
    cpuinfo = _read(root / "proc/cpuinfo")
    cmdline_text = _read(root / "proc/cmdline")
    cmdline = _kernel_params(cmdline_text)
    thp = root / "sys/kernel/mm/transparent_hugepage"
    return {
        "cpu_model": _cpu_model(cpuinfo),
        "cores": _cores(cpuinfo, root),
        "numa_nodes": _numa_nodes(root),
        "kernel": _read(root / "proc/sys/kernel/osrelease"),
        "governor": _read(root / "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
        "thp": _bracketed(_read(thp / "enabled")),
        "thp_defrag": _bracketed(_read(thp / "defrag")),
        "hugepages": _read_int(root / "proc/sys/vm/nr_hugepages"),
        "swappiness": _read_int(root / "proc/sys/vm/swappiness"),
        "isolcpus": cmdline.get("isolcpus"),
        "nohz_full": cmdline.get("nohz_full"),
        "rcu_nocbs": cmdline.get("rcu_nocbs"),
        "cmdline_mitigations": cmdline.get("mitigations"),
        "clocksource": _read(
            root / "sys/devices/system/clocksource/clocksource0/current_clocksource"
        ),
        "virtualization": _virtualization(root, cpuinfo, cmdline_text),
        "irqbalance": _process_running(root, "irqbalance"),
        "cpu_idle_driver": _read(root / "sys/devices/system/cpu/cpuidle/current_driver"),
    }


def _read(path: Path) -> str | None:
    try:
        text = path.read_text(errors="replace").strip()
    except OSError:
        return None
    return text or None


def _read_int(path: Path) -> int | None:
    text = _read(path)
    try:
        return int(text) if text is not None else None
    except ValueError:
        return None


def _cpuinfo_fields(cpuinfo: str) -> list[tuple[str, str]]:
    fields = []
    for line in cpuinfo.splitlines():
        key, sep, value = line.partition(":")
        if sep:
            fields.append((key.strip(), value.strip()))
    return fields


def _cpu_model(cpuinfo: str | None) -> str | None:
    if cpuinfo is None:
        return None
    fields = _cpuinfo_fields(cpuinfo)
    # x86 says "model name"; ARM boards say "Model" (the board) or "Hardware" (the SoC).
    for wanted in ("model name", "Model", "Hardware"):
        for key, value in fields:
            if key == wanted and value:
                return value
    return None


def _cores(cpuinfo: str | None, root: Path) -> int | None:
    if cpuinfo is not None:
        count = sum(1 for key, _ in _cpuinfo_fields(cpuinfo) if key == "processor")
        if count:
            return count
    return os.cpu_count() if root == Path("/") else None


def _numa_nodes(root: Path) -> int | None:
    nodes = root / "sys/devices/system/node"
    try:
        count = sum(1 for p in nodes.iterdir() if re.fullmatch(r"node\d+", p.name))
    except OSError:
        return None
    return count or None


def _bracketed(text: str | None) -> str | None:
    """The selected value of a sysfs choice file: "always [madvise] never" -> "madvise"."""
    if text is None:
        return None
    start, end = text.find("["), text.find("]")
    if 0 <= start < end:
        return text[start + 1 : end]
    return text


def _kernel_params(cmdline: str | None) -> dict[str, str]:
    params: dict[str, str] = {}
    for word in (cmdline or "").split():
        if word == "--":  # what follows is for init, not the kernel
            break
        key, _, value = word.partition("=")
        params[key] = value.strip('"')  # the kernel honours the last occurrence
    return params


def _cpu_flags(cpuinfo: str | None) -> set[str]:
    for key, value in _cpuinfo_fields(cpuinfo or ""):
        if key in ("flags", "Features"):
            return set(value.split())
    return set()


def _virtualization(root: Path, cpuinfo: str | None, cmdline: str | None) -> str | None:
    """The hypervisor's name, "vm" when the guest cannot tell which, "none" on bare metal."""
    xen = _read(root / "sys/hypervisor/type")
    if xen:
        return xen.lower()  # paravirtual Xen guests lack the cpuid flag
    dmi = " ".join(
        text.lower()
        for name in ("sys_vendor", "product_name")
        if (text := _read(root / "sys/class/dmi/id" / name))
    )
    from_dmi = next((kind for needle, kind in _DMI_HYPERVISORS if needle in dmi), None)
    if from_dmi:
        return from_dmi
    # The cpuid flag is the dependable signal on x86 (ARM has none, so there DMI must do).
    if "hypervisor" not in _cpu_flags(cpuinfo):
        return "none" if cpuinfo is not None else None
    if _looks_like_firecracker(root, cmdline or ""):
        return "firecracker"
    model = (_cpu_model(cpuinfo) or "").lower()
    if "qemu" in model or "kvm" in model:
        return "kvm"
    clocks = _read(root / "sys/devices/system/clocksource/clocksource0/available_clocksource")
    return next((kind for needle, kind in _CLOCK_HYPERVISORS if needle in (clocks or "")), "vm")


def _looks_like_firecracker(root: Path, cmdline: str) -> bool:
    """Firecracker offers no DMI tables and virtio-mmio devices; its init often names it."""
    if "firecracker" in cmdline.lower():
        return True
    virtio_mmio = "virtio_mmio.device=" in cmdline or _exists(
        root / "sys/bus/platform/drivers/virtio-mmio"
    )
    return virtio_mmio and not _exists(root / "sys/class/dmi/id")


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except OSError:
        return False


def _process_running(root: Path, name: str) -> bool | None:
    try:
        pids = [p for p in (root / "proc").iterdir() if p.name.isdigit()]
    except OSError:
        return None
    seen_any = False
    for pid in pids:
        comm = _read(pid / "comm")  # processes end between listing and reading
        if comm is None:
            continue
        seen_any = True
        if comm == name:
            return True
    return False if seen_any else None
