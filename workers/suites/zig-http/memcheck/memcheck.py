"""The zig-http suite's instrumented load: runs the Zig server under valgrind twice, memcheck then
massif, drives a bounded number of requests at it with hdr-load each time, stops it with
SIGTERM (it then closes every connection and frees what it allocated), and prints one
latlab-json document:

    memcheck_errors        errors memcheck reported while serving (every occurrence; leaks
                           are counted apart)
    memcheck_error_kinds   distinct errors (memcheck's "contexts")
    definitely_lost_bytes  bytes memcheck found definitely lost at exit
    peak_heap_bytes        massif's largest heap snapshot (mem_heap_B: what the program asked
                           malloc for, at its peak)
    ok, errors, timeouts   the requests, as hdr-load counted them under memcheck

and, when memcheck found errors, where: a `profiles` entry (tool `memcheck`, program
`server-zig`) whose folded stacks are the errors' own, root first, each frame `function
(file:line)`, the error's kind as the leaf, counted by occurrences, so the lab draws them as a
flame graph and lists the locations (the seed's report named `main.zig:182`).

The latency histogram is the requests' under memcheck (tens of times slower than the server
alone): it shows the run happened, it is not the server's latency.

With `--tool callgrind` it runs the server once under callgrind instead, counting
instructions only while the requests are served (instrumentation switched on once the server
is up), and reports

    instructions              instructions the server executed while serving
    instructions_per_request  that, over the requests answered
    ok, errors, timeouts      the requests, as hdr-load counted them

with the server's functions by the instructions each executed itself (callgrind's self cost)
as a `profiles` entry of tool `callgrind`: one frame each, `function (file)`.

With `--tool strace` it runs the server (Zig's or Go's) as it is and counts its system calls
while the requests are served (`strace -f -c` attached to every thread once the server is up,
detached before it is stopped), and reports

    syscalls               system calls the server made while serving
    syscalls_per_request   that, over the requests answered
    syscall_errors         those that failed (EAGAIN on a drained socket, say)
    ok, errors, timeouts   the requests, as hdr-load counted them

with the calls by name as a `profiles` entry of tool `strace`, one frame each. The latency
histogram is the requests' under strace (ptrace stops the server at every call): not the
server's latency.

    memcheck.py --server BIN --load HDR_LOAD --requests N --concurrency C --timeout S
                [--tool memcheck|callgrind|strace] [--program NAME] [--workdir DIR]
                [-- SERVER_ARG ...]

`--program` names the server in the profiles (server-zig, or server-zco: the same binary
with the seed's ZCO flags, given after `--`). Under io_uring (`--io uring`) the
kernel writes a request into the server's buffer when the operation completes, a write
valgrind does not see: memcheck then reports every read of that buffer as uninitialised,
though the server reads only bytes the kernel wrote. The epoll build reads the same bytes
through recv(2), whose writes valgrind does see, and is clean.

Exit status 0 when the tool's runs finished and were read (whatever they found), 1 when they
could not be, 2 for bad arguments.
"""

import argparse
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from pathlib import Path

READY_S = 60  # valgrind takes seconds to start a program
STACK_FRAMES = 12  # of an error's stack, the innermost kept
STOP_S = 60


class Failure(Exception):
    pass


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", required=True, type=Path)
    parser.add_argument("--load", required=True, type=Path)
    parser.add_argument("--requests", type=int, required=True)
    parser.add_argument("--concurrency", type=int, required=True)
    parser.add_argument("--timeout", type=int, default=30)
    parser.add_argument("--tool", choices=("memcheck", "callgrind", "strace"),
                        default="memcheck")
    parser.add_argument("--workdir", type=Path, help="keep valgrind's files here")
    parser.add_argument("--program", default="server-zig",
                        help="the suite's name for the server valgrind runs")
    parser.add_argument("server_args", nargs="*", metavar="SERVER_ARG",
                        help="more arguments of the server, after --")
    args = parser.parse_args(argv)
    if args.requests < 1 or args.concurrency < 1 or args.timeout < 1:
        print("memcheck: requests, concurrency and timeout must be >= 1", file=sys.stderr)
        return 2
    needed = "strace" if args.tool == "strace" else "valgrind"
    if shutil.which(needed) is None:
        print(f"memcheck: {needed} is not installed", file=sys.stderr)
        return 2
    try:
        if args.workdir is not None:
            args.workdir.mkdir(parents=True, exist_ok=True)
            document = measure(args, args.workdir)
        else:
            with tempfile.TemporaryDirectory(prefix="zig-http-memcheck-") as work:
                document = measure(args, Path(work))
    except Failure as error:
        print(f"memcheck: {error}", file=sys.stderr)
        return 1
    print(json.dumps(document))
    return 0


def measure(args: argparse.Namespace, work: Path) -> dict[str, object]:
    if args.tool == "callgrind":
        return count_instructions(args, work)
    if args.tool == "strace":
        return count_syscalls(args, work)
    xml = work / "memcheck.xml"
    load = serve_under(["valgrind", "--tool=memcheck", "--leak-check=full", "--show-leak-kinds=all",
                        "--error-limit=no", "--xml=yes", f"--xml-file={xml}",
                        f"--log-file={work / 'memcheck.log'}"], args, work / "memcheck")
    errors, kinds, lost, folded = read_memcheck(xml)
    massif = work / "massif.out"
    serve_under(["valgrind", "--tool=massif", f"--massif-out-file={massif}",
                 f"--log-file={work / 'massif.log'}"], args, work / "massif")
    metrics = {key: load["metrics"][key] for key in ("ok", "errors", "timeouts")}
    metrics.update({"memcheck_errors": errors, "memcheck_error_kinds": kinds,
                    "definitely_lost_bytes": lost, "peak_heap_bytes": read_massif(massif)})
    document: dict[str, object] = {"latency_hdr": load["latency_hdr"], "metrics": metrics}
    if folded:
        document["profiles"] = [{"program": args.program, "tool": "memcheck",
                                 "folded": folded}]
    return document


def count_instructions(args: argparse.Namespace, work: Path) -> dict[str, object]:
    out = work / "callgrind.out"
    load = serve_under(["valgrind", "--tool=callgrind", "--instr-atstart=no",
                        f"--callgrind-out-file={out}", f"--log-file={work / 'callgrind.log'}"],
                       args, work / "callgrind", on_ready=_instrument)
    total, functions = read_callgrind(out)
    metrics = {key: load["metrics"][key] for key in ("ok", "errors", "timeouts")}
    metrics.update({"instructions": total,
                    "instructions_per_request": total / max(metrics["ok"], 1)})
    folded = "".join(f"{name} {cost}\n" for name, cost in sorted(functions.items()) if cost)
    document: dict[str, object] = {"latency_hdr": load["latency_hdr"], "metrics": metrics}
    if folded:
        document["profiles"] = [{"program": args.program, "tool": "callgrind",
                                 "folded": folded}]
    return document


def _instrument(pid: int) -> None:
    """Switches callgrind's instrumentation on in the running server."""
    done = subprocess.run(["callgrind_control", "--instr=on", str(pid)], capture_output=True,
                          text=True, timeout=READY_S, check=False)
    if done.returncode != 0:
        raise Failure(f"callgrind_control --instr=on failed: {done.stderr[-300:]}")


def count_syscalls(args: argparse.Namespace, work: Path) -> dict[str, object]:
    out = work / "strace.out"
    tracers: list[subprocess.Popen] = []

    def attach(pid: int) -> Callable[[], None]:
        tracer = subprocess.Popen(
            ["strace", "-f", "-c", "-q", "-o", str(out), "-p", str(pid)],
            stdout=subprocess.DEVNULL, stderr=open(work / "strace.log", "wb"),  # noqa: SIM115
            start_new_session=True)
        tracers.append(tracer)
        _wait_traced(pid, tracer, work / "strace.log")

        def detach() -> None:  # strace prints its summary when interrupted
            tracer.send_signal(signal.SIGINT)
            tracer.wait(timeout=STOP_S)
        return detach

    try:
        load = serve_under([], args, work / "strace", on_ready=attach)
    finally:
        for tracer in tracers:
            if tracer.poll() is None:
                tracer.kill()
                tracer.wait()
    total, failed, calls = read_strace(out)
    metrics = {key: load["metrics"][key] for key in ("ok", "errors", "timeouts")}
    metrics.update({"syscalls": total, "syscall_errors": failed,
                    "syscalls_per_request": total / max(metrics["ok"], 1)})
    folded = "".join(f"{name} {count}\n" for name, count in sorted(calls.items()) if count)
    document: dict[str, object] = {"latency_hdr": load["latency_hdr"], "metrics": metrics}
    if folded:
        document["profiles"] = [{"program": args.program, "tool": "strace", "folded": folded}]
    return document


def _wait_traced(pid: int, tracer: subprocess.Popen, log: Path) -> None:
    """Until strace has attached to every thread of `pid`."""
    deadline = time.monotonic() + READY_S
    while time.monotonic() < deadline:
        if tracer.poll() is not None:
            raise Failure(f"strace exited with {tracer.returncode}: "
                          f"{log.read_text(errors='replace')[-500:]}")
        tasks = list(Path(f"/proc/{pid}/task").glob("*/status"))
        try:
            traced = [int(line.split()[1]) for task in tasks
                      for line in task.read_text().splitlines()
                      if line.startswith("TracerPid:")]
        except OSError:  # a thread ended as it was read
            traced = []
        if traced and all(traced):
            return
        time.sleep(0.05)
    raise Failure(f"strace did not attach to the server in {READY_S} s")


def read_strace(path: Path) -> tuple[int, int, dict[str, int]]:
    """(calls, failed calls, calls by name) from `strace -c`'s summary: a row per call,
    `% time  seconds  usecs/call  calls  [errors]  syscall`, then the `total` row."""
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError as error:
        raise Failure(f"strace wrote no summary ({error})") from error
    calls: dict[str, int] = {}
    for line in lines:
        fields = line.split()
        if len(fields) not in (5, 6) or not fields[3].isdigit():
            continue  # the header, the rules
        failed = int(fields[4]) if len(fields) == 6 else 0
        if fields[-1] == "total":
            if sum(calls.values()) != int(fields[3]):
                raise Failure(f"{path}: the rows add up to {sum(calls.values())} calls, "
                              f"its total says {fields[3]}")
            return int(fields[3]), failed, calls
        calls[fields[-1]] = int(fields[3])
    raise Failure(f"{path} has no total: strace did not finish")


def read_callgrind(path: Path) -> tuple[int, dict[str, int]]:
    """(the total instructions, each function's own) from callgrind's output (format 1,
    one event: Ir). Names may be compressed: `fn=(7) name` defines 7, `fn=(7)` reuses it
    (functions share one space with `cfn`, files with `fi`, `fe`, `cfl` and `cfi`).
    A cost line after `calls=` is the call's inclusive cost, not the caller's own."""
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError as error:
        raise Failure(f"callgrind wrote no output ({error})") from error
    names: dict[tuple[str, str], str] = {}
    file = function = "?"
    own: dict[str, int] = {}
    total: int | None = None
    call_cost = False
    for line in lines:
        key, _, value = line.partition("=")
        if key in ("fl", "fi", "fe", "fn"):
            named = _name(names, "fl" if key != "fn" else "fn", value)
            if key == "fl":
                file = named
            elif key == "fn":
                function = _clean(f"{named} ({Path(file).name})" if file != "???" else named)
            continue
        if key == "calls":
            call_cost = True
            continue
        if key in ("cfl", "cfi", "cfn", "ob", "cob"):  # defined here, used later by fl/fn
            _name(names, {"cfl": "fl", "cfi": "fl", "cfn": "fn"}.get(key, "ob"), value)
            continue
        if line.startswith(("totals:", "summary:")):
            total = int(line.split(":", 1)[1].split()[0])
            continue
        fields = line.split()
        if len(fields) >= 2 and (line[0].isdigit() or line[0] in "+-*"):
            if call_cost:
                call_cost = False
                continue
            own[function] = own.get(function, 0) + int(fields[1])
    if total is None:
        raise Failure(f"{path} has no totals: callgrind did not finish")
    return total, own


def _name(names: dict[tuple[str, str], str], kind: str, value: str) -> str:
    """A compressed name: `(id) name` defines it, `(id)` reuses it."""
    if value.startswith("("):
        ref, _, name = value.partition(")")
        key = (kind, ref + ")")
        if name.strip():
            names[key] = name.strip()
        return names.get(key, "?")
    return value.strip() or "?"


def serve_under(prefix: list[str], args: argparse.Namespace, stem: Path,
                on_ready: Callable[[int], Callable[[], None] | None] | None = None) -> dict:
    """Starts the server under `prefix` (valgrind and its tool; nothing: the server alone),
    calls `on_ready(its pid)` once it is up, drives the requests, calls what `on_ready`
    returned (if anything), stops the server and waits for it; returns hdr-load's report."""
    server = subprocess.Popen(
        [*prefix, str(args.server), "--listen", "127.0.0.1:0",
         "--header-timeout-ms", str(args.timeout * 1000), *args.server_args],
        stdout=subprocess.PIPE, stderr=open(f"{stem}.stderr", "wb"),  # noqa: SIM115
        start_new_session=True)
    try:
        address = announced(server, f"{stem}.stderr")
        served = on_ready(server.pid) if on_ready is not None else None
        load = subprocess.run(
            [str(args.load), "--url", f"http://{address}/", "--connections",
             str(args.concurrency), "--requests", str(args.requests), "--warmup", "0",
             "--duration", "600", "--timeout", str(args.timeout)],
            capture_output=True, timeout=600 + args.timeout, check=False)
        if load.returncode != 0 or not load.stdout:
            raise Failure(f"hdr-load exited with {load.returncode}: "
                          f"{load.stderr.decode(errors='replace')[-500:]}")
        if served is not None:
            served()
        server.send_signal(signal.SIGTERM)
        status = server.wait(timeout=STOP_S)
    except subprocess.TimeoutExpired as error:
        raise Failure(f"{error.cmd[0]} did not finish in {error.timeout} s") from error
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
    if status != 0:
        raise Failure(f"the server{' under ' + prefix[0] if prefix else ''} exited with "
                      f"{status}: {Path(f'{stem}.stderr').read_text(errors='replace')[-500:]}")
    return json.loads(load.stdout)


def announced(server: subprocess.Popen, stderr: str) -> str:
    """The address in the server's first stdout line, {"listening": ...}."""
    assert server.stdout is not None
    selector = selectors.DefaultSelector()
    selector.register(server.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + READY_S
    line = b""
    while not line.endswith(b"\n") and time.monotonic() < deadline:
        if not selector.select(timeout=deadline - time.monotonic()):
            break
        chunk = os.read(server.stdout.fileno(), 1)
        if not chunk:
            break
        line += chunk
    selector.close()
    try:
        return json.loads(line)["listening"]
    except (json.JSONDecodeError, KeyError, TypeError) as error:
        raise Failure(f"the server under valgrind did not start ({line!r}): "
                      f"{Path(stderr).read_text(errors='replace')[-500:]}") from error


def read_memcheck(path: Path) -> tuple[int, int, int, str]:
    """(errors, distinct errors, definitely lost bytes, the errors' folded stacks) from
    memcheck's XML (protocol 4): every error context is an <error> with a <unique> id and a
    <stack> (innermost frame first), <errorcounts> says how often each occurred; leaks are
    <error>s of kind Leak_*, reported once at exit."""
    try:
        root = ElementTree.parse(path).getroot()
    except (OSError, ElementTree.ParseError) as error:
        raise Failure(f"valgrind wrote no readable XML ({error})") from error
    if not any(status.findtext("state") == "FINISHED" for status in root.iter("status")):
        raise Failure("valgrind did not finish (no FINISHED status in its XML)")
    counts = {pair.findtext("unique"): int(pair.findtext("count") or 0)
              for pair in root.iter("pair")}
    errors = kinds = lost = 0
    stacks: dict[str, int] = {}
    for error in root.iter("error"):
        kind = error.findtext("kind") or ""
        if kind.startswith("Leak_"):
            if kind == "Leak_DefinitelyLost":
                lost += int(error.findtext("xwhat/leakedbytes") or 0)
            continue
        kinds += 1
        count = counts.get(error.findtext("unique"), 1)
        errors += count
        frames = [_frame(frame) for frame in error.findall("stack/frame")][:STACK_FRAMES]
        stack = ";".join([*reversed(frames), _clean(kind or "error")])
        stacks[stack] = stacks.get(stack, 0) + count
    folded = "".join(f"{stack} {count}\n" for stack, count in sorted(stacks.items()))
    return errors, kinds, lost, folded


def _frame(frame: ElementTree.Element) -> str:
    """`function (file:line)`, or what valgrind knows of it (its object, its address)."""
    name = frame.findtext("fn") or Path(frame.findtext("obj") or "").name or (
        frame.findtext("ip") or "?")
    where = frame.findtext("file")
    line = frame.findtext("line")
    return _clean(f"{name} ({where}:{line})" if where and line else name)


def _clean(text: str) -> str:
    """A folded frame: no separator, no line break, no surrounding space."""
    return " ".join(text.replace(";", ",").split()) or "?"


def read_massif(path: Path) -> int:
    """The largest mem_heap_B over massif's snapshots."""
    try:
        lines = path.read_text().splitlines()
    except OSError as error:
        raise Failure(f"massif wrote no output ({error})") from error
    peaks = [int(line.split("=", 1)[1]) for line in lines if line.startswith("mem_heap_B=")]
    if not peaks:
        raise Failure(f"{path} has no snapshots")
    return max(peaks)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
