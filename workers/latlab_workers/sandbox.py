"""Code under test (a repository's build and the programs it builds) runs confined.

The security model. What a repository builds and runs is a team's code, not the lab's; each
job that runs it gets a `Sandbox`, and the code runs:
- as the unprivileged code user (`latlab-code`, setting LATLAB_CODE_USER, made by
  scripts/bootstrap.sh), without supplementary groups and with no_new_privs (no setuid binary
  gives root back): it cannot read the runner's files (its settings, caches, other projects'
  checkouts, anything root-only) nor signal the runner's processes;
- with an environment of its own (`env`): nothing of the runner's, so no broker URL, no
  tokens, no LATLAB_* setting;
- in the job's own network namespace, which holds only a loopback: it cannot reach the lab's
  Redis or Postgres on the host's loopback nor anything else. The lab's programs of the job
  (load clients, toxiproxy) `join` that namespace to reach the server it runs;
- under rlimits (`Limits`): CPU seconds, address space, file size, processes, open files;
- and after the job (`close`) every process of the code user is killed: no daemon survives.

What is not isolated: the code user is one per host, so its processes are killed by user, and
that is right only because dispatch runs one job at a time per host. rlimits bind each process
(processes and open files count per user), not the job as a whole as a cgroup would. The code
user can read what any user can read (world-readable system files) and write where any user
can (/tmp). A build of a repository with `build_network` true runs in the host's network
namespace (it fetches dependencies), so it can reach whatever the host's loopback serves.

Isolating needs root (the runner then starts each program and may change users); without
root a job that runs a repository's code fails with a clear error.
"""

import ctypes
import os
import pwd
import resource
import select
import signal
import socket
import stat
import struct
import subprocess
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fcntl import ioctl
from pathlib import Path
from types import TracebackType

from latlab_workers.errors import JobError
from latlab_workers.processes import die_with_parent, program_env
from latlab_workers.settings import get_settings

# The code user's PATH: the system's and the toolchains installed for every user, never
# root's own (~/.cargo, the runner's virtualenv).
CODE_PATH = "/usr/local/go/bin:/usr/local/bin:/usr/local/sbin:/usr/bin:/usr/sbin:/bin:/sbin"
CLOSE_TIMEOUT_S = 10.0

_MB = 1 << 20
_CLONE_NEWNET = 0x40000000
_PR_SET_NO_NEW_PRIVS = 38
_SIOCGIFFLAGS = 0x8913
_SIOCSIFFLAGS = 0x8914
_IFF_UP = 0x1


@dataclass(frozen=True)
class Limits:
    """rlimits of code under test; the defaults leave room to build a Go or Rust program."""

    cpu_s: int = 3600
    memory_mb: int = 8192  # address space (RLIMIT_AS)
    file_mb: int = 4096  # the largest file it may write (RLIMIT_FSIZE)
    processes: int = 1024  # of the code user, on the host (RLIMIT_NPROC)
    open_files: int = 4096

    def rlimits(self) -> list[tuple[int, int]]:
        return [(resource.RLIMIT_CPU, self.cpu_s),
                (resource.RLIMIT_AS, self.memory_mb * _MB),
                (resource.RLIMIT_FSIZE, self.file_mb * _MB),
                (resource.RLIMIT_NPROC, self.processes),
                (resource.RLIMIT_NOFILE, self.open_files)]


class SandboxError(JobError):
    pass


class Sandbox:
    """One per job that runs a repository's code: the job's network namespace (held by a
    process that dies with the runner) and the code user the code runs as.

    `workdir` is where the job gives the code user its files; the code user must be able to
    reach it (no directory on its way closed to others, as tempfile's are). `isolate=False`
    confines nothing: the code runs as programs of the lab do (the tests' baseline)."""

    def __init__(self, workdir: Path, *, user: str | None = None, isolate: bool = True) -> None:
        self.workdir = workdir
        self.isolate = isolate
        self.user = user or get_settings().code_user
        self._libc = ctypes.CDLL(None, use_errno=True)
        self._holder: subprocess.Popen[bytes] | None = None
        self._namespace = -1  # the namespace's file descriptor, while it is open
        if not isolate:
            return
        if os.geteuid() != 0:
            raise SandboxError("the runner must run as root to isolate code under test")
        try:
            account = pwd.getpwnam(self.user)
        except KeyError:
            raise SandboxError(f"no user '{self.user}': run scripts/bootstrap.sh") from None
        if account.pw_uid == 0:
            raise SandboxError(f"the code user '{self.user}' is root: it would isolate nothing")
        self.uid, self.gid = account.pw_uid, account.pw_gid
        self._check_reachable(workdir)
        self._start_holder()

    def join(self) -> Callable[[], None]:
        """A preexec_fn for the lab's own programs of the job: they enter its namespace."""
        namespace, libc = self._namespace, self._libc

        def enter() -> None:
            if namespace >= 0 and libc.setns(namespace, _CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), "setns")
        return enter

    def confine(self, limits: Limits = Limits(), network: bool = False) -> Callable[[], None]:
        """A preexec_fn for code under test: in the job's namespace (the host's with
        `network`), under `limits`, as the code user, dying with the runner."""
        if not self.isolate:
            return _as_it_is
        enter = _as_it_is if network else self.join()
        rlimits, uid, gid, libc = limits.rlimits(), self.uid, self.gid, self._libc

        def confined() -> None:
            enter()
            for which, value in rlimits:
                resource.setrlimit(which, (value, value))
            if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
                raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
            os.setgroups([])
            os.setgid(gid)
            os.setuid(uid)
            die_with_parent()  # the change of user cleared it
        return confined

    def env(self, home: Path, extra: Mapping[str, str] = {}) -> dict[str, str]:
        """The whole environment of code under test: its own HOME (TMPDIR, the Go and Cargo
        caches under it) and `extra`; nothing of the runner's unless isolation is off. HOME
        and its tmp, when missing, are made (the code user's)."""
        for directory in (home, home / "tmp"):
            if not directory.is_dir():
                self.give(directory)
        inherited = {"PATH": CODE_PATH} if self.isolate else program_env()
        own = {"HOME": str(home), "TMPDIR": str(home / "tmp"), "LANG": "C.UTF-8",
               "GOCACHE": str(home / ".cache" / "go-build"), "GOPATH": str(home / "go"),
               "CARGO_HOME": str(home / ".cargo")}
        return {**inherited, **own, **extra}

    def give(self, path: Path) -> None:
        """Makes `path` (created if missing) and everything in it the code user's, so that
        its build can write there."""
        path.mkdir(parents=True, exist_ok=True)
        if not self.isolate:
            return
        self._check_reachable(path.parent)
        os.chown(path, self.uid, self.gid)
        for parent, dirs, files in os.walk(path):
            for name in dirs + files:
                os.chown(os.path.join(parent, name), self.uid, self.gid, follow_symlinks=False)

    def close(self) -> None:
        """Kills every process of the code user, then the namespace's holder."""
        if self._holder is None:
            return
        try:
            self._kill_code_user()
        finally:
            os.close(self._namespace)
            self._namespace = -1
            self._holder.kill()
            self._holder.wait(timeout=CLOSE_TIMEOUT_S)
            self._holder = None

    def __enter__(self) -> "Sandbox":
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        self.close()

    def _start_holder(self) -> None:
        libc = self._libc

        def new_namespace() -> None:
            die_with_parent()
            if libc.unshare(_CLONE_NEWNET) != 0:
                raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNET)")
            loopback_up()

        try:
            self._holder = subprocess.Popen(
                ["sleep", "infinity"], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, start_new_session=True, preexec_fn=new_namespace)
        except (OSError, subprocess.SubprocessError) as error:
            raise SandboxError(f"cannot make the job's network namespace: {error}") from error
        self._namespace = os.open(f"/proc/{self._holder.pid}/ns/net", os.O_RDONLY | os.O_CLOEXEC)

    def _kill_code_user(self) -> None:
        # kill(-1) signals every process the caller may signal: as the code user, exactly
        # the code user's (and a fork racing it fails, its parent being killed).
        killer = os.fork()
        if killer == 0:
            try:
                os.setgroups([])
                os.setgid(self.gid)
                os.setuid(self.uid)
                os.kill(-1, signal.SIGKILL)
            finally:
                os._exit(0)
        os.waitpid(killer, 0)
        deadline = time.monotonic() + CLOSE_TIMEOUT_S
        for pid in running_as(self.uid):  # killed, but exiting may take a moment
            try:
                exited = os.pidfd_open(pid)  # readable once the process has exited
            except ProcessLookupError:
                continue
            try:
                select.select([exited], [], [], max(deadline - time.monotonic(), 0))
            finally:
                os.close(exited)
        if survivors := running_as(self.uid):
            raise SandboxError(f"processes of the code user '{self.user}' survived the job: "
                               f"{', '.join(map(str, survivors))}")

    def _check_reachable(self, path: Path) -> None:
        """Refuses a directory the code user may not pass through, or one on its way."""
        resolved = path.resolve()
        for directory in [*reversed(resolved.parents), resolved]:
            mode = directory.stat()
            searchable = (mode.st_mode & stat.S_IXOTH
                          or (mode.st_uid == self.uid and mode.st_mode & stat.S_IXUSR)
                          or (mode.st_gid == self.gid and mode.st_mode & stat.S_IXGRP))
            if not searchable:
                raise SandboxError(
                    f"the code user '{self.user}' cannot reach {path}: {directory} is closed "
                    f"to it (mode {stat.S_IMODE(mode.st_mode):o})")


def _as_it_is() -> None:
    """A preexec_fn that changes nothing."""


def running_as(uid: int) -> list[int]:
    """The processes whose real user is `uid` and that still run (not zombies)."""
    pids = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines())
        except (OSError, ValueError):
            continue  # gone meanwhile
        if int(fields["Uid"].split()[0]) == uid and not fields["State"].strip().startswith("Z"):
            pids.append(int(status.parent.name))
    return pids


def loopback_up() -> None:
    """Brings `lo` up in the calling process's network namespace (ioctl SIOCSIFFLAGS)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        request = struct.pack("16sH22x", b"lo", 0)
        flags = struct.unpack("16sH22x", ioctl(sock, _SIOCGIFFLAGS, request))[1]
        ioctl(sock, _SIOCSIFFLAGS, struct.pack("16sH22x", b"lo", flags | _IFF_UP))
