"""Reading untrusted input with native code, in a process of its own.

A harness's output is read by parsers that hand numbers to C code (HdrHistogram's codec,
zlib, numpy). Whatever gets past the contract's bounds must cost one request, never the api:
`Readers.run` hands the request to a one-shot reader process (a program that reads one
request on stdin, answers on stdout and exits) started with its address space limited and
killed at a deadline. A reader that dies (a C library's abort), runs out of its memory or
overruns the deadline costs its request only: `Crashed`, `OutOfMemory` (the reader answers
so itself when an allocation fails) or `TooSlow`.

Readers are started ahead (`spare` of them wait, their imports done), so a request does not
wait for a Python start; each serves one request, so nothing one input did outlives it. They
are started with `subprocess` (fork and exec), never by forking the api's threads.
"""

import contextlib
import json
import queue
import signal
import subprocess
import threading
from typing import Any


class IsolationError(Exception):
    """The reader did not answer."""


class Crashed(IsolationError):
    """The reader died (a signal or an exit) before answering."""


class OutOfMemory(IsolationError):
    """The reader ran out of the memory it was allowed."""


class TooSlow(IsolationError):
    """The reader did not answer within the deadline, and was killed."""


class Readers:
    """One-shot reader processes running `argv` (which must read one JSON request on stdin
    and write one JSON answer on stdout; `{"memory": true}` means it ran out of memory), at
    most `concurrency` at a time."""

    def __init__(self, argv: list[str], deadline_s: float, spare: int = 1,
                 concurrency: int = 2) -> None:
        self.argv = argv
        self.deadline_s = deadline_s
        self._spare: queue.Queue[subprocess.Popen[bytes]] = queue.Queue()
        self._spares = spare
        self._starting = threading.Lock()
        self._turns = threading.BoundedSemaphore(concurrency)

    def run(self, request: dict[str, Any], body: bytes | bytearray) -> dict[str, Any]:
        """The reader's answer to a request: a JSON header line, then the body."""
        if not self._turns.acquire(timeout=self.deadline_s):
            raise TooSlow(f"no reader was free within {self.deadline_s:g} s")
        try:
            reader = self._take()
            try:
                out, _ = reader.communicate(json.dumps(request).encode() + b"\n" + body,
                                            timeout=self.deadline_s)
            except subprocess.TimeoutExpired:
                raise TooSlow(f"reading took more than {self.deadline_s:g} s") from None
            finally:
                _end(reader)
        finally:
            self._turns.release()
        try:
            answer: dict[str, Any] = json.loads(out)
        except ValueError:
            raise Crashed(_ended(reader.returncode)) from None
        if answer.get("memory"):
            raise OutOfMemory("reading needed more memory than a reader may use")
        return answer

    def _take(self) -> "subprocess.Popen[bytes]":
        """A waiting reader (a new one when none is ready); another is started to wait."""
        try:
            reader = self._spare.get_nowait()
        except queue.Empty:
            reader = self._start()
        threading.Thread(target=self._top_up, daemon=True).start()
        return reader

    def _top_up(self) -> None:
        with self._starting:
            while self._spare.qsize() < self._spares:
                self._spare.put(self._start())

    def _start(self) -> "subprocess.Popen[bytes]":
        return subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, close_fds=True)

    def close(self) -> None:
        """Ends the waiting readers."""
        while not self._spare.empty():
            _end(self._spare.get_nowait())


def _end(reader: "subprocess.Popen[bytes]") -> None:
    if reader.poll() is None:
        reader.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):
        reader.wait(5)


def _ended(returncode: int | None) -> str:
    if returncode is not None and returncode < 0:
        return f"the reader was killed by {signal.Signals(-returncode).name}"
    return f"the reader ended with exit status {returncode} without an answer"
