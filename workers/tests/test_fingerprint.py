from pathlib import Path

import pytest
from fingerprint_support import TUNED_FINGERPRINT, TUNED_HOST

from latlab_workers.fingerprint import read_fingerprint

VM_CPUINFO = "".join(
    f"processor\t: {n}\n"
    "model name\t: AMD EPYC\n"
    "flags\t\t: fpu vme de pse tsc msr pae hypervisor\n\n"
    for n in range(2)
)


def build_tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.fixture
def tuned_host(tmp_path: Path) -> Path:
    return build_tree(tmp_path, TUNED_HOST)


@pytest.fixture
def untuned_vm(tmp_path: Path) -> Path:
    return build_tree(tmp_path, {
        "proc/cpuinfo": VM_CPUINFO,
        "proc/cmdline": "console=ttyS0 quiet\n",
        "proc/sys/kernel/osrelease": "6.8.0-1015-aws\n",
        "proc/sys/vm/nr_hugepages": "0\n",
        "proc/sys/vm/swappiness": "60\n",
        "proc/1/comm": "systemd\n",
        "proc/420/comm": "irqbalance\n",
        "sys/devices/system/node/node0/cpulist": "0-1\n",
        "sys/devices/system/clocksource/clocksource0/current_clocksource": "kvm-clock\n",
        "sys/devices/system/clocksource/clocksource0/available_clocksource": "kvm-clock tsc\n",
        "sys/kernel/mm/transparent_hugepage/enabled": "[always] madvise never\n",
        "sys/kernel/mm/transparent_hugepage/defrag": "always defer defer+madvise [madvise] never\n",
        "sys/class/dmi/id/sys_vendor": "QEMU\n",
        "sys/class/dmi/id/product_name": "Standard PC (Q35 + ICH9, 2009)\n",
    })


def test_tuned_host(tuned_host: Path) -> None:
    assert read_fingerprint(tuned_host) == TUNED_FINGERPRINT


def test_untuned_vm(untuned_vm: Path) -> None:
    assert read_fingerprint(untuned_vm) == {
        "cpu_model": "AMD EPYC",
        "cores": 2,
        "numa_nodes": 1,
        "kernel": "6.8.0-1015-aws",
        "governor": None,
        "thp": "always",
        "thp_defrag": "madvise",
        "hugepages": 0,
        "swappiness": 60,
        "isolcpus": None,
        "nohz_full": None,
        "rcu_nocbs": None,
        "cmdline_mitigations": None,
        "clocksource": "kvm-clock",
        "virtualization": "kvm",
        "irqbalance": True,
        "cpu_idle_driver": None,
    }


def test_empty_tree_gives_none_everywhere(tmp_path: Path) -> None:
    fingerprint = read_fingerprint(tmp_path)
    assert set(fingerprint.values()) == {None}


def test_unreadable_and_garbled_files_give_none(tuned_host: Path) -> None:
    (tuned_host / "proc/sys/vm/swappiness").write_text("sixty\n")
    (tuned_host / "proc/sys/kernel/osrelease").unlink()
    (tuned_host / "proc/sys/kernel/osrelease").mkdir()  # reading a directory raises
    fingerprint = read_fingerprint(tuned_host)
    assert fingerprint["swappiness"] is None
    assert fingerprint["kernel"] is None


def test_kernel_parameters_stop_at_init_arguments(tuned_host: Path) -> None:
    (tuned_host / "proc/cmdline").write_text(
        "isolcpus=1 isolcpus=2-3 quiet -- nohz_full=1 mitigations=off\n"
    )
    fingerprint = read_fingerprint(tuned_host)
    assert fingerprint["isolcpus"] == "2-3"  # the kernel keeps the last one
    assert fingerprint["nohz_full"] is None
    assert fingerprint["cmdline_mitigations"] is None


def test_arm_board_model_fallback(tmp_path: Path) -> None:
    build_tree(tmp_path, {
        "proc/cpuinfo": (
            "processor\t: 0\nFeatures\t: fp asimd\n\nprocessor\t: 1\nFeatures\t: fp asimd\n\n"
            "Hardware\t: BCM2835\nModel\t\t: Raspberry Pi 4 Model B Rev 1.4\n"
        ),
    })
    fingerprint = read_fingerprint(tmp_path)
    assert fingerprint["cpu_model"] == "Raspberry Pi 4 Model B Rev 1.4"
    assert fingerprint["cores"] == 2
    assert fingerprint["virtualization"] == "none"


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"sys/hypervisor/type": "xen\n"}, "xen"),
        ({"sys/class/dmi/id/sys_vendor": "VMware, Inc.\n"}, "vmware"),
        (
            {
                "sys/class/dmi/id/sys_vendor": "Microsoft Corporation\n",
                "sys/class/dmi/id/product_name": "Virtual Machine\n",
            },
            "hyperv",
        ),
        ({"sys/class/dmi/id/sys_vendor": "Amazon EC2\n"}, "vm"),
        (
            {
                "sys/class/dmi/id/sys_vendor": "Amazon EC2\n",
                "sys/devices/system/clocksource/clocksource0/available_clocksource":
                    "kvm-clock tsc\n",
            },
            "kvm",
        ),
        ({"proc/cmdline": "console=ttyS0 reboot=k panic=1 -- --firecracker-init\n"}, "firecracker"),
        ({"sys/bus/platform/drivers/virtio-mmio/bind": ""}, "firecracker"),
    ],
)
def test_names_the_hypervisor(tmp_path: Path, files: dict[str, str], expected: str) -> None:
    build_tree(tmp_path, {"proc/cpuinfo": VM_CPUINFO, **files})
    assert read_fingerprint(tmp_path)["virtualization"] == expected


def test_reads_this_machine() -> None:
    fingerprint = read_fingerprint()
    assert isinstance(fingerprint["kernel"], str) and fingerprint["kernel"]
    assert isinstance(fingerprint["cores"], int) and fingerprint["cores"] > 0
