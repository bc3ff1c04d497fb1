"""The OS counters the runner stores with every trial, checked against what the programs
measured of themselves, and a disturbance injected into one trial of a job: another process
takes the CPUs, the trial is marked with the reason, the others are not."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from suite_support import Quiet

from latlab_contract import JobSpec
from latlab_contract.result import SeriesIn, TrialIn
from latlab_workers import counters
from latlab_workers.runner import HostIdentity, execute
from latlab_workers.suites import load_suite

# It tells a trial other processes took the CPUs from: other tests beside it would be such
# processes.
pytestmark = pytest.mark.serial

# Spins on CPU for the seconds given, then prints its own CPU time (CLOCK_PROCESS_CPUTIME_ID)
# and waits to be told to exit, so the watch can read it while it is alive.
SPINNER = '''
import sys, threading, time
def spin(seconds):
    end = time.thread_time() + seconds
    while time.thread_time() < end:
        pass
threads = [threading.Thread(target=spin, args=(float(sys.argv[1]),)) for _ in range(2)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()  # both threads end before the reading: their share must stay counted
print(time.process_time(), flush=True)
sys.stdin.readline()
'''


def test_a_process_cpu_time_is_its_own_ended_threads_included() -> None:
    process = subprocess.Popen([sys.executable, "-c", SPINNER, "0.3"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
    try:
        watch = counters.ProcessWatch(process.pid)
        assert process.stdout is not None
        own = float(process.stdout.readline())  # the process's own clock, threads summed
        used = watch.used()
    finally:
        process.communicate("\n", timeout=10)
    assert used is not None and own >= 0.6
    # /proc counts in clock ticks (10 ms here); the watch began after the interpreter started.
    assert own - 0.15 <= used.cpu_s <= own + 0.02, (used, own)
    assert used.voluntary + used.involuntary > 0 and used.migrations is not None


def test_the_load_counters_are_its_rusage() -> None:
    before = counters.of_children()
    completed = subprocess.run([sys.executable, "-c", SPINNER, "0.2"], input="\n",
                               capture_output=True, text=True, check=True)
    used = counters.of_children() - before
    own = float(completed.stdout)
    assert own - 0.01 <= used.cpu_s <= own + 0.2, (used, own)  # + the interpreter's start
    assert used.page_faults > 0 and used.migrations is None


def _trial(others: float | None) -> TrialIn:
    metrics = {} if others is None else {counters.OTHERS: others}
    return TrialIn.model_validate({"latency": {"samples_ns": [1000]}, "metrics": metrics})


def test_a_trial_is_disturbed_when_others_took_half_a_cpu_more_than_in_the_median_one() -> None:
    series = SeriesIn(trials=[_trial(v) for v in (0.1, 0.2, 0.75, 0.15, 0.65)])
    marked = [t.disturbed for t in counters.mark_disturbed(series).trials]
    assert [m is not None for m in marked] == [False, False, True, False, False], marked
    assert "0.75 CPUs" in (marked[2] or "") and "0.20 during the series' median" in (
        marked[2] or "")
    # Two trials have no median to stand out from; a trial without the figure is never marked.
    assert all(t.disturbed is None for t in counters.mark_disturbed(
        SeriesIn(trials=[_trial(0.0), _trial(2.0)])).trials)
    assert all(t.disturbed is None for t in counters.mark_disturbed(
        SeriesIn(trials=[_trial(None), _trial(0.0), _trial(0.0), _trial(None)])).trials)


# A server that answers each request after spinning a millisecond, and a load that sends
# requests for 0.6 s; in its third trial (the marker file counts them) the load first starts
# one CPU hog per CPU the runner may use, through a go-between, so that they are not its
# children (the runner would count a reaped child's CPU as the load's), and kills them at its
# end: the host's other processes take the CPUs.
SERVER = '''
import json, socket, time
listener = socket.create_server(("127.0.0.1", 0))
print(json.dumps({"listening": "127.0.0.1:%d" % listener.getsockname()[1]}), flush=True)
while True:
    connection, _ = listener.accept()
    with connection:
        while connection.recv(1):
            end = time.perf_counter() + 0.001
            while time.perf_counter() < end:
                pass
            connection.sendall(b"k")
'''
LOAD = '''
HOGS = """
import os, subprocess, sys
HOG = 'import time; end = time.monotonic() + 10; exec("while time.monotonic() < end: pass")'
for _ in os.sched_getaffinity(0):  # each ends by itself in 10 s, should the load not kill it
    print(subprocess.Popen([sys.executable, "-c", HOG], start_new_session=True,
                           stdin=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL).pid)
"""
import json, os, socket, subprocess, sys, time
from hdrh.histogram import HdrHistogram
address, marker = sys.argv[1], sys.argv[2]
trial = int(open(marker).read()) if os.path.exists(marker) else 0
open(marker, "w").write(str(trial + 1))
hogs = []
if trial == 2:  # started by a go-between that exits at once: they are nobody's children here
    hogs = [int(pid) for pid in subprocess.run([sys.executable, "-c", HOGS],
                                               capture_output=True, text=True).stdout.split()]
histogram = HdrHistogram(1, 3_600_000_000_000, 3)
host, port = address.rsplit(":", 1)
with socket.create_connection((host, int(port))) as connection:
    end = time.perf_counter() + 0.6
    while time.perf_counter() < end:
        sent = time.perf_counter_ns()
        connection.sendall(b"o")
        connection.recv(1)
        histogram.record_value(time.perf_counter_ns() - sent)
for hog in hogs:
    os.kill(hog, 9)
print(json.dumps({"latency_hdr": histogram.encode().decode()}))
'''
SUITE = '''
format = 2
id = "disturbed"
description = "one trial of five disturbed by CPU hogs"

[programs.server]
role = "server"
command = ["{python}", "server.py"]
ready = "stdout-json"

[programs.load]
role = "load"
command = ["{python}", "load.py", "{server.listening}", "{marker}"]
output = "latlab-json"

[params.marker]
type = "string"
default = ""

[scenarios.default]
params = {}
'''


def test_a_trial_other_processes_took_the_cpus_from_is_marked_and_says_why(
        tmp_path: Path) -> None:
    folder = tmp_path / "disturbed"
    folder.mkdir()
    for name, text in (("suite.toml", SUITE), ("server.py", SERVER), ("load.py", LOAD)):
        (folder / name).write_text(text)
    spec = JobSpec(job_id=1, attempt=1, project="default", suite="disturbed",
                   scenario="default", params={"marker": str(tmp_path / "trial")},
                   repetitions=5, timeout_s=120)
    result = execute(spec, load_suite(folder), HostIdentity(name="test", tags=[],
                                                            fingerprint={}),
                     Quiet(), tmp_path / "cache")
    (series,) = result.series
    others = [t.metrics[counters.OTHERS] for t in series.trials]
    marked = [t.disturbed is not None for t in series.trials]
    assert marked == [False, False, True, False, False], (others, [
        {k: round(v, 3) for k, v in t.metrics.items() if k.startswith("cpu_s")}
        for t in series.trials])
    assert "other processes used" in (series.trials[2].disturbed or "")
    for trial in series.trials:
        assert {"cpu_s.server", "cpu_s.load", "switches_per_s.server", "migrations.server",
                "page_faults.load", "cpu_us_per_op.server"} <= set(trial.metrics), trial.metrics
        # The server spins a millisecond an answer: its CPU per request is at least that.
        assert trial.metrics["cpu_us_per_op.server"] >= 900, trial.metrics
        # CPU use is CPU time over the trial's wall time; a spinning server is busy most of it.
        assert 0 < trial.metrics["cpu_pct.server"] <= 100 * 2 + 1, trial.metrics
    assert result.metric_info["cpu_s.server"].unit == "s"
    assert result.metric_info[counters.OTHERS].direction == "lower"
    assert json.loads(result.model_dump_json(by_alias=True))["series"][0]["trials"][2][
        "disturbed"]
    assert os.path.exists(tmp_path / "trial")
