"""The generic runner's pieces that need no broker."""

import json
import os
import subprocess
from pathlib import Path

import pytest
from suite_support import Quiet

from latlab_contract import JobSpec
from latlab_workers.errors import JobError
from latlab_workers.pinning import cpu_list
from latlab_workers.runner import HostIdentity, execute
from latlab_workers.scheduling import Scheduling
from latlab_workers.suites import load_suite
from latlab_workers.templates import TemplateError, render


def test_parameters_reach_programs_as_single_arguments() -> None:
    argv = render(["client", "--count", "{count}", "--addr", "{server.listening}"],
                  {"count": "10; rm -rf /", "server.listening": "127.0.0.1:5"})
    assert argv == ["client", "--count", "10; rm -rf /", "--addr", "127.0.0.1:5"]


def test_a_list_value_standing_alone_becomes_several_arguments() -> None:
    context = {"exe": ["{python}", "client.py"], "python": "/usr/bin/python3",
               "native": "{build_dir}/client", "build_dir": "/cache/x", "n": "5"}
    assert render(["{exe}", "-n", "{n}"], context) == [
        "/usr/bin/python3", "client.py", "-n", "5"]
    assert render(["{native}", "-n={n}"], context) == ["/cache/x/client", "-n=5"]
    with pytest.raises(TemplateError, match="is a list"):
        render(["--run={exe}"], context)


def test_unknown_and_cyclic_placeholders_are_refused() -> None:
    with pytest.raises(TemplateError, match="unknown value"):
        render(["client", "{nope}"], {})
    with pytest.raises(TemplateError, match="nest too deeply"):
        render(["{a}"], {"a": "{b}", "b": "{a}"})


# A throwaway suite of Python programs for the runner's generic program options: a server that
# holds memory on request and announces its CPUs, and a load that reports what it saw.
SERVER = '''
import json, os, socket
listener = socket.create_server(("127.0.0.1", 0))
cpus = ",".join(str(c) for c in sorted(os.sched_getaffinity(0)))
print(json.dumps({"listening": "127.0.0.1:%d" % listener.getsockname()[1], "cpus": cpus}),
      flush=True)
while True:
    connection, _ = listener.accept()
    megabytes = int(connection.recv(64))
    held = bytearray(megabytes << 20)  # zero pages: touch them so they are resident
    for page in range(0, len(held), 4096):
        held[page] = 1
    connection.sendall(b"ok")
    connection.close()
    del held
'''
LOAD = '''
import json, os, socket, sys
from hdrh.histogram import HdrHistogram
address, megabytes, server_cpus = sys.argv[1], sys.argv[2], sys.argv[3]
metrics = {"load_cpus": float(len(os.sched_getaffinity(0))),
           "load_policy": float(os.sched_getscheduler(0)),
           "load_priority": float(os.sched_getparam(0).sched_priority),
           "load_numa_local": float(open("/proc/self/numa_maps").read().split()[1] == "local")}
if address:
    host, port = address.rsplit(":", 1)
    with socket.create_connection((host, int(port))) as connection:
        connection.sendall(megabytes.encode())
        connection.recv(2)
    metrics["server_cpus"] = float(len(server_cpus.split(",")))
histogram = HdrHistogram(1, 3_600_000_000_000, 3)
histogram.record_value(1000)
print(json.dumps({"latency_hdr": histogram.encode().decode(), "metrics": metrics}))
'''
OPTIONS_SUITE = '''
format = 2
id = "options"
description = "the runner's program options"

[programs.server]
role = "server"
command = ["{python}", "server.py"]
ready = "stdout-json"
cpus = "{server_cpus}"
peak_rss = true
realtime = "{fifo}"
numa = "{numa}"

[programs.load]
role = "load"
command = ["{python}", "load.py", "{address}", "{megabytes}", "{announced}"]
output = "latlab-json"
cpus = "{load_cpus}"
realtime = "{fifo}"
numa = "{numa}"

[axes.with]
values = ["server", "none"]

[axes.with.vars]
server = { needs = ["server"], address = "{server.listening}", announced = "{server.cpus}" }
none = { needs = [], address = "", announced = "" }

[axes.megabytes]
param = "megabytes"

[series]
load = "load"
servers = ["{needs}"]

[params.megabytes]
type = "integer"
default = 0

[params.server_cpus]
type = "string"
default = ""

[params.load_cpus]
type = "string"
default = ""

[params.fifo]
type = "integer"
default = 0

[params.numa]
type = "string"
default = ""

[scenarios.default]
params = {}
'''


def _run_options_suite(tmp_path: Path, params: dict[str, object]) -> dict[str, object]:
    folder = tmp_path / "options"
    folder.mkdir()
    (folder / "suite.toml").write_text(OPTIONS_SUITE)
    (folder / "server.py").write_text(SERVER)
    (folder / "load.py").write_text(LOAD)
    suite = load_suite(folder)
    spec = JobSpec(job_id=1, attempt=1, project="default", suite="options", scenario="default",
                   params=params, repetitions=1, timeout_s=120)
    host = HostIdentity(name="test", tags=[], fingerprint={})
    result = execute(spec, suite, host, Quiet(), tmp_path / "cache")
    return {json.dumps(s.labels, sort_keys=True): s for s in result.series}


def test_programs_are_pinned_before_they_start_and_trials_say_so(tmp_path: Path) -> None:
    allowed = sorted(os.sched_getaffinity(0))
    series = _run_options_suite(tmp_path, {"server_cpus": str(allowed[0]),
                                           "load_cpus": str(allowed[-1])})
    (trial,) = series['{"megabytes": "0", "with": "server"}'].trials
    # What the programs saw of their own affinity, not what the runner meant to do.
    assert trial.metrics["server_cpus"] == trial.metrics["load_cpus"] == 1
    assert trial.tuning == {"cpus.server": f"applied: {allowed[0]}",
                            "cpus.load": f"applied: {allowed[-1]}"}
    (alone,) = series['{"megabytes": "0", "with": "none"}'].trials
    assert alone.tuning == {"cpus.load": f"applied: {allowed[-1]}"}
    assert "peak_rss_mb" not in alone.metrics  # no server ran for it


def test_sched_fifo_and_local_memory_are_set_before_exec_and_read_back(tmp_path: Path) -> None:
    """The trial's tuning says what the kernel kept, as the program itself sees it: here (root)
    SCHED_FIFO is allowed; where it is not, the line says refused and the program ran on the
    normal scheduler."""
    series = _run_options_suite(tmp_path, {"fifo": 7, "numa": "local"})
    (trial,) = series['{"megabytes": "0", "with": "server"}'].trials
    assert trial.tuning is not None
    if trial.metrics["load_policy"] == os.SCHED_FIFO:
        assert trial.metrics["load_priority"] == 7
        assert trial.tuning["sched.load"] == trial.tuning["sched.server"] == "applied: FIFO 7"
    else:
        assert trial.tuning["sched.load"].startswith("refused: SCHED_FIFO 7 not permitted")
    assert trial.metrics["load_numa_local"] == 1
    assert trial.tuning["numa.server"] == "applied: local"  # it waits to be stopped
    # The load may exit before the runner reads it (SCHED_FIFO outruns the runner on a busy
    # machine); then its line says it was not read, never that the policy was refused.
    assert trial.tuning["numa.load"] in ("applied: local", "not read: it had already exited")


def test_a_program_that_exited_before_its_reading_says_not_read() -> None:
    """An exited, not yet reaped program has no mappings left: its line says so, and never
    that the kernel refused its memory policy (CI's failure at stop 41)."""
    process = subprocess.Popen(["true"])
    try:
        os.waitid(os.P_PID, process.pid, os.WEXITED | os.WNOWAIT)  # exited, not reaped
        lines = Scheduling(name="load", fifo=7, local_memory=True).applied(process.pid)
    finally:
        process.wait()
    assert lines["numa.load"] == "not read: it had already exited"
    assert lines["sched.load"].startswith("refused: SCHED_FIFO 7")  # it never asked for it


def test_bad_scheduling_values_fail_the_job_naming_them(tmp_path: Path) -> None:
    with pytest.raises(JobError, match="realtime '120' is not a SCHED_FIFO priority"):
        _run_options_suite(tmp_path, {"fifo": 120})


def test_a_cpu_the_runner_may_not_use_is_refused_not_fatal(tmp_path: Path) -> None:
    missing = max(os.sched_getaffinity(0)) + 1
    series = _run_options_suite(tmp_path, {"load_cpus": str(missing)})
    (trial,) = series['{"megabytes": "0", "with": "server"}'].trials
    assert trial.tuning is not None
    assert trial.tuning["cpus.load"].startswith(f"refused: CPUs {missing} not available")
    assert trial.tuning["cpus.server"] == "off"
    assert trial.metrics["load_cpus"] == len(os.sched_getaffinity(0))


def test_auto_gives_the_server_and_the_load_cpus_of_their_own(tmp_path: Path) -> None:
    allowed = sorted(os.sched_getaffinity(0))
    if len(allowed) < 2:
        pytest.skip("needs 2 CPUs")
    half = len(allowed) // 2
    series = _run_options_suite(tmp_path, {"server_cpus": "auto", "load_cpus": "auto"})
    (trial,) = series['{"megabytes": "0", "with": "server"}'].trials
    assert trial.metrics["server_cpus"] == half  # as the programs saw their own affinity
    assert trial.metrics["load_cpus"] == len(allowed) - half
    assert trial.tuning is not None
    assert trial.tuning["cpus.server"].endswith(" (auto)")
    assert trial.tuning["cpus.server"] != trial.tuning["cpus.load"]


def test_shared_puts_the_server_and_the_load_on_one_cpu(tmp_path: Path) -> None:
    last = max(os.sched_getaffinity(0))
    series = _run_options_suite(tmp_path, {"server_cpus": "shared", "load_cpus": "shared"})
    (trial,) = series['{"megabytes": "0", "with": "server"}'].trials
    assert trial.metrics["server_cpus"] == trial.metrics["load_cpus"] == 1
    assert trial.tuning == {"cpus.server": f"applied: {last} (shared)",
                            "cpus.load": f"applied: {last} (shared)"}


def test_auto_on_one_cpu_is_refused_and_pins_nothing(tmp_path: Path) -> None:
    allowed = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(allowed)})
    try:
        series = _run_options_suite(tmp_path, {"server_cpus": "auto", "load_cpus": "auto"})
    finally:
        os.sched_setaffinity(0, allowed)
    (trial,) = series['{"megabytes": "0", "with": "server"}'].trials
    assert trial.tuning == {"cpus.server": f"refused: auto needs 2 CPUs, the runner may use "
                                           f"{min(allowed)}",
                            "cpus.load": f"refused: auto needs 2 CPUs, the runner may use "
                                         f"{min(allowed)}"}


def test_peak_rss_is_each_trials_own_though_the_server_runs_on(tmp_path: Path) -> None:
    """The two series with a server share it (same command, run one after the other): the
    200 MB it held during the first is not the second's peak."""
    series = _run_options_suite(tmp_path, {"megabytes": [200, 1]})
    (big,) = series['{"megabytes": "200", "with": "server"}'].trials
    (small,) = series['{"megabytes": "1", "with": "server"}'].trials
    assert big.metrics["peak_rss_mb"] >= 200
    assert small.metrics["peak_rss_mb"] < 100, small.metrics


def test_cpu_lists_are_read_or_refused() -> None:
    assert cpu_list("0-2,5") == {0, 1, 2, 5}
    for bad in ("a", "3-1", "1-", "-1", "0,,1", "5000"):
        with pytest.raises(ValueError):
            cpu_list(bad)


def test_a_confirmation_of_the_same_version_measures_it_beside_itself(tmp_path) -> None:
    from latlab_workers.runner import _cached_version
    from latlab_workers.suites import SUITES_DIR, load_suite

    echo = load_suite(SUITES_DIR / "echo")
    same = _cached_version(echo, echo.version, tmp_path)
    assert same is not None and same.labels == {"variant": "baseline"}
    assert same.suite is echo and same.build_dir == tmp_path / "echo" / echo.version
    # Another version runs only where the host still has its build and definition.
    assert _cached_version(echo, "0123456789abcdef", tmp_path) is None
    assert _cached_version(echo, None, tmp_path) is None
