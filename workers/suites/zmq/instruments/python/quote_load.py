"""The zmq suite's Python instrument (pyzmq, the seed's language): load on the quote server over
REQ-REP, DEALER-ROUTER or PUB-SUB with a socket profile, for a window of seconds, one JSON
document on stdout. The contract every instrument follows is the suite's README.md.

    quote_load.py --pattern req-rep|dealer-router|pub-sub --profile baseline|baseline-128k|tuned
                  --symbol S --router HOST:PORT --pub HOST:PORT --window SECONDS --warmup N
                  --in-flight K --subscribers N [--join-delay-ms MS] [--read-delay-us US]

Imports only the standard library, pyzmq and hdrh (on the runner's interpreter).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import zmq
from hdrh.histogram import HdrHistogram

INSTRUMENT = "python"
NS_PER_S = 1_000_000_000
NS_PER_MS = 1_000_000
# Histogram range: 1 ns .. 1 h (the lab's stored range), 3 significant digits.
HIST_LOWEST_NS = 1
HIST_HIGHEST_NS = 3600 * NS_PER_S
HIST_DIGITS = 3
INTERVAL_PERCENTILES = (("p50", 500), ("p90", 900), ("p99", 990), ("p999", 999))

# The socket profiles (README.md): what each sets; an option not named keeps libzmq's default.
PROFILES: dict[str, dict[str, int]] = {
    "baseline": {"rcvtimeo": 5000},
    "baseline-128k": {"sndbuf": 128000, "rcvbuf": 128000, "rcvtimeo": 5000},  # the seed's before
    "tuned": {"sndbuf": 256000, "rcvbuf": 256000, "rcvtimeo": 2000, "tcp_keepalive": 1,
              "tcp_keepalive_idle": 300, "linger": 0},
}
OPTIONS = (("sndbuf", zmq.SNDBUF), ("rcvbuf", zmq.RCVBUF), ("rcvtimeo", zmq.RCVTIMEO),
           ("tcp_keepalive", zmq.TCP_KEEPALIVE), ("tcp_keepalive_idle", zmq.TCP_KEEPALIVE_IDLE),
           ("linger", zmq.LINGER))
PATTERNS = ("req-rep", "dealer-router", "pub-sub")
SYMBOL = re.compile(r"[A-Za-z0-9._-]{1,32}")
BATCH = 256  # ticks taken from one subscriber before looking at the others


@dataclass(frozen=True)
class Config:
    pattern: str
    profile: str
    symbol: str
    router: str  # tcp://HOST:PORT
    pub: str
    window_s: float
    warmup: int
    in_flight: int
    subscribers: int
    join_delay_ms: int
    read_delay_us: int

    @property
    def timeout_ns(self) -> int:
        return PROFILES[self.profile]["rcvtimeo"] * NS_PER_MS


@dataclass
class Tally:
    """What the measured messages came to; `sent` = samples + errors + timeouts + gaps +
    join_gaps."""

    sent: int = 0
    samples: int = 0
    errors: int = 0
    timeouts: int = 0
    gaps: int = 0
    join_gaps: int = 0
    backlog: int = 0
    latency: HdrHistogram = field(
        default_factory=lambda: HdrHistogram(HIST_LOWEST_NS, HIST_HIGHEST_NS, HIST_DIGITS))
    answers: list[tuple[int, int]] = field(default_factory=list)  # (ns after start, latency)
    start_ns: int = 0
    elapsed_ns: int = 0

    def record(self, now_ns: int, latency_ns: int) -> None:
        latency_ns = min(max(latency_ns, HIST_LOWEST_NS), HIST_HIGHEST_NS)
        self.latency.record_value(latency_ns)
        self.answers.append((now_ns - self.start_ns, latency_ns))
        self.samples += 1


class Sockets:
    """Every socket the instrument opens, configured with the profile; `tuning` is what the
    first measured one read back."""

    def __init__(self, config: Config) -> None:
        self.context = zmq.Context()
        self.profile = PROFILES[config.profile]
        self.tuning: dict[str, str] | None = None

    def open(self, kind: int, endpoint: str, measured: bool = True) -> zmq.Socket[bytes]:
        sock: zmq.Socket[bytes] = self.context.socket(kind)
        tuning = configure(sock, self.profile)
        if measured and self.tuning is None:
            self.tuning = tuning
        sock.connect(endpoint)
        return sock


def configure(sock: zmq.Socket[bytes], profile: dict[str, int]) -> dict[str, str]:
    """Sets the profile's options and reads every option back: `applied: v`, `default: v`
    (not set by the profile) or `refused: <why>`."""
    tuning: dict[str, str] = {}
    for name, option in OPTIONS:
        wanted = profile.get(name)
        if wanted is not None:
            try:
                sock.setsockopt(option, wanted)
            except zmq.ZMQError as error:
                tuning[name] = f"refused: {error.strerror}"
                continue
        got = int(sock.getsockopt(option))
        if wanted is None:
            tuning[name] = f"default: {got}"
        elif got == wanted:
            tuning[name] = f"applied: {got}"
        else:
            tuning[name] = f"refused: set {wanted}, read back {got}"
    return tuning


class Requests:
    """Quote requests "Q <id> <symbol>"; an answer is "<id> <symbol> <seq> <bid> <ask>
    <stamp_ns>" or "<id> ERR <why>"."""

    def __init__(self, symbol: str) -> None:
        self.symbol = symbol
        self.next_id = 0

    def new(self) -> tuple[int, bytes]:
        self.next_id += 1
        return self.next_id, f"Q {self.next_id} {self.symbol}".encode()

    def read(self, body: bytes) -> tuple[int, int | None]:
        """(request id, the quote's tick seq or None for an error answer); id -1 when the
        answer cannot be read."""
        parts = body.decode(errors="replace").split()
        try:
            request_id = int(parts[0])
        except (IndexError, ValueError):
            return -1, None
        if len(parts) == 6 and parts[1] == self.symbol:
            return request_id, int(parts[2])
        return request_id, None


def now() -> int:
    return time.monotonic_ns()


def run_req_rep(config: Config, sockets: Sockets) -> Tally:
    """One request at a time on a REQ socket; an answer not there after RCVTIMEO is a timeout,
    and the socket (stuck awaiting that answer) is closed and reopened."""
    requests = Requests(config.symbol)
    tally = Tally()
    sock = sockets.open(zmq.REQ, config.router)

    def round_trip(measured: bool) -> None:
        nonlocal sock
        request_id, body = requests.new()
        sent_ns = now()
        sock.send(body)
        try:
            answer = sock.recv()
        except zmq.Again:
            sock.close()
            sock = sockets.open(zmq.REQ, config.router)
            if measured:
                tally.sent += 1
                tally.timeouts += 1
            return
        done_ns = now()
        if not measured:
            return
        tally.sent += 1
        answered_id, seq = requests.read(answer)
        if answered_id == request_id and seq is not None:
            tally.record(done_ns, done_ns - sent_ns)
        else:
            tally.errors += 1

    warmup_end = now() + int(config.window_s * NS_PER_S)
    for _ in range(config.warmup):
        if now() >= warmup_end:
            break
        round_trip(False)
    tally.start_ns = now()
    end_ns = tally.start_ns + int(config.window_s * NS_PER_S)
    while now() < end_ns:
        round_trip(True)
    tally.elapsed_ns = now() - tally.start_ns
    return tally


def run_dealer_router(config: Config, sockets: Sockets) -> Tally:
    """K requests in flight on one DEALER: each answer (or timeout after RCVTIMEO) frees a
    slot for the next request, while the window is open."""
    requests = Requests(config.symbol)
    sock = sockets.open(zmq.DEALER, config.router)
    poller = zmq.Poller()
    poller.register(sock, zmq.POLLIN)
    timeout_ns = config.timeout_ns

    def phase(tally: Tally, end_ns: int, limit: int | None, measured: bool) -> None:
        in_flight: dict[int, int] = {}  # id -> sent ns, oldest first
        issued = 0

        def send() -> None:
            nonlocal issued
            request_id, body = requests.new()
            in_flight[request_id] = now()
            sock.send_multipart([b"", body])
            issued += 1

        def open_for_more() -> bool:
            return now() < end_ns and (limit is None or issued < limit)

        while len(in_flight) < config.in_flight and open_for_more():
            send()
        while in_flight:
            oldest = next(iter(in_flight.values()))
            wait_ms = max((oldest + timeout_ns - now() + NS_PER_MS - 1) // NS_PER_MS, 0)
            if poller.poll(wait_ms):
                while True:
                    try:
                        frames = sock.recv_multipart(zmq.NOBLOCK)
                    except zmq.Again:
                        break
                    done_ns = now()
                    request_id, seq = requests.read(frames[-1])
                    sent_ns = in_flight.pop(request_id, None)
                    if sent_ns is None:
                        continue  # the answer to a request that already timed out
                    if measured:
                        tally.sent += 1
                        if seq is None:
                            tally.errors += 1
                        else:
                            tally.record(done_ns, done_ns - sent_ns)
                    if open_for_more():
                        send()
            expired_before = now() - timeout_ns
            for request_id in [i for i, sent in in_flight.items() if sent <= expired_before]:
                del in_flight[request_id]
                if measured:
                    tally.sent += 1
                    tally.timeouts += 1
                if open_for_more():
                    send()

    window_ns = int(config.window_s * NS_PER_S)
    phase(Tally(), now() + window_ns, config.warmup, measured=False)
    tally = Tally()
    tally.start_ns = now()
    phase(tally, tally.start_ns + window_ns, None, measured=True)
    tally.elapsed_ns = now() - tally.start_ns
    return tally


def latest_seq(config: Config, sockets: Sockets, until_ns: int) -> int | None:
    """The sequence number of the symbol's latest tick, asked on the router (REQ, reopened
    after a timeout), or None if no answer came by `until_ns`."""
    requests = Requests(config.symbol)
    while now() < until_ns:
        sock = sockets.open(zmq.REQ, config.router, measured=False)
        request_id, body = requests.new()
        sock.send(body)
        try:
            answered_id, seq = requests.read(sock.recv())
        except zmq.Again:
            continue
        finally:
            sock.close()
        if answered_id == request_id and seq is not None:
            return seq
    return None


@dataclass
class Subscriber:
    sock: zmq.Socket[bytes]
    first: int | None = None  # None: no tick yet
    last: int = 0


def run_pub_sub(config: Config, sockets: Sockets) -> Tally:
    """N subscribers of the symbol's ticks. The window starts when they join, at the tick
    numbered s0 (asked on the router first); after it, the latest tick s_end is asked and the
    subscribers drained for up to RCVTIMEO. Every tick in (s0, s_end] is then either received
    (its publish-to-receive latency recorded) or counted: before a subscriber's first tick as
    `join_gaps` (slow joiner), after it as `gaps` (high-water-mark drops, a lost tail)."""
    tally = Tally()
    window_ns = int(config.window_s * NS_PER_S)
    s0 = latest_seq(config, sockets, now() + window_ns)
    if s0 is None:
        print("quote_load.py: the server's router never answered", file=sys.stderr)
        tally.errors += 1
        return tally
    if config.join_delay_ms:
        time.sleep(config.join_delay_ms / 1000)
    topic = config.symbol.encode()
    subscribers = []
    poller = zmq.Poller()
    for _ in range(config.subscribers):
        sock = sockets.open(zmq.SUB, config.pub)
        sock.setsockopt(zmq.SUBSCRIBE, topic)
        subscribers.append(Subscriber(sock))
        poller.register(sock, zmq.POLLIN)
    by_socket = {s.sock: s for s in subscribers}
    read_delay_s = config.read_delay_us / 1_000_000

    def receive(sub: Subscriber, limit: int | None, until_ns: int) -> None:
        """Takes a batch of the subscriber's ticks (so none of N starves), stopping at
        `until_ns` (a slow reader always has more)."""
        for _ in range(BATCH):
            if now() >= until_ns:
                return
            try:
                frames = sub.sock.recv_multipart(zmq.NOBLOCK)
            except zmq.Again:
                return
            received_ns = now()
            if len(frames) != 2 or frames[0] != topic:
                continue  # another symbol sharing the prefix
            seq_text, stamp_text, *_ = frames[1].split()
            seq = int(seq_text)
            if seq <= s0 or (limit is not None and seq > limit):
                continue  # outside (s0, s_end]
            if sub.first is None:
                sub.first = seq
            elif seq > sub.last + 1:
                tally.gaps += seq - sub.last - 1
            sub.last = seq
            tally.record(received_ns, received_ns - int(stamp_text))
            if read_delay_s:
                time.sleep(read_delay_s)

    tally.start_ns = now()
    end_ns = tally.start_ns + window_ns
    while (left := end_ns - now()) > 0:
        for sock, _ in poller.poll(max(left // NS_PER_MS, 1)):
            receive(by_socket[sock], None, end_ns)
    tally.elapsed_ns = now() - tally.start_ns
    s_end = latest_seq(config, sockets, now() + config.timeout_ns)
    if s_end is None:
        print("quote_load.py: no answer for the last tick's number; the tail is not counted",
              file=sys.stderr)
        tally.errors += 1
        s_end = max([s.last for s in subscribers if s.first is not None], default=s0)
    drain_end = now() + config.timeout_ns
    while any(s.first is None or s.last < s_end for s in subscribers) and now() < drain_end:
        for sock, _ in poller.poll(max((drain_end - now()) // NS_PER_MS, 1)):
            receive(by_socket[sock], s_end, drain_end)
    for sub in subscribers:
        if sub.first is None:
            tally.join_gaps += s_end - s0
        else:
            tally.join_gaps += sub.first - s0 - 1
            tally.backlog += s_end - sub.last
    tally.sent = (s_end - s0) * config.subscribers
    return tally


def report(config: Config, tally: Tally, tuning: dict[str, str]) -> dict[str, Any]:
    window_s = tally.elapsed_ns / NS_PER_S
    return {
        "instrument": INSTRUMENT,
        "pattern": config.pattern,
        "profile": config.profile,
        "symbol": config.symbol,
        "latency_hdr": tally.latency.encode().decode("ascii"),
        "sent": tally.sent,
        "samples": tally.samples,
        "errors": tally.errors,
        "timeouts": tally.timeouts,
        "gaps": tally.gaps,
        "join_gaps": tally.join_gaps,
        "backlog": tally.backlog,
        "window_s": window_s,
        "throughput": tally.samples / window_s if window_s > 0 else 0.0,
        "tuning": tuning,
        "intervals": intervals(tally.answers),
    }


def intervals(answers: Sequence[tuple[int, int]]) -> list[dict[str, int]]:
    """Latency over time: window t_s holds the samples taken in [t_s, t_s + 1) s after the
    window began, from 0 to the last one's, empty ones included; exact nearest-rank
    percentiles over each window's values."""
    if not answers:
        return []
    windows: dict[int, list[int]] = {}
    for at_ns, latency_ns in answers:
        windows.setdefault(max(at_ns, 0) // NS_PER_S, []).append(latency_ns)
    result: list[dict[str, int]] = []
    for t_s in range(max(windows) + 1):
        values = sorted(windows.get(t_s, []))
        window = {"t_s": t_s, "count": len(values)}
        if values:
            for name, permille in INTERVAL_PERCENTILES:
                rank = -(-permille * len(values) // 1000)  # ceil(q/100 x n), from 1
                window[name] = values[max(rank, 1) - 1]
            window["max"] = values[-1]
        result.append(window)
    return result


def endpoint(text: str) -> str:
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise argparse.ArgumentTypeError(f"'{text}' is not HOST:PORT")
    return f"tcp://{text}"


def bounded(kind: type, low: float, high: float) -> Any:
    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not a {kind.__name__}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is not in {low}..{high}")
        return value
    return parse


def parse_args(argv: Sequence[str]) -> Config:
    parser = argparse.ArgumentParser(prog="quote_load.py", description=__doc__)
    parser.add_argument("--pattern", required=True, choices=PATTERNS)
    parser.add_argument("--profile", required=True, choices=sorted(PROFILES))
    parser.add_argument("--symbol", required=True)
    parser.add_argument("--router", required=True, type=endpoint)
    parser.add_argument("--pub", required=True, type=endpoint)
    parser.add_argument("--window", required=True, type=bounded(float, 0.001, 86400))
    parser.add_argument("--warmup", type=bounded(int, 0, 10**7), default=0)
    parser.add_argument("--in-flight", type=bounded(int, 1, 10000), default=1)
    parser.add_argument("--subscribers", type=bounded(int, 1, 10000), default=1)
    parser.add_argument("--join-delay-ms", type=bounded(int, 0, 3_600_000), default=0)
    parser.add_argument("--read-delay-us", type=bounded(int, 0, 10_000_000), default=0)
    args = parser.parse_args(argv)
    if not SYMBOL.fullmatch(args.symbol):
        parser.error("--symbol is 1..32 of A-Z a-z 0-9 . _ -")
    return Config(args.pattern, args.profile, args.symbol, args.router, args.pub, args.window,
                  args.warmup, args.in_flight, args.subscribers, args.join_delay_ms,
                  args.read_delay_us)


def main(argv: Sequence[str]) -> int:
    config = parse_args(argv)
    sockets = Sockets(config)
    run = {"req-rep": run_req_rep, "dealer-router": run_dealer_router,
           "pub-sub": run_pub_sub}[config.pattern]
    tally = run(config, sockets)
    tuning = sockets.tuning or {}
    document = report(config, tally, tuning)
    print(json.dumps(document))
    print(f"quote_load.py: {config.pattern} {config.profile} {config.symbol}: "
          f"{tally.samples} samples, {tally.timeouts} timeouts, {tally.errors} errors, "
          f"{tally.gaps} gaps, {tally.join_gaps} join gaps, {tally.backlog} unread in "
          f"{document['window_s']:.3f} s",
          file=sys.stderr)
    sys.stdout.flush()
    # Not Context.term(): a socket closed with LINGER -1 (the baseline) while a request to a
    # dead server was pending would hold it forever. The process exit ends libzmq's threads.
    os._exit(0 if tally.samples > 0 else 1)


if __name__ == "__main__":
    main(sys.argv[1:])
