"""Network profiles: what lies between a job's load programs and its servers.

One lab-wide file (`workers/network_profiles.toml`, validated when it is loaded) names the
profiles. A suite opts in by listing, for a server, the announced fields that are addresses
the load connects to (`endpoints`); it then takes the `network` param, whose value names a
profile. A direct profile changes nothing; any other puts a Toxiproxy proxy in front of each
endpoint, with the profile's toxics on both directions, and hands the load the proxy's
address instead. Toxiproxy (`toxiproxy-server`, a Go program a suite's `[toolchain]`
installs next to the runner's interpreter) runs as one of the job's programs.
"""

import json
import shutil
import socket
import subprocess
import threading
import time
import tomllib
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Annotated, Any, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from latlab_contract.fields import Slug

PROFILES_FILE = Path(__file__).resolve().parents[1] / "network_profiles.toml"
PARAM = "network"
TOXIPROXY = "toxiproxy-server"
PROGRAM = "toxiproxy"  # its name among the job's programs
STALL_LATENCY_MS = 3_600_000  # a stall holds data "for an hour", until it is lifted
START_TIMEOUT_S = 10.0
STREAMS = ("upstream", "downstream")


class NetworkError(Exception):
    pass


class NetworkProfile(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    description: str
    proxy: bool = True
    latency_ms: Annotated[int, Field(ge=0, le=60_000)] = 0
    jitter_ms: Annotated[int, Field(ge=0, le=60_000)] = 0
    bandwidth_kb_s: Annotated[int, Field(ge=1, le=10_000_000)] | None = None
    stall_ms: Annotated[int, Field(ge=1, le=600_000)] | None = None
    stall_every_s: Annotated[float, Field(gt=0, le=3600)] | None = None
    # A stall that drops what it meets instead of holding it, the connections it met closed
    # as it ends (Toxiproxy's `timeout` toxic, timeout 0): requests time out, peers reconnect.
    stall_drops: bool = False

    @model_validator(mode="after")
    def consistent(self) -> "NetworkProfile":
        if self.jitter_ms > self.latency_ms:
            raise ValueError("jitter_ms is more than latency_ms (a delay cannot be negative)")
        if (self.stall_ms is None) != (self.stall_every_s is None):
            raise ValueError("give both stall_ms and stall_every_s, or neither")
        if self.stall_drops and self.stall_ms is None:
            raise ValueError("stall_drops needs stall_ms and stall_every_s")
        if self.stall_ms is not None and self.stall_every_s is not None and (
                self.stall_ms >= self.stall_every_s * 1000):
            raise ValueError("stall_ms is not shorter than stall_every_s")
        if not self.proxy and self.toxics():
            raise ValueError("a profile without a proxy (proxy = false) cannot add anything")
        return self

    def toxics(self) -> list[dict[str, Any]]:
        """The Toxiproxy toxics of the profile (stalls aside), for each direction."""
        toxics = []
        for stream in STREAMS:
            if self.latency_ms or self.jitter_ms:
                toxics.append({"name": f"latency-{stream}", "type": "latency", "stream": stream,
                               "attributes": {"latency": self.latency_ms,
                                              "jitter": self.jitter_ms}})
            if self.bandwidth_kb_s is not None:
                toxics.append({"name": f"bandwidth-{stream}", "type": "bandwidth",
                               "stream": stream, "attributes": {"rate": self.bandwidth_kb_s}})
        return toxics


class Profiles(BaseModel):
    """network_profiles.toml."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    default: str
    profiles: Annotated[dict[Slug, NetworkProfile], Field(min_length=1)]

    @model_validator(mode="after")
    def default_exists(self) -> "Profiles":
        if self.default not in self.profiles:
            raise ValueError(f"default: no profile '{self.default}'")
        return self

    def param_schema(self) -> dict[str, Any]:
        """The JSON Schema of the `network` param. It has no default on purpose: a job that
        names no network runs on the default profile and its params stay as they were before
        suites had networks, so its runs still share histories with the older ones."""
        return {"type": "string", "enum": list(self.profiles),
                "description": f"Network between the load and the servers (none given: "
                f"{self.default}): " + "; ".join(
                    f"{name} ({p.description})" for name, p in self.profiles.items())}


def load_profiles(path: Path = PROFILES_FILE) -> Profiles:
    try:
        data = tomllib.loads(path.read_text())
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise NetworkError(f"{path}: {error}") from error
    try:
        return Profiles.model_validate(data)
    except ValidationError as error:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e['loc']) or '(top level)'}: {e['msg']}"
            for e in error.errors(include_url=False))
        raise NetworkError(f"{path}: {problems}") from None


class Programs(Protocol):
    """The job's programs (the runner's ProgramGroup)."""

    def start(self, name: str, argv: list[str], cwd: Path, env: dict[str, str] | None = None,
              log_only: bool = False) -> subprocess.Popen[bytes]: ...

    def stderr_tail(self, name: str, limit: int = 2000) -> str: ...


class Network:
    """A job's network: direct, or Toxiproxy with the profile between load and servers."""

    def __init__(self, name: str, profile: NetworkProfile, programs: Programs,
                 env: dict[str, str], cwd: Path) -> None:
        self.name = name
        self.profile = profile
        self.programs = programs
        self.env = env
        self.cwd = cwd
        self.api = ""
        self.process: subprocess.Popen[bytes] | None = None
        self.proxies: dict[str, list[str]] = {}  # server -> its proxies' names
        # Each proxy's name is new (numbered), so a server started again under its old name
        # (a run's next series) is not mistaken by the stall thread for the proxy it stalled.
        self.made = 0
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.failure: str | None = None  # set by the stall thread

    def expose(self, server: str, endpoints: list[str],
               announced: dict[str, str]) -> dict[str, str]:
        """What the load sees of a server's announced fields: each endpoint replaced by the
        address of a proxy in front of it (unless the profile is direct)."""
        if not self.profile.proxy or not endpoints:
            return announced
        missing = [f for f in endpoints if f not in announced]
        if missing:
            raise NetworkError(f"{server} did not announce its endpoints {missing}")
        if self.process is None:
            self._start()
        exposed = dict(announced)
        with self.lock:
            for field in endpoints:
                self.made += 1
                proxy = f"{server}.{field}.{self.made}"
                created = self._call("POST", "/proxies", {
                    "name": proxy, "listen": "127.0.0.1:0", "upstream": announced[field],
                    "enabled": True})
                self.proxies.setdefault(server, []).append(proxy)
                for toxic in self.profile.toxics():
                    self._call("POST", f"/proxies/{_quote(proxy)}/toxics", toxic)
                exposed[field] = str(created["listen"])
        return exposed

    def forget(self, server: str) -> None:
        """Removes the proxies of a server that was stopped."""
        with self.lock:
            for proxy in self.proxies.pop(server, []):
                self._call("DELETE", f"/proxies/{_quote(proxy)}")

    def check(self) -> None:
        """Toxiproxy died or a stall could not be applied: the measurement is not what the
        profile says."""
        if self.failure is not None:
            raise NetworkError(self.failure)
        if self.process is not None and self.process.poll() is not None:
            raise NetworkError(f"toxiproxy exited with {self.process.returncode} during the "
                               f"measurement: {self.programs.stderr_tail(PROGRAM)}")

    def close(self) -> None:
        self.stop.set()

    def _start(self) -> None:
        executable = shutil.which(TOXIPROXY, path=self.env.get("PATH"))
        if executable is None:
            raise NetworkError(f"network profile '{self.name}' needs {TOXIPROXY} on the "
                               f"programs' PATH (a suite's [toolchain] go entry installs it: "
                               f"scripts/toolchain.py install)")
        for _ in range(3):  # the port is picked free, but another program may take it first
            port = _free_port()
            process = self.programs.start(
                PROGRAM, [executable, "-host", "127.0.0.1", "-port", str(port)], self.cwd,
                {**self.env, "LOG_LEVEL": "warn"}, log_only=True)
            self.api = f"http://127.0.0.1:{port}"
            if self._answers(process):
                self.process = process
                if self.profile.stall_ms is not None:
                    threading.Thread(target=self._stalls, name="network-stalls",
                                     daemon=True).start()
                return
            process.kill()
            process.wait()
        raise NetworkError(f"toxiproxy did not start: {self.programs.stderr_tail(PROGRAM)}")

    def _answers(self, process: subprocess.Popen[bytes]) -> bool:
        until = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < until and process.poll() is None:
            try:
                if "version" in self._call("GET", "/version"):
                    return True
            except NetworkError:
                time.sleep(0.05)
        return False

    def _stalls(self) -> None:
        """Every stall_every_s seconds (from the start), a stall toxic on every proxy, both
        directions, for stall_ms; lifting it delivers what it held (or, with stall_drops,
        what it met is gone and its connections closed)."""
        assert self.profile.stall_ms is not None and self.profile.stall_every_s is not None
        every, hold = self.profile.stall_every_s, self.profile.stall_ms / 1000
        kind, attributes = (("timeout", {"timeout": 0}) if self.profile.stall_drops
                            else ("latency", {"latency": STALL_LATENCY_MS}))
        started = time.monotonic()
        beat = 1
        while not self.stop.wait(max(started + beat * every - time.monotonic(), 0)):
            beat += 1
            try:
                with self.lock:
                    stalled = [p for names in self.proxies.values() for p in names]
                    for proxy in stalled:
                        for stream in STREAMS:
                            self._call("POST", f"/proxies/{_quote(proxy)}/toxics", {
                                "name": f"stall-{stream}", "type": kind, "stream": stream,
                                "attributes": attributes})
                self.stop.wait(hold)
                with self.lock:
                    for proxy in stalled:
                        if any(proxy in names for names in self.proxies.values()):
                            for stream in STREAMS:
                                self._call("DELETE", f"/proxies/{_quote(proxy)}/toxics/"
                                           f"stall-{stream}")
            except NetworkError as error:
                if not self.stop.is_set():
                    self.failure = f"a network stall could not be applied: {error}"
                return

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        request = urllib.request.Request(
            self.api + path, method=method, headers={"Content-Type": "application/json"},
            data=None if body is None else json.dumps(body).encode())
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                data = response.read()
        except urllib.error.HTTPError as error:
            raise NetworkError(f"toxiproxy refused {method} {path}: {error.code} "
                               f"{error.read()[:300].decode(errors='replace')}") from error
        except OSError as error:
            raise NetworkError(f"toxiproxy did not answer {method} {path}: {error}") from error
        return json.loads(data) if data.strip() else None


def _quote(name: str) -> str:
    return urllib.parse.quote(name, safe="")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port
