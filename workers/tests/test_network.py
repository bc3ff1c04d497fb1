"""Network profiles: the lab's file, how a suite opts in, and real Toxiproxy between a TCP
client and an echo server adding what the profile says.

Tolerances: a toxic delays every chunk by latency +- jitter ms each way, so a round trip
through `wan` (40 +- 10 ms) takes at least 60 ms more than a direct one — a floor the proxy
cannot undercut, asserted exactly — and its median added delay is 80 ms, asserted within
+-15 ms (the machine's noise only adds a few ms; the median of 30 triangular draws on
[60, 100] ms strays a few ms from 80)."""

import contextlib
import socket
import statistics
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from test_suites import MINIMAL, write

from latlab_workers.network import (
    Network,
    NetworkError,
    NetworkProfile,
    load_profiles,
)
from latlab_workers.processes import ProgramGroup, program_env
from latlab_workers.suites import SuiteError, load_suite


def test_the_lab_profiles_load_with_a_direct_default() -> None:
    profiles = load_profiles()
    assert profiles.default == "loopback" and not profiles.profiles["loopback"].proxy
    assert {"loopback", "lan", "wan", "congested"} <= set(profiles.profiles)
    wan = profiles.profiles["wan"]
    assert (wan.latency_ms, wan.jitter_ms) == (40, 10)
    congested = profiles.profiles["congested"]
    assert congested.bandwidth_kb_s and congested.stall_ms and congested.stall_every_s
    schema = profiles.param_schema()
    assert "default" not in schema and set(schema["enum"]) == set(profiles.profiles)


@pytest.mark.parametrize(("text", "message"), [
    ('default = "x"\n[profiles.a]\ndescription = "a"\n', "default: no profile 'x'"),
    ('default = "a"\n[profiles.a]\ndescription = "a"\nlatency_ms = 5\njitter_ms = 6\n',
     "jitter_ms is more than latency_ms"),
    ('default = "a"\n[profiles.a]\ndescription = "a"\nstall_ms = 5\n', "give both stall_ms"),
    ('default = "a"\n[profiles.a]\ndescription = "a"\nstall_ms = 5000\nstall_every_s = 2\n',
     "stall_ms is not shorter"),
    ('default = "a"\n[profiles.a]\ndescription = "a"\nproxy = false\nlatency_ms = 1\n',
     "without a proxy"),
    ('default = "a"\n[profiles.a]\ndescription = "a"\nlatncy_ms = 1\n',
     "profiles.a.latncy_ms: Extra inputs"),
    ('default = "a"\n[profiles.A]\ndescription = "a"\n', "profiles.A"),
])
def test_a_bad_profiles_file_is_refused_naming_the_key(tmp_path: Path, text: str,
                                                       message: str) -> None:
    path = tmp_path / "profiles.toml"
    path.write_text(text)
    with pytest.raises(NetworkError, match=str(path)) as error:
        load_profiles(path)
    assert message in str(error.value)


NETWORKED = MINIMAL.replace('ready = "stdout-json"\n', 'ready = "stdout-json"\n'
                            'endpoints = ["listening"]\n', 1)


def test_a_suite_with_endpoints_takes_the_network_param(tmp_path: Path) -> None:
    suite = load_suite(write(tmp_path, NETWORKED))
    assert suite.uses_network
    schema = suite.params_schema["properties"]["network"]
    assert schema == load_profiles().param_schema()
    # No default: a job that names no network keeps the params of runs older than networks
    # (their history), and runs on the default profile.
    assert "default" not in schema and "loopback" in schema["description"]
    assert "network" not in suite.resolved_params("default", {})
    plain = load_suite(write(tmp_path / "plain", MINIMAL))
    assert not plain.uses_network and "network" not in plain.params_schema["properties"]


@pytest.mark.parametrize(("change", "message"), [
    (lambda t: t.replace("[params.flag]", "[params.network]"), "params.network: the runner's"),
    (lambda t: t.replace('[scenarios.default]\nparams = {}',
                         '[scenarios.default]\nparams = { network = "mars" }'),
     "no network profile 'mars'"),
    (lambda t: t.replace('command = ["b"]\n', 'command = ["b"]\nendpoints = ["x"]\n'),
     "`endpoints` are announced fields"),
])
def test_network_opt_in_mistakes_are_refused(tmp_path: Path, change, message: str) -> None:
    with pytest.raises(SuiteError, match=message):
        load_suite(write(tmp_path, change(NETWORKED)))


@contextmanager
def echo_server() -> Iterator[str]:
    """A TCP echo server on loopback (one thread per connection); yields "127.0.0.1:PORT"."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve(conn: socket.socket) -> None:
        with conn:
            while data := conn.recv(65536):
                conn.sendall(data)

    def accept() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    try:
        yield f"127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        listener.close()


@contextmanager
def network(profile: NetworkProfile, tmp_path: Path, env: dict | None = None
            ) -> Iterator[tuple[Network, ProgramGroup]]:
    group = ProgramGroup(tmp_path)
    net = Network("test", profile, group, env or program_env(), tmp_path)
    try:
        yield net, group
    finally:
        net.close()
        group.kill_all()


def connect(address: str) -> socket.socket:
    host, port = address.rsplit(":", 1)
    conn = socket.create_connection((host, int(port)), timeout=10)
    conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    return conn


def round_trips(address: str, count: int, size: int = 16) -> list[float]:
    """Seconds per echo of `size` bytes, one after another on one connection."""
    times = []
    with connect(address) as conn:
        for i in range(count):
            payload = bytes([i % 256]) * size
            started = time.monotonic()
            conn.sendall(payload)
            got = b""
            while len(got) < size:
                chunk = conn.recv(size - len(got))
                assert chunk, f"the connection closed after {len(got)} of {size} bytes"
                got += chunk
            times.append(time.monotonic() - started)
            assert got == payload
    return times


def test_wan_adds_its_latency_each_way(tmp_path: Path) -> None:
    wan = load_profiles().profiles["wan"]
    with echo_server() as address, network(wan, tmp_path) as (net, group):
        exposed = net.expose("server", ["listening"], {"listening": address, "other": "x"})
        assert exposed["other"] == "x" and exposed["listening"] != address
        assert "toxiproxy" in group.processes  # one of the job's programs, killed with it
        direct = round_trips(address, 30)
        proxied = round_trips(exposed["listening"], 30)
    floor = 2 * (wan.latency_ms - wan.jitter_ms) / 1000
    assert min(proxied) >= floor, (min(proxied), floor)
    added = statistics.median(proxied) - statistics.median(direct)
    assert abs(added - 2 * wan.latency_ms / 1000) <= 0.015, added


def test_a_stall_holds_the_data_then_delivers_all_of_it_in_order(tmp_path: Path) -> None:
    """A 400 ms stall every second: echoes sent across it wait for it to end; none is lost
    or reordered (round_trips checks each echo)."""
    stalling = NetworkProfile(description="stalls", stall_ms=400, stall_every_s=1.0)
    with echo_server() as address, network(stalling, tmp_path) as (net, _):
        exposed = net.expose("server", ["listening"], {"listening": address})
        times = []
        deadline = time.monotonic() + 2.5
        while time.monotonic() < deadline:
            times += round_trips(exposed["listening"], 5)
            time.sleep(0.02)
        net.check()
    assert max(times) >= 0.2, max(times)  # an echo caught in a stall waited for its end
    assert statistics.median(times) < 0.2  # most are not


def test_a_server_restarted_during_a_stall_keeps_the_stalls_going(tmp_path: Path) -> None:
    """A server stopped and started again (a run's next series) while a stall is on gets a
    proxy of its own: lifting the stall leaves it alone, and the next stall holds it."""
    stalling = NetworkProfile(description="stalls", stall_ms=400, stall_every_s=1.0)
    with echo_server() as address, network(stalling, tmp_path) as (net, _):
        net.expose("server", ["listening"], {"listening": address})
        started = time.monotonic()  # the stalls' clock started just before
        time.sleep(started + 1.15 - time.monotonic())  # inside the first stall
        net.forget("server")
        exposed = net.expose("server", ["listening"], {"listening": address})
        time.sleep(started + 1.6 - time.monotonic())  # the first stall lifted
        net.check()
        assert max(round_trips(exposed["listening"], 5)) < 0.2  # before the second stall
        times = []
        while time.monotonic() < started + 2.6:
            times += round_trips(exposed["listening"], 5)
        net.check()
    assert max(times) >= 0.2, max(times)  # the second stall held the new proxy too


def test_a_dropping_stall_loses_what_it_meets(tmp_path: Path) -> None:
    """A 600 ms dropping stall every 2 s (the first 2 s after toxiproxy starts): an echo
    sent inside it never comes back, even after the stall ends (Toxiproxy closes the
    connection then); echoes before it, and after it on a new connection, do."""
    dropping = NetworkProfile(description="drops", stall_ms=600, stall_every_s=2.0,
                              stall_drops=True)
    with echo_server() as address, network(dropping, tmp_path) as (net, _):
        exposed = net.expose("server", ["listening"], {"listening": address})
        started = time.monotonic()  # the stalls' clock started just before
        assert max(round_trips(exposed["listening"], 5)) < 0.5  # before the first stall
        time.sleep(started + 2.15 - time.monotonic())
        with connect(exposed["listening"]) as conn:  # inside the stall
            conn.settimeout(started + 3.15 - time.monotonic())
            conn.sendall(b"lost in the stall")
            # The echo never comes: the connection ends with the stall, or stays silent.
            with contextlib.suppress(TimeoutError):
                assert conn.recv(64) == b""
        time.sleep(max(0.0, started + 3.0 - time.monotonic()))  # both directions lifted
        assert max(round_trips(exposed["listening"], 5)) < 0.5  # a new connection works
        net.check()


def test_bandwidth_caps_the_rate(tmp_path: Path) -> None:
    """64 KB echoed at 32 KB/s each way takes at least about 2 s (the toxic sleeps
    size / rate per chunk); direct it takes milliseconds."""
    capped = NetworkProfile(description="capped", bandwidth_kb_s=32)
    with echo_server() as address, network(capped, tmp_path) as (net, _):
        exposed = net.expose("server", ["listening"], {"listening": address})
        (elapsed,) = round_trips(exposed["listening"], 1, size=64 * 1024)
    assert elapsed >= 1.5, elapsed


def test_the_direct_profile_changes_nothing_and_starts_nothing(tmp_path: Path) -> None:
    loopback = load_profiles().profiles["loopback"]
    with network(loopback, tmp_path) as (net, group):
        assert net.expose("server", ["listening"], {"listening": "127.0.0.1:9"}) == {
            "listening": "127.0.0.1:9"}
        assert group.processes == {}


def test_a_missing_toxiproxy_is_a_clear_error(tmp_path: Path) -> None:
    wan = load_profiles().profiles["wan"]
    env = {"PATH": str(Path(sys.executable).parent.parent / "nothing-here")}
    with network(wan, tmp_path, env) as (net, _), pytest.raises(
            NetworkError, match="needs toxiproxy-server on the programs' PATH"):
        net.expose("server", ["listening"], {"listening": "127.0.0.1:9"})


def test_a_server_that_did_not_announce_an_endpoint_is_an_error(tmp_path: Path) -> None:
    wan = load_profiles().profiles["wan"]
    with network(wan, tmp_path) as (net, _), pytest.raises(
            NetworkError, match=r"did not announce its endpoints \['pub'\]"):
        net.expose("server", ["router", "pub"], {"router": "127.0.0.1:9"})


def test_toxiproxy_dying_fails_the_check(tmp_path: Path) -> None:
    with echo_server() as address, network(load_profiles().profiles["lan"], tmp_path) as (
            net, group):
        net.expose("server", ["listening"], {"listening": address})
        net.check()
        group.processes["toxiproxy"].kill()
        group.processes["toxiproxy"].wait()
        with pytest.raises(NetworkError, match="toxiproxy exited"):
            net.check()

