"""The instrumented loads: the Zig server as shipped is memcheck-clean, the -Duninit-request
build is not, and the reading of valgrind's reports is checked on C programs whose leak and
peak heap are known by construction; callgrind's against callgrind_annotate; strace's counts
against what a server does by construction, its summary against a golden one of strace's."""

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

from zig_http_support import SUITE, suite_command

DRIVER = SUITE.directory / "memcheck" / "memcheck.py"


def run_memcheck(built: Path, build: str, tmp_path: Path) -> dict:
    return run_document(built, build, tmp_path)["metrics"]


def run_document(built: Path, build: str, tmp_path: Path, tool: str = "memcheck") -> dict:
    run = subprocess.run(
        [sys.executable, str(DRIVER), "--server", str(built / f"zig-{build}" / "bin" /
                                                       "zig-server"),
         "--load", str(built / "hdr-load"), "--requests", "300", "--concurrency", "5",
         "--timeout", "30", "--tool", tool, "--workdir", str(tmp_path / build)],
        capture_output=True, text=True, timeout=600, check=False)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def run_zco(built: Path, zco_io: str) -> dict:
    """The document of the suite's own `memcheck-zco` load as a job of the `memcheck-zco`
    scenario runs it (the seed's ZCO design, its scheduler included), waiting on `zco_io`."""
    command = suite_command(built, "memcheck-zco", "memcheck-zco", {
        "memcheck_requests": 300, "concurrency": 5, "zco_io": zco_io})
    run = subprocess.run(command, cwd=SUITE.directory, capture_output=True, text=True,
                         timeout=600, check=False)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def test_the_shipped_server_is_memcheck_clean(built: Path, tmp_path: Path) -> None:
    metrics = run_memcheck(built, "clean", tmp_path)
    assert metrics["ok"] == 300 and metrics["errors"] == 0
    assert metrics["memcheck_errors"] == 0 and metrics["memcheck_error_kinds"] == 0
    assert metrics["definitely_lost_bytes"] == 0
    # Five connections' buffers (8.7 KB each) at least, and far from a leak's growth.
    assert 5 * 8192 <= metrics["peak_heap_bytes"] < 1 << 20


def test_the_uninitialised_request_build_is_caught_with_its_locations(
        built: Path, tmp_path: Path) -> None:
    document = run_document(built, "uninit", tmp_path)
    metrics = document["metrics"]
    assert metrics["ok"] == 300  # it serves as well: only memcheck sees the bug
    assert metrics["memcheck_errors"] >= 300  # at least one per request
    assert metrics["memcheck_error_kinds"] >= 1
    report = (tmp_path / "uninit" / "memcheck.xml").read_text()
    assert "UninitCondition" in report and "parseHead" in report
    # Where, as folded stacks: the fault's frame names the Zig source file and line.
    (profile,) = document["profiles"]
    assert (profile["program"], profile["tool"]) == ("server-zig", "memcheck")
    stacks = [line.rpartition(" ") for line in profile["folded"].splitlines()]
    assert sum(int(count) for _, _, count in stacks) == metrics["memcheck_errors"]
    faults = {stack.split(";")[-2] for stack, _, _ in stacks
              if stack.endswith(";UninitCondition")}
    assert any(re.fullmatch(r"parseHead \([\w/]+\.zig:\d+\)", f) for f in faults), faults


def test_under_io_uring_memcheck_cannot_see_the_kernel_fill_the_request_buffer(
        built: Path, tmp_path: Path) -> None:
    """The seed's setup: its ZCO design on io_uring. The shipped server, clean under epoll,
    reads each request from a buffer the kernel filled when the io_uring recv completed, a
    write valgrind does not see: memcheck calls the request's bytes uninitialised where the
    head is parsed. The same binary waiting with epoll (recv(2), which valgrind follows) is
    clean: the errors are valgrind's blindness, not the server's."""
    uring = run_zco(built, "uring")
    metrics = uring["metrics"]
    assert metrics["ok"] == 300 and metrics["errors"] == 0
    assert metrics["memcheck_errors"] >= 300 and metrics["definitely_lost_bytes"] == 0
    (profile,) = uring["profiles"]
    assert (profile["program"], profile["tool"]) == ("server-zco", "memcheck")
    frames = {frame.split(" (")[0] for line in profile["folded"].splitlines()
              for frame in line.rpartition(" ")[0].split(";")}
    assert "parseHead" in frames, frames
    zco_epoll = run_zco(built, "epoll")["metrics"]
    assert zco_epoll["ok"] == 300 and zco_epoll["memcheck_errors"] == 0


def test_callgrind_counts_the_servers_instructions_as_callgrind_annotate_does(
        built: Path, tmp_path: Path) -> None:
    """Instructions while serving, per request, and each function's own, checked against
    valgrind's own reading of the same file (callgrind_annotate, summed by function)."""
    document = run_document(built, "clean", tmp_path, tool="callgrind")
    metrics = document["metrics"]
    assert metrics["ok"] == 300 and metrics["errors"] == 0
    assert metrics["instructions_per_request"] == metrics["instructions"] / 300
    annotated = subprocess.run(
        ["callgrind_annotate", "--threshold=100", str(tmp_path / "clean" / "callgrind.out")],
        capture_output=True, text=True, check=True).stdout
    totals = re.search(r"([\d,]+) \(100\.0%\)\s+PROGRAM TOTALS", annotated)
    assert totals and int(totals.group(1).replace(",", "")) == metrics["instructions"]
    theirs: dict[str, int] = {}
    for cost, function in re.findall(r"^\s*([\d,]+) \(\s*[\d.]+%\)\s+\S*?:(\S+)", annotated,
                                     re.MULTILINE):
        theirs[function] = theirs.get(function, 0) + int(cost.replace(",", ""))
    (profile,) = document["profiles"]
    assert (profile["program"], profile["tool"]) == ("server-zig", "callgrind")
    ours: dict[str, int] = {}
    for line in profile["folded"].splitlines():
        frame, _, cost = line.rpartition(" ")
        name = frame.rsplit(" (", 1)[0]
        ours[name] = ours.get(name, 0) + int(cost)
    assert sum(ours.values()) == metrics["instructions"]  # every instruction, once
    top = sorted(theirs, key=theirs.__getitem__, reverse=True)[:5]
    assert {name: ours.get(name) for name in top} == {name: theirs[name] for name in top}


def _calls(document: dict) -> dict[str, int]:
    (profile,) = document["profiles"]
    assert profile["tool"] == "strace"
    return {name: int(count) for name, count in
            (line.rsplit(" ", 1) for line in profile["folded"].splitlines())}


def test_strace_counts_each_servers_system_calls_while_it_serves(built: Path) -> None:
    """The suite's own strace loads (the `syscalls` scenario's), 300 requests on 5 keep-alive
    connections: the epoll server answers each request with one sendto(2), Go's with one
    write(2), plus the writes that wake its poller, as many as the scheduler needed (15 with
    other tests running beside it; a response in two writes would be 600 and more); each
    accepts its 5 connections."""
    answers = {"strace-zig": ("sendto", range(300, 306)), "strace-go": ("write", range(300, 450))}
    for program, (answer, expected) in answers.items():
        command = suite_command(built, program, "syscalls", {
            "memcheck_requests": 300, "concurrency": 5})
        run = subprocess.run(command, cwd=SUITE.directory, capture_output=True, text=True,
                             timeout=300, check=False)
        assert run.returncode == 0, run.stderr
        document = json.loads(run.stdout)
        metrics, calls = document["metrics"], _calls(document)
        assert (metrics["ok"], metrics["errors"]) == (300, 0), program
        assert sum(calls.values()) == metrics["syscalls"], program
        assert metrics["syscalls_per_request"] == metrics["syscalls"] / 300
        assert calls[answer] in expected, (program, calls)
        assert calls["accept4"] >= 5, (program, calls)


def test_strace_summaries_are_read_right() -> None:
    """strace 6.1's `-c -f` summary of Go's server serving 2,000 requests (golden/): the
    figures as printed in its rows and total."""
    total, failed, calls = _load_driver().read_strace(
        Path(__file__).parent / "golden" / "strace-c-go-server.txt")
    assert (total, failed) == (6001, 348)
    assert (calls["futex"], calls["write"], calls["read"], calls["openat"]) == (244, 2000, 2698, 1)
    assert len(calls) == 22


LEAKY = r"""
#include <stdlib.h>
#include <string.h>
static char *kept;
int main(void) {
    kept = malloc(1000);                  /* still reachable: not a definite leak */
    char *lost = malloc(100);             /* definitely lost: its only pointer is dropped */
    memset(lost, 1, 100);
    lost = NULL;
    char *peak = malloc(3 << 20);         /* the heap's peak: 3 MB + 1100 bytes */
    memset(peak, 2, 3 << 20);
    free(peak);
    if (kept[0] == 7)                     /* an uninitialised byte decides a branch: 1 error */
        return 1;
    return 0;
}
"""


def test_valgrind_reports_are_read_right(tmp_path: Path) -> None:
    driver = _load_driver()
    source = tmp_path / "leaky.c"
    source.write_text(LEAKY)
    subprocess.run(["gcc", "-O0", "-g", "-o", str(tmp_path / "leaky"), str(source)], check=True)
    xml, massif = tmp_path / "memcheck.xml", tmp_path / "massif.out"
    subprocess.run(["valgrind", "--tool=memcheck", "--leak-check=full", "--show-leak-kinds=all",
                    "--xml=yes", f"--xml-file={xml}", str(tmp_path / "leaky")], check=True,
                   capture_output=True)
    subprocess.run(["valgrind", "--tool=massif", f"--massif-out-file={massif}",
                    str(tmp_path / "leaky")], check=True, capture_output=True)
    errors, kinds, lost, folded = driver.read_memcheck(xml)
    assert (errors, kinds, lost) == (1, 1, 100)
    # The error's stack, root first, its kind the leaf: the branch on line 13 of leaky.c.
    assert folded.splitlines()[0].endswith("main (leaky.c:13);UninitCondition 1"), folded
    peak = driver.read_massif(massif)
    assert 3 << 20 <= peak <= (3 << 20) + 1100


def _load_driver():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("zig_http_memcheck", DRIVER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
