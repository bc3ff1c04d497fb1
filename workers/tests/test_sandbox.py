"""The sandbox of code under test, each property seen from inside a confined program (real
processes, sockets, files and users). Each isolation test runs twice: isolated, where the
probe must fail, and with the isolation switched off, where the same probe must succeed (so
the test can fail). The code user here is one of the tests' own, so that `close` kills no
process of a runner's job on the same host."""

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from latlab_workers.processes import ProgramGroup, read_line
from latlab_workers.sandbox import Limits, Sandbox, SandboxError, running_as

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="isolating code needs root")

TEST_USER = "latlab-code-test"
SECRET = "redis://:s3cret-of-the-lab@127.0.0.1:63799/0"
TIMEOUT_S = 30.0
ISOLATION = pytest.mark.parametrize("sandbox", [True, False], ids=["isolated", "not-isolated"],
                                    indirect=True)


@pytest.fixture(scope="module")
def code_user() -> pwd.struct_passwd:
    """The tests' code user, made once per host as scripts/bootstrap.sh makes latlab-code."""
    try:
        return pwd.getpwnam(TEST_USER)
    except KeyError:
        subprocess.run(["useradd", "--system", "--no-create-home", "--shell",
                        "/usr/sbin/nologin", TEST_USER], check=True, timeout=TIMEOUT_S)
        return pwd.getpwnam(TEST_USER)


@pytest.fixture
def workdir() -> Iterator[Path]:
    """A directory the code user may pass through (pytest's own are closed to others)."""
    path = Path(tempfile.mkdtemp(prefix="latlab-sandbox-test-"))
    path.chmod(0o711)
    yield path
    shutil.rmtree(path)


@pytest.fixture
def sandbox(request: pytest.FixtureRequest, code_user: pwd.struct_passwd,
            workdir: Path) -> Iterator[Sandbox]:
    isolate = getattr(request, "param", True)
    with Sandbox(workdir, user=code_user.pw_name, isolate=isolate) as sandbox:
        yield sandbox


def start(sandbox: Sandbox, code: str, preexec: Callable[[], None],
          name: str = "probe") -> subprocess.Popen[bytes]:
    """A Python program started as the runner starts a job's programs."""
    home = sandbox.workdir / "home"
    return ProgramGroup(sandbox.workdir).start(
        name, ["python3", "-c", code], cwd=home, env=sandbox.env(home), preexec=preexec)


def run(sandbox: Sandbox, code: str, limits: Limits = Limits(), network: bool = False) -> str:
    """What a confined Python program printed."""
    process = start(sandbox, code, sandbox.confine(limits, network=network))
    out, _ = process.communicate(timeout=TIMEOUT_S)
    return out.decode().strip()


def connect_code(port: int) -> str:
    """A program that connects to 127.0.0.1:port and says how that went."""
    return f"""
import socket
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=5).close()
    print("connected")
except OSError as error:
    print(type(error).__name__)
"""


@pytest.fixture
def lab_port() -> Iterator[int]:
    """A server on the host's loopback standing in for the lab's Redis or Postgres."""
    with socket.create_server(("127.0.0.1", 0)) as server:
        yield server.getsockname()[1]


@ISOLATION
def test_code_finds_none_of_the_runners_secrets(sandbox: Sandbox,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LATLAB_REDIS_URL", SECRET)
    printed = run(sandbox, "import os\nfor k, v in os.environ.items(): print(f'{k}={v}')")
    assert f"HOME={sandbox.workdir / 'home'}" in printed  # the probe ran and printed
    assert (SECRET in printed) is not sandbox.isolate


@ISOLATION
def test_code_cannot_reach_the_hosts_loopback(sandbox: Sandbox, lab_port: int) -> None:
    reached = run(sandbox, connect_code(lab_port))
    assert reached == ("ConnectionRefusedError" if sandbox.isolate else "connected")


def test_a_build_with_network_reaches_the_host(sandbox: Sandbox, lab_port: int) -> None:
    assert run(sandbox, connect_code(lab_port), network=True) == "connected"


@ISOLATION
def test_the_labs_programs_join_the_code_in_its_namespace(sandbox: Sandbox) -> None:
    with socket.create_server(("127.0.0.1", 0)) as free:
        port = free.getsockname()[1]
    serve = f"""
import socket
server = socket.create_server(("127.0.0.1", {port}))
print("ready", flush=True)
server.settimeout({TIMEOUT_S})
while True:
    peer, _ = server.accept()
    peer.sendall(b"hello")
    peer.close()
"""
    server = start(sandbox, serve, sandbox.confine(), name="server")
    try:
        assert read_line(server.stdout, time.monotonic() + TIMEOUT_S) == "ready"
        client = start(sandbox, f"""
import socket
print(socket.create_connection(("127.0.0.1", {port}), timeout=5).recv(5).decode())
""", sandbox.join(), name="client")
        assert client.communicate(timeout=TIMEOUT_S)[0].decode().strip() == "hello"
        # From outside the namespace, the runner's own network, the server is not there.
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=5):
                reached = True
        except ConnectionRefusedError:
            reached = False
        assert reached is not sandbox.isolate
    finally:
        server.kill()
        server.wait(timeout=TIMEOUT_S)


@ISOLATION
def test_no_daemon_survives_the_job(sandbox: Sandbox, code_user: pwd.struct_passwd) -> None:
    daemonize = """
import os, time
said, say = os.pipe()
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        quiet = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(quiet, fd)
        os.write(say, f"{os.getpid()}\\n".encode())
        time.sleep(600)
    os._exit(0)
os.wait()
print(os.read(said, 64).decode().strip())
"""
    daemon = int(run(sandbox, daemonize))
    try:
        assert running(daemon)
        sandbox.close()
        assert running(daemon) is not sandbox.isolate
        if sandbox.isolate:
            assert running_as(code_user.pw_uid) == []
    finally:
        if running(daemon):
            os.kill(daemon, 9)


@ISOLATION
def test_code_cannot_read_root_only_files(sandbox: Sandbox) -> None:
    secret = sandbox.workdir / "secret"
    secret.write_text(SECRET)
    secret.chmod(0o600)
    printed = run(sandbox, f"""
try:
    print(open("{secret}").read())
except OSError as error:
    print(type(error).__name__)
""")
    assert printed == ("PermissionError" if sandbox.isolate else SECRET)


@ISOLATION
def test_code_runs_under_its_limits(sandbox: Sandbox) -> None:
    limits = Limits(cpu_s=123, memory_mb=2345, file_mb=67, processes=345, open_files=456)
    printed = run(sandbox, "print(open('/proc/self/limits').read())", limits)
    rows = {line[:26].strip(): line[26:].split()[:2] for line in printed.splitlines()[1:]}
    mb = 1 << 20
    expected = {"Max cpu time": 123, "Max address space": 2345 * mb,
                "Max file size": 67 * mb, "Max processes": 345, "Max open files": 456}
    applied = {name: [str(value)] * 2 == rows[name] for name, value in expected.items()}
    assert applied == dict.fromkeys(expected, sandbox.isolate)


def test_an_unknown_code_user_is_named(workdir: Path) -> None:
    with pytest.raises(SandboxError, match="no user 'latlab-no-such-user'"):
        Sandbox(workdir, user="latlab-no-such-user")


def test_a_workdir_closed_to_the_code_user_is_refused(code_user: pwd.struct_passwd,
                                                      workdir: Path) -> None:
    workdir.chmod(0o700)
    with pytest.raises(SandboxError, match=f"cannot reach {workdir}"):
        Sandbox(workdir, user=code_user.pw_name)


def running(pid: int) -> bool:
    """Whether the process runs (a zombie has ended)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    return "\nState:\tZ" not in status
