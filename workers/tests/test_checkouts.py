"""A repository at a commit, fetched from real git servers (a path over file://, `git daemon`
over git://, smart HTTP behind Basic authentication) and built as code under test: only
that commit arrives, every failure says why without the secret, a build runs once."""

import base64
import os
import shlex
import shutil
import stat
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from git_servers import GIT_ENV, git_daemon, git_repository, http_git

from latlab_contract import RepoCheckout
from latlab_contract.repos import check_ref, check_secret, check_url, git_env
from latlab_workers.checkouts import Recipe, built, fetch
from latlab_workers.errors import JobError, JobTimedOut
from latlab_workers.sandbox import Sandbox

SECONDS = 60.0
USER, PASSWORD = "team", "s3cret-token-value"
HISTORY = [{"server.txt": "version 1\n"}, {"server.txt": "version 2\n"},
           {"server.txt": "version 3\n"}]
ISOLATE = os.geteuid() == 0  # the sandbox isolates as root (here and in CI)


@pytest.fixture
def served(tmp_path: Path) -> tuple[Path, list[str]]:
    """A directory of served repositories holding `app`, three commits long."""
    return tmp_path / "served", git_repository(tmp_path / "served" / "app", HISTORY)


def checkout(url: str, secret: str | None = None) -> RepoCheckout:
    return RepoCheckout(repo="app", url=url, secret=secret)


def git(dest: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=dest, env=GIT_ENV, check=True,
                          capture_output=True, timeout=SECONDS).stdout.decode().strip()


def assert_checked_out(dest: Path, commit: str, version: int) -> None:
    """`dest` is `commit` alone: its files, and no history before it."""
    assert git(dest, "rev-parse", "HEAD") == commit
    assert (dest / "server.txt").read_text() == f"version {version}\n"
    assert git(dest, "rev-list", "--count", "--all") == "1"


def failure(repo: RepoCheckout, commit: str, dest: Path) -> str:
    with pytest.raises(JobError) as raised:
        fetch(repo, commit, dest, time.monotonic() + SECONDS)
    assert type(raised.value) is JobError  # failed at once: not by running out of time
    return str(raised.value)


def test_a_commit_below_the_tip_over_file(served: tuple[Path, list[str]],
                                          tmp_path: Path) -> None:
    base, shas = served
    fetch(checkout(f"file://{base}/app"), shas[1], tmp_path / "dest",
          time.monotonic() + SECONDS)
    assert_checked_out(tmp_path / "dest", shas[1], 2)


def test_a_commit_below_the_tip_over_git_daemon(served: tuple[Path, list[str]],
                                                tmp_path: Path) -> None:
    base, shas = served
    with git_daemon(base) as prefix:
        fetch(checkout(prefix + "app"), shas[0], tmp_path / "dest", time.monotonic() + SECONDS)
    assert_checked_out(tmp_path / "dest", shas[0], 1)


@pytest.mark.parametrize("protocol_v2", [True, False], ids=["v2", "v0"])
def test_http_with_the_right_secret(served: tuple[Path, list[str]], tmp_path: Path,
                                    protocol_v2: bool) -> None:
    """A v0 server refuses a commit asked for by sha: every branch is fetched instead."""
    base, shas = served
    with http_git(base, USER, PASSWORD, protocol_v2=protocol_v2) as prefix:
        fetch(checkout(prefix + "app", f"{USER}:{PASSWORD}"), shas[1], tmp_path / "dest",
              time.monotonic() + SECONDS)
    assert git(tmp_path / "dest", "rev-parse", "HEAD") == shas[1]
    assert (tmp_path / "dest" / "server.txt").read_text() == "version 2\n"


def test_the_secret_is_on_no_command_line(served: tuple[Path, list[str]],
                                          tmp_path: Path) -> None:
    """While each request is served, git's processes wait for it: none shows the secret in
    its argv (readable by every user in /proc), as text or as the Basic header's base64."""
    base, shas = served
    hidden = [PASSWORD.encode(), base64.b64encode(f"{USER}:{PASSWORD}".encode())]
    seen: list[bytes] = []

    def scan() -> None:
        for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
            try:
                seen.append(cmdline.read_bytes())
            except OSError:
                continue  # gone meanwhile

    with http_git(base, USER, PASSWORD, on_request=scan) as prefix:
        fetch(checkout(prefix + "app", f"{USER}:{PASSWORD}"), shas[2], tmp_path / "dest",
              time.monotonic() + SECONDS)
    assert any(b"remote-http" in argv for argv in seen)  # the scan saw git's transport
    assert [argv for argv in seen if any(secret in argv for secret in hidden)] == []


@pytest.mark.parametrize("secret", [f"{USER}:n0t-the-pa55word", "a-t0ken-n0t-known", None],
                         ids=["wrong password", "wrong token", "no secret"])
def test_http_refuses_a_wrong_or_missing_secret_clearly(
        served: tuple[Path, list[str]], tmp_path: Path, secret: str | None) -> None:
    base, shas = served
    with http_git(base, USER, PASSWORD) as prefix:
        message = failure(checkout(prefix + "app", secret), shas[1], tmp_path / "dest")
    assert message.startswith(f"fetching app at {shas[1][:12]} failed: ")
    assert "refused the repository's secret (missing or wrong)" in message
    for text in filter(None, [secret, PASSWORD, secret and secret.split(":")[-1]]):
        assert text not in message


@pytest.mark.parametrize("transport", ["file", "git", "http v0"])
def test_an_unknown_commit(served: tuple[Path, list[str]], tmp_path: Path,
                           transport: str) -> None:
    base, _ = served
    unknown = "0123456789abcdef" * 2 + "01234567"
    if transport == "file":
        message = failure(checkout(f"file://{base}/app"), unknown, tmp_path / "dest")
    elif transport == "git":
        with git_daemon(base) as prefix:
            message = failure(checkout(prefix + "app"), unknown, tmp_path / "dest")
    else:
        with http_git(base, USER, PASSWORD, protocol_v2=False) as prefix:
            message = failure(checkout(prefix + "app", f"{USER}:{PASSWORD}"), unknown,
                              tmp_path / "dest")
    assert message == ("fetching app at 0123456789ab failed: the commit is not in the "
                       "repository (no branch or tag reaches it)")


def test_a_repository_that_vanished(served: tuple[Path, list[str]], tmp_path: Path) -> None:
    base, shas = served
    shutil.rmtree(base / "app")
    message = failure(checkout(f"file://{base}/app"), shas[0], tmp_path / "file")
    assert message.endswith(f"failed: '{base}/app' does not appear to be a git repository")
    with git_daemon(base) as prefix:
        message = failure(checkout(prefix + "app"), shas[0], tmp_path / "git")
    assert message.endswith("failed: remote error: no such repository: /app")
    with http_git(base, USER, PASSWORD) as prefix:
        message = failure(checkout(prefix + "app", f"{USER}:{PASSWORD}"), shas[0],
                          tmp_path / "http")
    assert message.endswith(f"failed: repository '{prefix}app/' not found")


def test_a_bad_url_or_commit_fails_before_git_runs(tmp_path: Path) -> None:
    message = failure(checkout("ext::sh%20-c%20touch%20/tmp/pwned"), "a" * 40, tmp_path / "dest")
    assert "a repository URL starts with file://" in message
    message = failure(checkout("file:///srv/app"), "--upload-pack=touch", tmp_path / "dest")
    assert "is not a 40-hex commit sha" in message
    assert not (tmp_path / "dest").exists()


@pytest.mark.parametrize("url", [
    "file:///srv/git/app", "file://localhost/srv/app", "git://git.example.com/app.git",
    "http://127.0.0.1:8080/app", "https://github.com/team/app.git",
    "ssh://git@github.com/team/app.git", "ssh://host:2222/srv/app"])
def test_urls_git_may_fetch(url: str) -> None:
    assert check_url(url) == url


@pytest.mark.parametrize(("url", "reason"), [
    ("git@github.com:team/app.git", "starts with file://"),
    ("ext::sh -c evil", "no spaces"),
    ("ftp://example.com/app", "starts with file://"),
    ("-uhttps://x/app", "starts with file://"),
    ("/srv/git/app", "starts with file://"),
    ("https://user:token@github.com/team/app", "no credentials"),
    ("https://token@github.com/team/app", "no credentials"),
    ("ssh://git:pw@github.com/team/app", "no credentials"),
    ("file://otherhost/srv/app", "absolute path on the runner"),
    ("https:///app", "names a host"),
    ("https://github.com/", "the repository's path"),
    ("https://github.com:99999/app", "port"),
    ("https://github.com/a\nb", "control characters")])
def test_urls_refused(url: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        check_url(url)


@pytest.mark.parametrize("ref", ["main", "v1.2.3", "release/2024-06", "feature/x_y",
                                 "abc1234", "0123456789abcdef0123456789abcdef01234567"])
def test_refs_accepted(ref: str) -> None:
    assert check_ref(ref) == ref


@pytest.mark.parametrize("ref", [
    "", "-main", "--upload-pack=x", "a..b", "a b", "a\tb", "main~1", "main^", "a:b", "a?",
    "a*", "a[b", "a\\b", "a@{1}", "@", "/main", "main/", "main.", "main.lock", "a//b",
    "a/.hidden", "x" * 201])
def test_refs_refused(ref: str) -> None:
    with pytest.raises(ValueError):
        check_ref(ref)


def test_secrets_by_transport() -> None:
    assert check_secret("https://h/app", "user:token") == "user:token"
    assert check_secret("git://h/app", None) is None
    for url, secret in [("git://h/app", "x"), ("file:///app", "x"),
                        ("https://h/app", "to ken"), ("https://h/app", "a\nb"),
                        ("ssh://h/app", "not a key")]:
        with pytest.raises(ValueError):
            check_secret(url, secret)


def test_an_http_secret_is_a_header_for_that_url_only(tmp_path: Path) -> None:
    env = git_env("https://git.example.com/team/app.git", "a-token", tmp_path)
    assert env["GIT_CONFIG_KEY_1"] == "http.https://git.example.com/team/app.git.extraHeader"
    encoded = base64.b64encode(b"x-access-token:a-token").decode()
    assert env["GIT_CONFIG_VALUE_1"] == f"Authorization: Basic {encoded}"
    assert (env["GIT_CONFIG_KEY_0"], env["GIT_CONFIG_VALUE_0"]) == ("credential.helper", "")
    assert env["GIT_TERMINAL_PROMPT"] == "0" and env["GIT_CONFIG_NOSYSTEM"] == "1"
    assert not list(tmp_path.iterdir())


def test_an_ssh_key_is_a_private_file_ssh_alone_is_offered(tmp_path: Path) -> None:
    key = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn\n-----END OPENSSH PRIVATE KEY-----"
    env = git_env("ssh://git@git.example.com/app.git", key, tmp_path)
    written = tmp_path / "ssh_key"
    assert written.read_text() == key + "\n"
    assert stat.S_IMODE(written.stat().st_mode) == 0o600
    assert key not in env["GIT_SSH_COMMAND"] and "b3Blbn" not in str(env)
    assert ssh_options(env).items() >= {"identityfile": str(written), "identitiesonly": "yes",
                                "batchmode": "yes", "identityagent": "none",
                                "stricthostkeychecking": "accept-new"}.items()
    without = git_env("ssh://git@git.example.com/app.git", None, tmp_path / "none")
    assert ssh_options(without)["identityfile"] == "none"  # not the runner's ~/.ssh keys


def ssh_options(env: dict[str, str]) -> dict[str, str]:
    """The options ssh resolves from the command git would run (ssh -G connects nowhere)."""
    argv = [*shlex.split(env["GIT_SSH_COMMAND"]), "-G", "git.example.com"]
    printed = subprocess.run(argv, capture_output=True, check=True, timeout=SECONDS,
                             env={"PATH": os.environ["PATH"]}).stdout.decode()
    return dict(line.split(" ", 1) for line in printed.splitlines() if " " in line)


@pytest.fixture
def cache() -> Iterator[Path]:
    """A build root the code user can reach (pytest's tmp_path is closed to other users)."""
    parent = Path(tempfile.mkdtemp(prefix="latlab-checkouts-"))
    os.chmod(parent, 0o711)
    yield parent / "builds"
    shutil.rmtree(parent)


@pytest.fixture
def sandbox(cache: Path) -> Iterator[Sandbox]:
    with Sandbox(cache.parent, isolate=ISOLATE) as confined:
        yield confined


def build(served: tuple[Path, list[str]], recipe: Recipe, cache: Path, sandbox: Sandbox,
          seconds: float = SECONDS) -> Path:
    base, shas = served
    return built(checkout(f"file://{base}/app"), shas[1], recipe, cache, sandbox,
                 time.monotonic() + seconds)


# Fails when run on a checkout it already built: a second build would be seen.
ONCE = Recipe(command=["sh", "-c", "test ! -e bin/app && mkdir -p bin && id -un > bin/app "
                       "&& od -An -N8 -tx8 /dev/urandom | tee -a bin/app"],
              env={}, artifacts=["bin/app"])


def test_a_commit_is_built_once(served: tuple[Path, list[str]], cache: Path,
                                sandbox: Sandbox) -> None:
    src = build(served, ONCE, cache, sandbox)
    made, log = (src / "bin" / "app").read_text(), (src.parent / "build.log").read_text()
    builder, number = made.splitlines()
    assert number.strip() == log.strip()  # the build's random number
    assert builder == sandbox.user or not ISOLATE
    assert (src / "server.txt").read_text() == "version 2\n"
    assert build(served, ONCE, cache, sandbox) == src
    assert (src / "bin" / "app").read_text() == made
    assert (src.parent / "build.log").read_text() == log


def test_the_build_cache_is_closed_and_unguessable(served: tuple[Path, list[str]],
                                                   cache: Path, sandbox: Sandbox) -> None:
    base, shas = served
    src = build(served, ONCE, cache, sandbox)
    assert stat.S_IMODE(cache.stat().st_mode) == 0o711  # traversed, not listed
    assert stat.S_IMODE((cache / ".salt").stat().st_mode) == 0o600
    assert len(src.parent.name) == 32 and (cache / ".salt").stat().st_size == 32
    # The build's directory is the runner's: the build replaces neither its log nor marker.
    assert src.parent.stat().st_uid == (src.parent / "build.log").stat().st_uid == 0
    if ISOLATE:
        assert src.stat().st_uid == (src / "bin" / "app").stat().st_uid != 0
    renamed = RepoCheckout(repo="copy", url=f"file://{base}/app")
    same = built(renamed, shas[1], ONCE, cache, sandbox, time.monotonic() + SECONDS)
    assert same == src  # the same repository, commit and recipe: one build
    other = Recipe(command=ONCE.command, env={"MODE": "release"}, artifacts=ONCE.artifacts)
    assert build(served, other, cache, sandbox).parent != src.parent


def test_a_failed_build_fails_the_job_with_the_log_tail(served: tuple[Path, list[str]],
                                                        cache: Path, sandbox: Sandbox) -> None:
    recipe = Recipe(command=["sh", "-c", "echo compiling; echo 'error: boom' >&2; exit 3"],
                    env={}, artifacts=[])
    with pytest.raises(JobError) as raised:
        build(served, recipe, cache, sandbox)
    shas = served[1]
    assert str(raised.value) == (f"building app at {shas[1][:12]} failed (exit 3): "
                                 "compiling\nerror: boom")


def test_a_missing_artifact_fails_the_job(served: tuple[Path, list[str]], cache: Path,
                                          sandbox: Sandbox) -> None:
    recipe = Recipe(command=["true"], env={}, artifacts=["server.txt", "bin/server"])
    with pytest.raises(JobError, match=r"made no bin/server \(an artifact the suite runs\)"):
        build(served, recipe, cache, sandbox)


def test_a_build_that_outlives_the_job_is_stopped(served: tuple[Path, list[str]],
                                                  cache: Path, sandbox: Sandbox) -> None:
    recipe = Recipe(command=["sleep", "600"], env={}, artifacts=[])
    with pytest.raises(JobTimedOut, match="ran out of the job's time"):
        build(served, recipe, cache, sandbox, seconds=2)
