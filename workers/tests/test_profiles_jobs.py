"""CPU profiles on request: a job with `profile` whose extra trial profiles a C server (perf) and
a Python load (py-spy) and counts nowhere else, a profiler that cannot run skipping only its
program, and async-profiler in the actor-iot suite's JVM and in a running JVM loaded through
jcmd."""

import json
import logging
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from hdrh.histogram import HdrHistogram
from suite_support import Quiet, build_cache_dir, build_suite

from latlab_contract import JobSpec
from latlab_contract.result import MAX_PROFILES, ProfileIn, RunCreate, folded_stacks
from latlab_workers import profiles
from latlab_workers.processes import program_env
from latlab_workers.runner import HostIdentity, execute
from latlab_workers.suites import SUITES_DIR, load_suite

# Its profiles' shares (a spinning function the most sampled) hold when nothing else takes
# the CPUs: other tests beside it do.
pytestmark = pytest.mark.serial

# A server that answers each byte after 5 ms of CPU in a function of its own; built with
# gcc -O2, so without frame pointers (perf unwinds it with DWARF). The spin is long beside a
# request's socket reads and writes, whose samples a slower machine makes heavier (a VM
# whose CPU is taken away lands its samples where the reads switch back in).
C_SERVER = r'''
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

__attribute__((noinline)) static unsigned long spin_in_c(double seconds) {
    volatile unsigned long n = 0;
    double end = now() + seconds;
    while (now() < end)
        for (int i = 0; i < 1000; i++) n++;
    return n;
}

int main(void) {
    int listener = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in address = {.sin_family = AF_INET};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof address;
    if (bind(listener, (struct sockaddr *)&address, length) || listen(listener, 8) ||
        getsockname(listener, (struct sockaddr *)&address, &length)) {
        perror("listen");
        return 1;
    }
    printf("{\"listening\": \"127.0.0.1:%d\"}\n", ntohs(address.sin_port));
    fflush(stdout);
    for (;;) {
        int connection = accept(listener, NULL, NULL);
        char byte;
        while (read(connection, &byte, 1) == 1) {
            spin_in_c(0.005);
            if (write(connection, &byte, 1) != 1) break;
        }
        close(connection);
    }
}
'''


# Loads that spin half a millisecond in a function of its own before each request: in Python,
# and in C on a thread it starts (perf must follow it), printing the histogram it is given.
LOAD = '''
import json, socket, sys, time
from hdrh.histogram import HdrHistogram

def spin_in_python(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass

address, seconds = sys.argv[1], float(sys.argv[2])
histogram = HdrHistogram(1, 3_600_000_000_000, 3)
host, port = address.rsplit(":", 1)
with socket.create_connection((host, int(port))) as connection:
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        spin_in_python(0.0005)
        sent = time.perf_counter_ns()
        connection.sendall(b"o")
        connection.recv(1)
        histogram.record_value(time.perf_counter_ns() - sent)
print(json.dumps({"latency_hdr": histogram.encode().decode()}))
'''


C_LOAD = r'''
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

__attribute__((noinline)) static unsigned long spin_in_c_load(double seconds) {
    volatile unsigned long n = 0;
    double end = now() + seconds;
    while (now() < end)
        for (int i = 0; i < 1000; i++) n++;
    return n;
}

static char *address;
static double seconds;

static void *requests(void *unused) {
    struct sockaddr_in server = {.sin_family = AF_INET};
    char *port = strrchr(address, ':');
    *port = 0;
    inet_pton(AF_INET, address, &server.sin_addr);
    server.sin_port = htons(atoi(port + 1));
    int connection = socket(AF_INET, SOCK_STREAM, 0);
    if (connect(connection, (struct sockaddr *)&server, sizeof server)) exit(1);
    char byte = 'o';
    for (double end = now() + seconds; now() < end;) {
        spin_in_c_load(0.0005);
        if (write(connection, &byte, 1) != 1 || read(connection, &byte, 1) != 1) exit(1);
    }
    return unused;
}

int main(int argc, char **argv) {
    address = argv[1];
    seconds = atof(argv[2]);
    pthread_t thread;
    pthread_create(&thread, NULL, requests, NULL);
    pthread_join(thread, NULL);
    printf("{\"latency_hdr\": \"%s\"}\n", argv[3]);
}
'''


SUITE = '''
format = 2
id = "spinners"
description = "a C server and a Python load that spin in functions of their own"

[programs.server]
role = "server"
command = ["{suite_dir}/server"]
ready = "stdout-json"

[programs.load]
role = "load"
command = ["{exe}", "{server.listening}", "{seconds}", "{hdr}"]
output = "latlab-json"

[axes.load]
values = ["c", "python"]

[axes.load.vars]
c = { exe = "{suite_dir}/load" }
python = { exe = ["{python}", "load.py"] }

[params.seconds]
type = "number"
default = 1.5

[params.hdr]
type = "string"
default = ""

[scenarios.default]
params = {}
'''


def _spinners(tmp_path: Path) -> Path:
    folder = tmp_path / "spinners"
    folder.mkdir()
    for name, text in (("suite.toml", SUITE), ("server.c", C_SERVER), ("load.c", C_LOAD),
                       ("load.py", LOAD)):
        (folder / name).write_text(text)
    for program in ("server", "load"):
        subprocess.run(["gcc", "-O2", "-pthread", "-o", str(folder / program),
                        str(folder / f"{program}.c")], check=True)
    return folder


def _job(folder: Path, cache: Path, repetitions: int = 2, **params: object) -> RunCreate:
    histogram = HdrHistogram(1, 3_600_000_000_000, 3)
    histogram.record_value(1000)
    spec = JobSpec(job_id=1, attempt=1, project="default", suite=folder.name,
                   scenario="default", params={"hdr": histogram.encode().decode(), **params},
                   repetitions=repetitions, timeout_s=300, profile=True)
    return execute(spec, load_suite(folder), HostIdentity(name="test", tags=[], fingerprint={}),
                   Quiet(), cache)


def _heaviest(profile: ProfileIn, count: int = 3) -> list[tuple[str, ...]]:
    return [frames for frames, _ in Counter(folded_stacks(profile.folded)).most_common(count)]


def _names(frames: tuple[str, ...], function: str) -> bool:
    """A frame of the stack is the function (or a compiler's clone of it: `f.constprop.0`)."""
    return any(frame == function or frame.startswith((f"{function}.", f"{function} ("))
               for frame in frames)


def _share(profile: ProfileIn, function: str, through: str | None = None) -> float:
    """The share of samples whose stack names `function` (and passes through `through`)."""
    stacks = folded_stacks(profile.folded)
    return sum(n for frames, n in stacks.items() if _names(frames, function)
               and (through is None or through in frames)) / sum(stacks.values())


def test_a_profiled_job_adds_profiles_and_no_trials(tmp_path: Path) -> None:
    result = _job(_spinners(tmp_path), tmp_path / "cache")
    assert [len(series.trials) for series in result.series] == [2, 2]  # the repetitions only
    by_program = {(p.labels["load"], p.program): p for p in result.profiles}
    assert sorted(by_program) == [("c", "load"), ("c", "server"), ("python", "load"),
                                  ("python", "server")]
    for load in ("c", "python"):
        server = by_program[(load, "server")]
        assert (server.tool, server.frequency_hz) == ("perf", 997)
        # Native: most samples name the function the server spends its time in, unwound
        # (DWARF) to the root, and next to nothing is left unnamed. Shares, not the rank of
        # single stacks: the spin's samples split over its leaves (clock_gettime, the vDSO),
        # the reads' over theirs, differently on every machine.
        assert _share(server, "spin_in_c") > 0.5, server.folded
        assert _share(server, "spin_in_c", through="_start") > 0.5, server.folded
        assert _share(server, "[unknown]") < 0.2, server.folded
    # The C load's requests run on a thread it starts: perf attached before it started.
    native = by_program[("c", "load")]
    assert native.tool == "perf"
    assert _share(native, "spin_in_c_load", through="start_thread") > 0.5, native.folded
    assert _share(native, "[unknown]") < 0.2, native.folded
    # Python: py-spy names the function (with its first line), in more of the load's samples
    # than any other function of the load.
    python = by_program[("python", "load")]
    assert (python.tool, python.frequency_hz) == ("py-spy", 1000)
    leaves: Counter[str] = Counter()
    for frames, n in folded_stacks(python.folded).items():
        if frames != ("[unknown]",):
            leaves[frames[-1].split(" (")[0]] += n
    assert leaves.most_common(1)[0][0] == "spin_in_python", python.folded
    stored = json.loads(result.model_dump_json(by_alias=True))
    assert len(stored["profiles"]) == 4


def test_a_profiler_that_cannot_run_skips_only_its_program(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    folder = _spinners(tmp_path)
    (tmp_path / "bin").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))  # no perf; py-spy is the runner's own
    with caplog.at_level(logging.WARNING):
        result = _job(folder, tmp_path / "cache", repetitions=1, seconds=0.5)
    assert [len(series.trials) for series in result.series] == [1, 1]
    assert [(p.labels["load"], p.program) for p in result.profiles] == [("python", "load")]
    assert "no perf profile of server: perf is not on the PATH" in caplog.text
    assert "no perf profile of load: perf is not on the PATH" in caplog.text


def test_perf_given_a_process_that_is_gone_skips_it(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    gone = subprocess.Popen(["true"])
    gone.wait()
    started = time.monotonic()
    with caplog.at_level(logging.WARNING), profiles.Session(
            tmp_path, program_env(), time.monotonic() + 60, {"load": "c"}) as session:
        session.attach("server", ["/usr/bin/true"], gone.pid, None)
        assert session.finish() == []
    assert time.monotonic() - started < 10
    assert "no perf profile of server: perf did not start" in caplog.text


@pytest.fixture(scope="module")
def actor_iot() -> Path:
    return build_suite(load_suite(SUITES_DIR / "actor-iot"), build_cache_dir(), 900)


def test_the_actor_iot_jvm_is_profiled_by_async_profiler(actor_iot: Path) -> None:
    spec = JobSpec(job_id=1, attempt=1, project="default", suite="actor-iot",
                   scenario="single", params={"mode": "sync", "messages": 20000},
                   repetitions=1, timeout_s=300, profile=True)
    result = execute(spec, load_suite(SUITES_DIR / "actor-iot"),
                     HostIdentity(name="test", tags=[], fingerprint={}), Quiet(),
                     build_cache_dir())
    ((series),) = result.series
    assert len(series.trials) == 1
    (profile,) = result.profiles
    assert (profile.program, profile.tool, profile.labels) == (
        "minitb", "async-profiler", series.labels)
    assert _share(profile, "minitb.Main.main") > 0, profile.folded[:2000]
    # The profile is flat (about 270 samples in 260 stacks here: a heaviest stack means
    # nothing); the platform's own code holds a good part of it (45 % here, the JIT compiler's
    # threads about as much), not only the JVM's.
    stacks = folded_stacks(profile.folded)
    platform = sum(n for frames, n in stacks.items()
                   if any(frame.startswith("minitb.") for frame in frames))
    assert platform >= 0.1 * sum(stacks.values()), profile.folded[:2000]


# A JVM that spins until its stdin closes, as a server would run.
SPIN_JAVA = '''
public class Spin {
    static long spinInJava(long nanos) {
        long end = System.nanoTime() + nanos, n = 0;
        while (System.nanoTime() < end) n++;
        return n;
    }
    public static void main(String[] args) throws Exception {
        Thread spinner = new Thread(() -> { while (true) spinInJava(1_000_000); });
        spinner.setDaemon(true);
        spinner.start();
        System.out.println("{}");
        System.out.flush();
        System.in.read();
    }
}
'''


def test_a_running_jvm_loads_the_agent_through_jcmd(tmp_path: Path, actor_iot: Path) -> None:
    if shutil.which("javac") is None:
        pytest.skip("needs a JDK")
    (tmp_path / "Spin.java").write_text(SPIN_JAVA)
    subprocess.run(["javac", "-d", str(tmp_path), str(tmp_path / "Spin.java")], check=True)
    argv = ["java", "-cp", str(tmp_path), "Spin"]
    jvm = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert jvm.stdout is not None and jvm.stdout.readline()  # it runs
        with profiles.Session(tmp_path, program_env(), time.monotonic() + 120,
                              {"load": "c"}) as session:
            session.attach("server", argv, jvm.pid, str(actor_iot / "target" / "async-profiler"))
            time.sleep(1.0)
            (profile,) = session.finish()
    finally:
        jvm.kill()
        jvm.wait()
    assert profile.tool == "async-profiler"
    assert _names(_heaviest(profile, 1)[0], "Spin.spinInJava"), profile.folded


def test_profilers_are_chosen_by_the_program_command() -> None:
    assert profiles.tool_for([sys.executable, "load.py"]) == "py-spy"
    assert profiles.tool_for(["/usr/bin/python3.11", "-m", "x"]) == "py-spy"
    assert profiles.tool_for(["java", "-jar", "x.jar"]) == "async-profiler"
    assert profiles.tool_for(["/cache/zig-server", "--listen", "x"]) == "perf"


def test_a_profiled_trial_is_left_out_when_it_could_overrun_the_job() -> None:
    now = time.monotonic()
    assert profiles.skip_reason(now + 600, 10.0, 0) is None
    assert profiles.skip_reason(now + 30, 10.0, 0) == "too little of the job's time is left"
    assert profiles.skip_reason(now + 600, 10.0, MAX_PROFILES) == (
        f"a result holds {MAX_PROFILES} profiles")
