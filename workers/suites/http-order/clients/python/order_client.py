"""The http-order suite's Python load client (aiohttp + asyncio, on uvloop's event loop, or
with --library usual on asyncio's own loop, as the seed's client ran).

Sends orders to the order server in a closed loop (the seed's mode) or an open loop at a
constant rate, and prints one JSON document on stdout; the suite's README.md is the contract
every client follows. Imports only the standard library, aiohttp, uvloop and hdrh (the
workers package's dependencies), so it runs on the runner's interpreter as it is.

    order_client.py --url http://127.0.0.1:PORT --orders N --connections C --warmup W
                    --rate R --duration S --timeout T --pin-cpus LIST --mlock true|false
                    [--settle S] [--library tuned|usual]
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import enum
import errno
import functools
import json
import math
import os
import sys
import time
from array import array
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import uvloop
from hdrh.histogram import HdrHistogram

CLIENT = "python"

# Histogram range: 1 ns .. 60 s, 3 significant digits (the suite's common format).
HIST_LOWEST_NS = 1
HIST_HIGHEST_NS = 60_000_000_000
HIST_DIGITS = 3

# <sys/mman.h> on Linux (x86, arm and most others).
MCL_CURRENT = 1
MCL_FUTURE = 2

NS_PER_S = 1_000_000_000
# The percentiles of each one-second window in "intervals", in thousandths (99.9 -> 999) so the
# nearest rank is integer arithmetic: 0.999 * n in floating point can land just above an integer
# and ceil one rank too high.
INTERVAL_PERCENTILES = (("p50", 500), ("p90", 900), ("p99", 990), ("p999", 999))
# The settled warm-up watches its ok answers in windows of 200 ms; three in a row must agree.
SETTLE_WINDOW_NS = 200_000_000
STEADY_WINDOWS = 3
ORDER_HEADERS = {"Content-Type": "application/json"}
SUCCESS_FIELD = b'"status":"SUCCESS"'
ORDER_TEMPLATE = (
    b'{"buy_sell":"%s","symbol":2330,"price":100.0,"quantity":1000,"market_type":"common",'
    b'"price_type":"limit","time_in_force":"rod","order_type":"stock","user_def":"python-%d",'
    b'"client_timestamp":"%s"}'
)


@dataclass(frozen=True)
class Config:
    """The command line, checked."""

    url: str  # the order endpoint: --url + "/order"
    orders: int
    connections: int
    warmup: int
    rate: float  # 0: closed loop
    duration_s: float
    timeout_s: float
    pin_cpus: tuple[int, ...]  # empty: no pinning
    mlock: bool
    settle_s: float = 0.0  # closed loop: the most the settled warm-up may take; 0: off
    library: str = "tuned"  # tuned: uvloop; usual: asyncio's own loop (the seed's client)

    @property
    def open_loop(self) -> bool:
        return self.rate > 0


class Outcome(enum.Enum):
    OK = "ok"
    ERROR = "error"
    TIMEOUT = "timeout"


def new_histogram() -> HdrHistogram:
    return HdrHistogram(HIST_LOWEST_NS, HIST_HIGHEST_NS, HIST_DIGITS)


@dataclass
class Tally:
    """What the measured orders came to."""

    ok: int = 0
    errors: int = 0
    timeouts: int = 0
    latency: HdrHistogram = field(default_factory=new_histogram)
    uncorrected: HdrHistogram = field(default_factory=new_histogram)
    # Per ok order, side by side: when it was answered (ns after the measuring phase began), its
    # latency (open loop: corrected) and, open loop only, its uncorrected latency, each clamped
    # to the histogram's range. Appending to compact arrays is all the hot path pays: hdrh's
    # record_value is pure Python (1.3 us an order), so the histograms are filled from these
    # after the phase (fill_histograms), as are the per-second windows. repr=False: asyncio's
    # Runner formats the main task, its result (this) included, when it puts back the SIGINT
    # handler, and printing every order took tens of milliseconds.
    answered: array[int] = field(default_factory=lambda: array("q"), repr=False)
    latencies: array[int] = field(default_factory=lambda: array("q"), repr=False)
    uncorrected_latencies: array[int] = field(default_factory=lambda: array("q"), repr=False)
    unsent: int = 0  # open loop: timeouts never sent (no connection was free by window + timeout)
    scheduled: int = 0  # closed loop: measured orders planned (N; 0: by time)
    elapsed_ns: int = 0  # the measuring phase
    warmup_cut: bool = False  # the warm-up hit its time bound
    warmup_orders: int = 0  # warm-up orders sent (count and settle phases)
    warmup_ns: int = 0  # from the first warm-up order to the start of measuring; 0 without
    settled: bool = False  # closed loop: the settled warm-up settled

    @property
    def orders(self) -> int:
        return self.ok + self.errors + self.timeouts

    @property
    def sent(self) -> int:
        return self.orders - self.unsent

    def record_ok(self, answered_ns: int, latency_ns: int) -> None:
        """One ok order: when it was answered and its latency."""
        self.answered.append(answered_ns)
        self.latencies.append(clamp_ns(latency_ns))

    def fill_histograms(self) -> None:
        """Records every ok order's latencies, once the measuring phase is over."""
        for histogram, latencies in (
            (self.latency, self.latencies),
            (self.uncorrected, self.uncorrected_latencies),
        ):
            record = histogram.record_value
            for latency_ns in latencies:
                record(latency_ns)

    def count(self, outcome: Outcome) -> None:
        if outcome is Outcome.OK:
            self.ok += 1
        elif outcome is Outcome.TIMEOUT:
            self.timeouts += 1
        else:
            self.errors += 1

    def count_unsent(self) -> None:
        """An order not sent by window + timeout (every connection was stuck): a timeout."""
        self.timeouts += 1
        self.unsent += 1


@dataclass(frozen=True)
class WindowStat:
    """One closed window of the settled warm-up."""

    count: int  # ok answers in the window
    p50: int  # ns, nearest rank over the window's latencies; 0 when count is 0


def steady(windows: Sequence[WindowStat]) -> bool:
    """Whether three windows make a settled warm-up: each has an ok answer, and their counts
    and their p50s are each within 10 %, the largest at most 1.1 x the smallest (in integers:
    10 x largest <= 11 x smallest)."""
    counts = [w.count for w in windows]
    p50s = [w.p50 for w in windows]
    if min(counts) == 0:  # a window without an ok answer never settles
        return False
    return 10 * max(counts) <= 11 * min(counts) and 10 * max(p50s) <= 11 * min(p50s)


class Settler:
    """Watches the ok answers of the settled warm-up, from every worker, in windows
    [start + k x 200 ms, start + (k+1) x 200 ms), k = 0, 1, ..., each closed at its end. The
    workers and the watcher share it on the one event loop thread: no await inside a method,
    so each runs whole, as under a lock."""

    def __init__(self, start_ns: int) -> None:
        self.start_ns = start_ns
        self.pending: list[tuple[int, int]] = []  # (answered ns, latency ns), in time order
        self.closed: list[WindowStat] = []  # the last windows closed, oldest first

    def answered(self, latency_ns: int) -> None:
        self.pending.append((time.monotonic_ns(), latency_ns))

    def close_window(self, end_ns: int) -> bool:
        """Ends the window that ends at `end_ns` (called at or after it): the answers before it
        make its count and p50. Whether it and the two before it are steady."""
        later = 0  # pending is in time order: the answers from end_ns on are its tail
        while later < len(self.pending) and self.pending[later][0] < end_ns:
            later += 1
        values = sorted(latency for _, latency in self.pending[:later])
        del self.pending[:later]
        n = len(values)
        p50 = values[-(-n // 2) - 1] if n else 0  # the ceil(n / 2)-th smallest
        self.closed = [*self.closed[-(STEADY_WINDOWS - 1) :], WindowStat(n, p50)]
        return len(self.closed) == STEADY_WINDOWS and steady(self.closed)

    async def watch(self, stop_ns: int) -> bool:
        """Closes window after window, each at its end; True at the end of the first one that
        settles the warm-up, False at `stop_ns` (the settle time is up) when none has. A
        window ending after stop_ns is not waited for."""
        k = 1
        while True:
            end_ns = self.start_ns + k * SETTLE_WINDOW_NS
            if end_ns > stop_ns:
                await sleep_until(stop_ns)
                return False
            await sleep_until(end_ns)
            if self.close_window(end_ns):
                return True
            k += 1


class OrderTimer:
    """The time bound on the order a worker has in flight. aiohttp's own timeout arms and
    cancels an event-loop timer for every request (with its context objects, about 5 % of the
    instructions per order); this keeps one timer per worker and re-arms it only when it
    fires, which a worker's deadlines allow: each is later than the one before (an earlier
    one, should it come, re-arms at once). When the timer fires and the order in flight is
    past its deadline, it cancels the worker's task, as aiohttp cancels a request that timed
    out (aiohttp then closes its connection); otherwise it waits for that order's deadline."""

    def __init__(self) -> None:
        task = asyncio.current_task()
        assert task is not None, "a worker runs in a task"
        self.task = task
        self.deadline_ns: int | None = None  # the order in flight's, monotonic; None: none
        self.handle: asyncio.TimerHandle | None = None
        self.armed_ns = 0  # when the handle fires
        self.expired = False  # the order in flight was cancelled at its deadline

    def start(self, deadline_ns: int) -> None:
        """An order goes out, to be answered by deadline_ns."""
        self.deadline_ns = deadline_ns
        if self.handle is None or deadline_ns < self.armed_ns:
            self.arm(deadline_ns)

    def settled(self) -> None:
        """The order in flight is answered, failed or timed out."""
        self.deadline_ns = None
        self.expired = False

    def arm(self, when_ns: int) -> None:
        self.stop()
        self.armed_ns = when_ns
        delay_s = (when_ns - time.monotonic_ns()) / NS_PER_S
        self.handle = asyncio.get_running_loop().call_later(delay_s, self.fire)

    def fire(self) -> None:
        self.handle = None
        if self.deadline_ns is None:
            return  # no order in flight: the next one arms the timer again
        if time.monotonic_ns() < self.deadline_ns:
            # A later order's deadline, or the loop's millisecond timer came a little early.
            self.arm(self.deadline_ns)
        else:
            self.expired = True
            self.task.cancel()

    def stop(self) -> None:
        if self.handle is not None:
            self.handle.cancel()
            self.handle = None


async def with_timer(work: Callable[[OrderTimer], Awaitable[None]]) -> None:
    """Runs a worker's `work` with a timer for the orders it sends, on the task it runs on."""
    timer = OrderTimer()
    try:
        await work(timer)
    finally:
        timer.stop()


async def sleep_until(when_ns: int) -> None:
    """The event loop's timers are whole milliseconds and may fire a little early: sleep
    again until `when_ns` has really come."""
    while (left_ns := when_ns - time.monotonic_ns()) > 0:
        await asyncio.sleep(left_ns / NS_PER_S)


class Load:
    """C workers sharing one session whose connector keeps C keep-alive connections."""

    def __init__(self, config: Config, session: aiohttp.ClientSession) -> None:
        self.config = config
        self.session = session
        self.tally = Tally()

    async def run(self) -> Tally:
        if self.config.open_loop:
            await self.run_open()
        else:
            await self.run_closed()
        return self.tally

    async def run_closed(self) -> None:
        """W warm-up orders, then with --settle more of them until latency settles (or the
        settle time is up), then N measured ones (--orders 0: as many as --duration takes),
        each worker sending its next order as soon as the previous one is answered. The count
        warm-up stops taking orders after --duration from the start, the settled one after
        --settle from its own start, the measuring phase after --duration from its start."""
        config, tally = self.config, self.tally
        duration_ns = seconds_to_ns(config.duration_s)
        timeout_ns = seconds_to_ns(config.timeout_s)

        warmup_deadline = time.monotonic_ns() + duration_ns
        warmup_left = config.warmup
        first_warmup: int | None = None

        async def send_warmup(timer: OrderTimer) -> Outcome:
            nonlocal first_warmup
            sent = time.monotonic_ns()
            if first_warmup is None:
                first_warmup = sent
            tally.warmup_orders += 1
            return await self.send(0, timer, sent + timeout_ns)

        async def warm_up(timer: OrderTimer) -> None:
            nonlocal warmup_left
            while warmup_left > 0:
                if time.monotonic_ns() >= warmup_deadline:
                    tally.warmup_cut = True
                    return
                warmup_left -= 1
                await send_warmup(timer)

        await self.on_every_worker(warm_up)

        start = deadline = 0  # set by start_measuring, before any worker measures
        measuring = asyncio.Event()
        taken = 0

        def start_measuring() -> None:
            nonlocal start, deadline
            start = time.monotonic_ns()
            deadline = start + duration_ns
            measuring.set()

        async def measure(timer: OrderTimer) -> None:
            nonlocal taken
            while config.orders == 0 or taken < config.orders:
                sent = time.monotonic_ns()
                if sent >= deadline:
                    return
                taken += 1
                outcome = await self.send(taken, timer, sent + timeout_ns)
                if outcome is Outcome.OK:
                    answered = time.monotonic_ns()
                    tally.record_ok(answered - start, answered - sent)
                tally.count(outcome)

        if config.settle_s > 0:
            # The settle time runs from the end of the count warm-up, for --settle at most.
            settler = Settler(time.monotonic_ns())
            stop_ns = settler.start_ns + seconds_to_ns(config.settle_s)

            async def settle_then_measure(timer: OrderTimer) -> None:
                # An order sent before measuring starts is warm-up, whenever it is answered.
                while not measuring.is_set():
                    sent = time.monotonic_ns()
                    if sent >= stop_ns:
                        await measuring.wait()
                        break
                    if await send_warmup(timer) is Outcome.OK:
                        settler.answered(time.monotonic_ns() - sent)
                await measure(timer)

            async def watch() -> None:
                tally.settled = await settler.watch(stop_ns)
                start_measuring()

            async with asyncio.TaskGroup() as workers:
                workers.create_task(watch())
                for _ in range(config.connections):
                    workers.create_task(with_timer(settle_then_measure))
        else:
            start_measuring()
            await self.on_every_worker(measure)
        tally.elapsed_ns = time.monotonic_ns() - start
        tally.scheduled = config.orders
        if first_warmup is not None:
            tally.warmup_ns = start - first_warmup

    async def run_open(self) -> None:
        """Order k (warm-up first, then measured) is due at origin + k/R. A free worker takes
        the next order, waits for its due time if early, and sends it; a late order goes at
        once. The corrected latency runs from the due time, so a stalled server is charged for
        every order it held back, not only for the few in flight (coordinated omission).
        Nothing is in flight past window + timeout: an order still unanswered then is a
        timeout, and one not sent by then (every connection was stuck) is a timeout, never sent."""
        config, tally = self.config, self.tally
        warmup = config.warmup
        total = warmup + math.floor(config.rate * config.duration_s)
        timeout_ns = seconds_to_ns(config.timeout_s)
        origin = time.monotonic_ns()

        def due(k: int) -> int:
            return origin + round(k * NS_PER_S / config.rate)

        start = due(warmup)  # the window: [start, start + duration)
        if warmup:  # the warm-up is the schedule's first W orders, from origin to the window
            tally.warmup_ns = start - origin
        window_ns = seconds_to_ns(config.duration_s)
        end = start + window_ns + timeout_ns
        taken = 0

        async def pace(timer: OrderTimer) -> None:
            nonlocal taken
            while taken < total:
                k = taken
                taken += 1
                intended = due(k)
                early_ns = intended - time.monotonic_ns()
                if early_ns > 0:
                    await asyncio.sleep(early_ns / NS_PER_S)
                sent = time.monotonic_ns()
                measured = k >= warmup
                if sent >= end:
                    if measured:
                        tally.count_unsent()
                    continue
                if not measured:
                    tally.warmup_orders += 1
                seq = k - warmup + 1 if measured else 0
                outcome = await self.send(seq, timer, min(sent + timeout_ns, end))
                if not measured:
                    continue
                answered = time.monotonic_ns()
                if outcome is Outcome.OK:
                    # From the intended send time; asyncio's timer may wake a little early, and
                    # an order sent before its time waited for nothing: from its send then.
                    tally.record_ok(answered - start, answered - min(intended, sent))
                    tally.uncorrected_latencies.append(clamp_ns(answered - sent))
                tally.count(outcome)

        await self.on_every_worker(pace)
        # The window lasts its full length even when its last order was answered before the end.
        tally.elapsed_ns = max(time.monotonic_ns() - start, window_ns)

    async def on_every_worker(self, work: Callable[[OrderTimer], Awaitable[None]]) -> None:
        async with asyncio.TaskGroup() as workers:
            for _ in range(self.config.connections):
                workers.create_task(with_timer(work))

    async def send(self, seq: int, timer: OrderTimer, deadline_ns: int) -> Outcome:
        """Post one order and read the whole answer; not answered by `deadline_ns`
        (monotonic), it is a timeout. No `async with` around the response: read() releases
        the connection to the pool at the answer's end and closes it on any failure, and the
        context managers' enter and exit took about 5 % of the instructions per order."""
        timer.start(deadline_ns)
        try:
            response = await self.session.post(self.config.url, data=order_body(seq))
            body = await response.read()
        except asyncio.CancelledError:
            if timer.expired and timer.task.uncancel() == 0:
                return Outcome.TIMEOUT
            raise  # the task itself is cancelled (as well)
        except (aiohttp.ClientError, OSError):
            return Outcome.ERROR
        finally:
            timer.settled()
        if response.status == 200 and is_success(body):
            return Outcome.OK
        return Outcome.ERROR


def main(argv: Sequence[str] | None = None) -> int:
    """Exit status: 0 when a measured order succeeded, 1 when none did, 2 for bad arguments."""
    config = parse_args(argv)
    tuning = {"pin_cpus": "off", "mlock": "off", "library": config.library}
    # Before the event loop starts, so every thread it may create inherits the affinity.
    if config.pin_cpus:
        tuning["pin_cpus"] = pin_process(config.pin_cpus)
    if config.mlock:
        tuning["mlock"] = lock_memory()

    loop_factory = uvloop.new_event_loop if config.library == "tuned" else None
    with asyncio.Runner(loop_factory=loop_factory) as runner:
        tally = runner.run(measure(config))
    tally.fill_histograms()

    tuning["settle"] = settle_report(config, tally)
    report = build_report(config, tally, tuning)
    log_summary(report, tally)
    sys.stdout.write(json.dumps(report) + "\n")
    sys.stdout.flush()
    return 0 if tally.ok > 0 else 1


async def measure(config: Config) -> Tally:
    # One host: the total limit is its limit (limit_per_host would keep a second count per order).
    connector = aiohttp.TCPConnector(limit=config.connections)
    # The session's headers, not each order's: aiohttp merges per-request ones into a new dict.
    # No aiohttp timeout: each worker's OrderTimer bounds its orders.
    async with aiohttp.ClientSession(
        connector=connector, headers=ORDER_HEADERS, timeout=aiohttp.ClientTimeout()
    ) as session:
        return await Load(config, session).run()


def parse_args(argv: Sequence[str] | None) -> Config:
    parser = argparse.ArgumentParser(
        prog="order_client.py", description="http-order load client (aiohttp)"
    )
    parser.add_argument("--url", required=True, help="server base URL, e.g. http://127.0.0.1:8080")
    parser.add_argument(
        "--orders", type=int, default=1000, help="closed loop: measured orders; 0 = by --duration"
    )
    parser.add_argument("--connections", type=int, default=50, help="keep-alive connections")
    parser.add_argument("--warmup", type=int, default=100, help="orders before measuring")
    parser.add_argument("--rate", type=float, default=0.0, help="open loop: orders/s; 0 = closed")
    parser.add_argument("--duration", type=float, default=60.0, help="seconds to measure, at most")
    parser.add_argument("--timeout", type=float, default=5.0, help="seconds one order may take")
    parser.add_argument("--pin-cpus", type=parse_cpu_list, default=(), help='e.g. "2-3", "0,2"')
    parser.add_argument("--mlock", choices=("true", "false"), default="false")
    parser.add_argument(
        "--settle", type=float, default=0.0, help="closed loop: most seconds to settle; 0 = off"
    )
    parser.add_argument(
        "--library", choices=("tuned", "usual"), default="tuned",
        help="tuned: on uvloop; usual: on asyncio's own event loop (the seed's client)"
    )
    args = parser.parse_args(argv)

    if not args.url.startswith("http://") or len(args.url) <= len("http://"):
        parser.error(f"--url must be http://HOST:PORT, got {args.url!r}")
    if args.orders < 0:
        parser.error("--orders must not be negative")
    if args.connections < 1:
        parser.error("--connections must be at least 1")
    if args.warmup < 0:
        parser.error("--warmup must not be negative")
    if not (0 <= args.rate < math.inf):
        parser.error("--rate must be a number >= 0")
    if not (0 < args.duration < math.inf):
        parser.error("--duration must be a number > 0")
    if not (0 < args.timeout < math.inf):
        parser.error("--timeout must be a number > 0")
    if not (0 <= args.settle < math.inf):
        parser.error("--settle must be a number >= 0")
    if args.rate > 0 and math.floor(args.rate * args.duration) < 1:
        parser.error("--rate x --duration must come to at least one order")

    return Config(
        url=args.url.rstrip("/") + "/order",
        orders=args.orders,
        connections=args.connections,
        warmup=args.warmup,
        rate=args.rate,
        duration_s=args.duration,
        timeout_s=args.timeout,
        pin_cpus=args.pin_cpus,
        mlock=args.mlock == "true",
        settle_s=args.settle,
        library=args.library,
    )


def parse_cpu_list(text: str) -> tuple[int, ...]:
    """Reads "2-3" or "0,2" (or a mix); "" is no pinning."""
    if text == "":
        return ()
    cpus: list[int] = []
    for part in text.split(","):
        low, _, high = part.partition("-")
        if not low.isdigit() or not (high == "" or high.isdigit()):
            raise argparse.ArgumentTypeError(f"bad CPU {part!r} in {text!r}")
        first, last = int(low), int(high or low)
        if last < first:
            raise argparse.ArgumentTypeError(f"bad CPU range {part!r} in {text!r}")
        cpus.extend(range(first, last + 1))
    return tuple(cpus)


def pin_process(cpus: tuple[int, ...]) -> str:
    """The client runs on one thread (the event loop), so the process takes the whole list.
    The kernel would quietly drop a CPU outside the allowed set from the mask; here it is a
    refusal, worded as the kernel refuses a thread pinned to that CPU alone."""
    allowed = os.sched_getaffinity(0)
    for cpu in cpus:
        if cpu not in allowed:
            return f"refused: cpu {cpu}: {os.strerror(errno.EINVAL)}"
    try:
        os.sched_setaffinity(0, cpus)
    except OSError as error:
        return f"refused: {error.strerror}"
    return "applied: " + ",".join(str(cpu) for cpu in cpus)


def lock_memory() -> str:
    """mlockall(MCL_CURRENT | MCL_FUTURE): keep every page, present and future, in RAM."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.mlockall(MCL_CURRENT | MCL_FUTURE) != 0:
        return f"refused: {os.strerror(ctypes.get_errno())}"
    return "applied"


def order_body(seq: int) -> bytes:
    """The seed's order, buying on odd sequence numbers and selling on even ones (warm-up
    orders are 0). Filled into a bytes template: json.dumps and datetime took longer per order
    than all the rest of the client's own work."""
    side = b"buy" if seq % 2 else b"sell"
    return ORDER_TEMPLATE % (side, seq, utc_timestamp(time.time_ns() // 1_000_000))


# Orders come many to a millisecond, so the last one's stamp is usually this one's.
@functools.lru_cache(maxsize=1)
def utc_timestamp(milliseconds: int) -> bytes:
    """The Unix time in milliseconds, ISO 8601 in UTC: 2024-01-01T10:00:00.000Z."""
    seconds, milliseconds = divmod(milliseconds, 1000)
    second = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
    return b"%s.%03dZ" % (second.encode(), milliseconds)


def is_success(body: bytes) -> bool:
    """Looks for the server's compact `"status":"SUCCESS"` first and parses the JSON only when
    that is absent, so a differently spaced answer is still read right."""
    if SUCCESS_FIELD in body:
        return True
    try:
        answer = json.loads(body)
    except ValueError:
        return False
    return isinstance(answer, dict) and answer.get("status") == "SUCCESS"


def build_report(config: Config, tally: Tally, tuning: dict[str, str]) -> dict[str, Any]:
    orders = tally.orders
    duration_s = tally.elapsed_ns / NS_PER_S
    report: dict[str, Any] = {
        "client": CLIENT,
        "mode": "open" if config.open_loop else "closed",
        "latency_hdr": encode(tally.latency),
    }
    if config.open_loop:
        report["latency_uncorrected_hdr"] = encode(tally.uncorrected)
    report |= {
        "orders": orders,
        "ok": tally.ok,
        "errors": tally.errors,
        "timeouts": tally.timeouts,
        "success_rate": tally.ok / orders if orders else 0.0,
        "duration_s": duration_s,
        "throughput": tally.ok / duration_s if duration_s > 0 else 0.0,
        "target_rate": config.rate,
        "achieved_rate": tally.sent / duration_s if duration_s > 0 else 0.0,
        "warmup_orders": tally.warmup_orders,
        "warmup_s": tally.warmup_ns / NS_PER_S,
        "tuning": tuning,
        "intervals": intervals(tally.answered, tally.latencies),
    }
    return report


def settle_report(config: Config, tally: Tally) -> str:
    """tuning.settle: "off" (no --settle, or an open loop), "settled", or "not settled in S s",
    S as C's %g prints it (5 -> "5", 0.5 -> "0.5")."""
    if config.settle_s <= 0 or config.open_loop:
        return "off"
    if tally.settled:
        return "settled"
    return f"not settled in {config.settle_s:g} s"


def intervals(answered: Sequence[int], latencies: Sequence[int]) -> list[dict[str, int]]:
    """Latency over time: window t_s holds the ok orders answered in [t_s, t_s + 1) s after the
    measuring phase began, from 0 to the last answer's window, empty ones included (so a stall
    shows as a gap, then a window of long latencies). Percentiles are exact nearest-rank over
    the window's values, not read from a histogram, so each window stands on its own numbers.

    `answered` (ns after the phase began) and `latencies` (ns) are side by side, one ok order
    at each index, in any order."""
    if not answered:
        return []
    windows: dict[int, list[int]] = {}
    for answered_ns, latency_ns in zip(answered, latencies, strict=True):
        # An answer can't come before the phase began; max() only guards the arithmetic.
        windows.setdefault(max(answered_ns, 0) // NS_PER_S, []).append(latency_ns)
    result: list[dict[str, int]] = []
    for t_s in range(max(windows) + 1):
        values = windows.get(t_s)
        if not values:
            result.append({"t_s": t_s, "count": 0})
            continue
        values.sort()
        n = len(values)
        window = {"t_s": t_s, "count": n}
        for name, permille in INTERVAL_PERCENTILES:
            rank = -(-permille * n // 1000)  # ceil(q/100 x n), the rank counted from 1
            window[name] = values[max(rank, 1) - 1]
        window["max"] = values[-1]
        result.append(window)
    return result


def log_summary(report: dict[str, Any], tally: Tally) -> None:
    p50_us = tally.latency.get_value_at_percentile(50) / 1000
    p99_us = tally.latency.get_value_at_percentile(99) / 1000
    print(
        f"order_client.py: {report['mode']} loop, {report['orders']} orders "
        f"({report['ok']} ok, {report['errors']} errors, {report['timeouts']} timeouts) in "
        f"{report['duration_s']:.3f} s, {report['throughput']:.1f} ok/s; "
        f"p50 {p50_us:.1f} us p99 {p99_us:.1f} us",
        file=sys.stderr,
    )
    if tally.orders < tally.scheduled:
        missing = tally.scheduled - tally.orders
        print(
            f"order_client.py: {missing} of {tally.scheduled} orders were not sent within "
            "--duration",
            file=sys.stderr,
        )
    if tally.unsent:
        print(
            f"order_client.py: {tally.unsent} orders were never sent: every connection was busy "
            "until --duration + --timeout",
            file=sys.stderr,
        )
    if tally.warmup_cut:
        print("order_client.py: the warm-up was cut short after --duration", file=sys.stderr)
    print(
        f"order_client.py: warm-up: {report['warmup_orders']} orders in "
        f"{report['warmup_s']:.3f} s, settle {report['tuning']['settle']}",
        file=sys.stderr,
    )


def encode(histogram: HdrHistogram) -> str:
    """HdrHistogram V2, compressed, base64."""
    encoded: bytes = histogram.encode()
    return encoded.decode("ascii")


def seconds_to_ns(seconds: float) -> int:
    return round(seconds * NS_PER_S)


def clamp_ns(ns: int) -> int:
    return min(max(ns, HIST_LOWEST_NS), HIST_HIGHEST_NS)


if __name__ == "__main__":
    sys.exit(main())
