"""Frobs a frobnicator --count times with --size bytes and prints, in the frob text format,
its rate, every round trip in ns, and how many other frobnicators were running meanwhile
(the runner must start only the one a series needs)."""

import argparse
import os
import socket
import time
from pathlib import Path


def frobnicators() -> list[int]:
    """The frobnicators started by this job's runner (this program's parent), so other
    jobs on the machine do not count."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                argv = (entry / "cmdline").read_bytes().split(b"\0")
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if parent == os.getppid() and any(p.endswith(b"frobnicator.py") for p in argv):
                found.append(int(entry.name))
    return found


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--size", type=int, required=True)
    parser.add_argument("--count", type=int, required=True)
    parser.add_argument("--server-pid", type=int, required=True)
    args = parser.parse_args()
    payload = b"f" * args.size + b"\n"
    latencies = []
    with socket.create_connection(("127.0.0.1", args.port)) as connection:
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        stream = connection.makefile("rwb")
        started = time.monotonic_ns()
        for _ in range(args.count):
            sent = time.monotonic_ns()
            stream.write(payload)
            stream.flush()
            stream.readline()
            latencies.append(time.monotonic_ns() - sent)
        elapsed_s = (time.monotonic_ns() - started) / 1e9
    others = [pid for pid in frobnicators() if pid != args.server_pid]
    print(f"frobs/s {args.count / elapsed_s:.3f}")
    print(f"other-frobnicators {len(others)}")
    print("latency-ns " + " ".join(str(v) for v in latencies))


if __name__ == "__main__":
    main()
