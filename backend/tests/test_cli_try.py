"""`latlab repos` and `latlab try` against a live api: a repository registered from the
command line (its credentials read from a file or the environment), its commits listed, and
a try job launched and watched in a terminal (tmux) through a real runner that builds both
commits of the example order server; what the lab refuses stops the CLI with its reason."""

import json
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from git_servers import http_git

from latlab.models import Role, Scope
from tests.factories import PASSWORD, Actors, sign_in
from tests.test_cli_terminal import EXIT_BY_VERDICT, latlab, tables
from tests.test_jobs_e2e import _online

# A few orders a trial through the Python client (it needs no build of its own): enough for
# a P99 to be judged (10 orders beyond it), and trials enough for a tested verdict (4 a side),
# in stages of at most a minute of lab time.
TRY = ["--repo", "orders", "--base", "v1.0", "--head", "main", "--param", "loads=python",
       "--param", "orders=2000", "--param", "connections=4", "--param", "warmup=20",
       "--repetitions", "4", "--max-minutes", "1"]
TRY_TIMEOUT_S = 900  # two Go builds (~40 s each) and 3 x 2 trials, with a wide margin
POLL_S = 0.3


@pytest.fixture
def cli(committed_db, live_server, tmp_path) -> tuple[dict[str, str], str, httpx.Client]:
    """A terminal's environment with a token (read, runs:write, jobs:write), the email of a
    member whose password is in LATLAB_PASSWORD, and an API client with the token."""
    actors = Actors(committed_db)
    token = actors.token(Scope.read, Scope.runs_write, Scope.jobs_write)
    email = actors.user(Role.member).email
    committed_db.commit()
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "COLUMNS": "220",
           "LATLAB_CONFIG": str(tmp_path / "latlab.toml"), "LATLAB_URL": live_server,
           "LATLAB_TOKEN": token["Authorization"].split()[1], "LATLAB_PASSWORD": PASSWORD}
    return env, email, httpx.Client(base_url=f"{live_server}/api/v1", headers=token,
                                    timeout=60)


def test_repos_are_registered_with_a_secret_from_a_file_and_refused_saying_why(
        cli, orders_repo, tmp_path) -> None:
    env, email, http = cli
    path = f"file://{orders_repo['path']}"
    for args, extra_env, message in [
        (["nothing", f"file://{tmp_path}/nothing"], {},
         f"latlab: the lab answered 422: $.url: cannot read file://{tmp_path}/nothing: "),
        (["orders", path, "--secret-env", "ORDERS_TOKEN"], {},
         "latlab: --secret-env ORDERS_TOKEN: the environment has no such variable, or it is "
         "empty\n"),
        (["orders", path, "--secret-env", "ORDERS_TOKEN"], {"ORDERS_TOKEN": "t0ken"},
         "a file:// repository takes no secret"),
    ]:
        refused = latlab("repos", "add", *args, "--email", email, env={**env, **extra_env})
        assert refused.returncode == 2, (args, refused.stderr)
        assert message in refused.stderr, (args, refused.stderr)
    # An API token may not register code for the lab's hosts to build: the lab says so.
    token_only = latlab("repos", "add", "orders", path, env=env)
    assert token_only.returncode == 2
    assert token_only.stderr == ("latlab: the lab answered 403: this action needs a signed-in "
                                 "user, not an API token (sign in to register it: --email)\n")
    assert http.get("/repositories").json() == []

    with http_git(orders_repo["base"], "ci-bot", "s3cret-token") as served:
        secret = tmp_path / "orders.token"
        secret.write_text("ci-bot:n0t-the-t0ken\n")  # as `echo` writes it
        wrong = latlab("repos", "add", "orders", f"{served}orders", "--secret-file",
                       str(secret), "--email", email, env=env)
        assert wrong.returncode == 2 and "refused" in wrong.stderr, wrong.stderr
        assert "n0t-the-t0ken" not in wrong.stderr + wrong.stdout
        secret.write_text("ci-bot:s3cret-token\n")
        added = latlab("repos", "add", "orders", f"{served}orders", "--secret-file",
                       str(secret), "--email", email, env=env)
        assert added.returncode == 0, added.stderr
        assert added.stdout == (f"registered orders: {served}orders, default branch main, "
                                "credentials kept, builds offline\n")
        newest = latlab("repos", "commits", "orders", "-n", "3", env=env)
        tagged = latlab("repos", "commits", "orders", "--ref", "v1.0", "-n", "1", env=env)
        unknown = latlab("repos", "commits", "orders", "--ref", "nope", env=env)
    assert newest.returncode == 0, newest.stderr
    ((title, header, rows),) = tables(newest.stdout)
    assert title == "orders: the newest 3 commits of its default branch"
    assert header == ["commit", "committed", "author", "subject"]
    assert [row[0] for row in rows] == [sha[:12] for sha in orders_repo["commits"][:-4:-1]]
    assert tables(tagged.stdout)[0][2][0][0] == orders_repo["tags"]["v1.0"][:12]
    assert unknown.returncode == 2
    assert unknown.stderr == ("latlab: the lab answered 422: query.ref: repository 'orders' "
                              "has no branch, tag or commit 'nope'\n")

    assert latlab("repos", "add", "local", path, "--build-network", "--email", email,
                  env=env).returncode == 0
    listed = latlab("repos", env=env)
    assert listed.returncode == 0, listed.stderr
    ((title, header, rows),) = tables(listed.stdout)
    assert header[:5] == ["repository", "url", "default branch", "credentials",
                          "build network"]
    assert sorted(row[:5] for row in rows) == [
        ["local", path, "main", "no", "yes"], ["orders", f"{served}orders", "main", "yes", "no"]]
    assert "s3cret" not in listed.stdout


# `latlab ARGS...` as `python -m latlab_cli` runs it (`main`), its exit status kept in a file
# (tmux 3.3 does not always know a dead pane's).
LATLAB = ("import sys; from pathlib import Path; from latlab_cli import main; "
          "code = main(sys.argv[2:]); Path(sys.argv[1]).write_text(str(code)); sys.exit(code)")


class Terminal:
    """`latlab ARGS...` in a tmux pane of its own (a terminal: the CLI draws its progress
    bar), read as a person watching it would; the pane is kept after the command ends."""

    def __init__(self, folder: Path, args: list[str], env: dict[str, str]) -> None:
        self.socket = str(folder / "tmux.sock")
        self.status = folder / "exit-status"
        config = folder / "tmux.conf"
        config.write_text("set -g remain-on-exit on\nset -g history-limit 10000\n")
        self.tmux("-f", str(config), "new-session", "-d", "-s", "cli", "-x", "200", "-y", "50",
                  "--", sys.executable, "-c", LATLAB, str(self.status), *args, env=env)

    def tmux(self, *args: str, env: dict[str, str] | None = None) -> str:
        return subprocess.run(["tmux", "-S", self.socket, *args], env=env, check=True,
                              capture_output=True, text=True, timeout=30).stdout

    def screen(self) -> str:
        """Everything the pane shows and scrolled past, wrapped lines joined."""
        return self.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "cli")

    def exit_status(self) -> int | None:
        """None while the command runs; a command that ended without one fails the test."""
        if self.tmux("display-message", "-p", "-t", "cli", "#{pane_dead}").strip() != "1":
            return None
        assert self.status.exists(), self.screen()
        return int(self.status.read_text())

    def close(self) -> None:
        self.tmux("kill-server")


@pytest.fixture
def terminal(tmp_path) -> Iterator[list[Terminal]]:
    opened: list[Terminal] = []
    yield opened
    for each in opened:
        each.close()


def test_try_waits_in_a_terminal_then_prints_the_verdict_writes_the_summary_and_comments(
        cli, orders_repo, start_runner, terminal, tmp_path, github) -> None:
    env, email, http = cli
    start_runner("cli-try")
    member = httpx.Client(base_url=env["LATLAB_URL"], timeout=30)
    sign_in(member, email)
    _online(member, "cli-try")
    assert member.post("/api/v1/repositories", json={
        "name": "orders", "url": f"file://{orders_repo['path']}"}).status_code == 201

    unknown = latlab("try", *TRY[:4], "--head", "no-such-branch", *TRY[6:], env=env)
    assert unknown.returncode == 2, unknown.stderr
    assert unknown.stderr == ("latlab: the lab answered 422: $.compare.head: repository "
                              "'orders' has no branch, tag or commit 'no-such-branch'\n")
    assert http.get("/jobs").json()["total"] == 0

    # Without --wait: the job's number, and how to watch it; the job goes on (the one in
    # the terminal queues behind it and reuses its builds).
    launched = latlab("try", *TRY, env=env)
    assert launched.returncode == 0, launched.stderr
    first = int(launched.stdout)
    job = http.get(f"/jobs/{first}").json()
    assert job["commit"] == orders_repo["commits"][-1] and job["params"]["server"] == "repo"
    assert job["base"] == {"ref": "v1.0", "commit": orders_repo["tags"]["v1.0"]}
    assert launched.stderr.startswith(
        f"job {first}: try orders main ({job['commit'][:10]}) against v1.0 "
        f"({job['base']['commit'][:10]}) · http-order/")
    assert f"watch it: latlab job {first} --wait\n" in launched.stderr

    summary = tmp_path / "out" / "try.md"
    # In a pull request's GitHub Actions job: the verdict also goes on the pull request.
    event = tmp_path / "event.json"
    event.write_text(json.dumps({"pull_request": {"number": 7, "head": {"sha": "e" * 40}}}))
    in_actions = {**env, "GITHUB_ACTIONS": "true", "GITHUB_TOKEN": "ghs_job_token",
                  "GITHUB_REPOSITORY": "trading/orders", "GITHUB_API_URL": github.url,
                  "GITHUB_EVENT_PATH": str(event)}
    shell = Terminal(tmp_path, ["try", *TRY, "--wait", "--summary", str(summary), "--comment"],
                     in_actions)
    terminal.append(shell)
    progress: list[str] = []  # each line of the job's progress bar, as it changed

    def watch() -> str:
        screen = shell.screen()
        bar = [line for line in screen.splitlines() if f"job {first + 1} " in line
               and "%" in line]
        if bar and (not progress or progress[-1] != bar[-1]):
            progress.append(bar[-1])
        return screen

    deadline = time.monotonic() + TRY_TIMEOUT_S
    while (status := shell.exit_status()) is None:
        assert time.monotonic() < deadline, shell.screen()
        watch()
        time.sleep(POLL_S)
    screen = watch()  # the bar's last state can come between a look and the command's end
    job = http.get(f"/jobs/{first + 1}").json()
    assert job["status"] == "succeeded", (job["error"], screen)
    earlier = http.get(f"/jobs/{first}").json()
    assert earlier["status"] == "succeeded", earlier["error"]
    run = http.get(f"/runs/{job['run_id']}").json()

    # Its progress: the state, the phase and a percentage, as the job went.
    states = [re.search(rf"job {first + 1} http-order/\S+(?: on cli-try)?: (\w+)(?: · (\w+))?"
                        r".*?(\d+)%", line) for line in progress]
    seen = [(m[1], m[2], int(m[3])) for m in states if m]
    assert ("running", "measure") in {(s, p) for s, p, _ in seen}, progress
    assert any(0 < percent < 100 for _, _, percent in seen), progress
    assert seen[-1][:2] == ("succeeded", None) and seen[-1][2] == 100, progress
    # Then the run, the verdict and each gate metric's reason, the addresses; the exit
    # status of the verdict.
    assert f"verdict: {run['verdict']}" in screen
    judged = {r["metric"] for r in run["verdict_reasons"]}
    assert {"p99", "throughput"} <= judged, run["verdict_reasons"]
    for reason in run["verdict_reasons"]:
        assert reason["message"] in screen, (reason, screen)
    assert f"{env['LATLAB_URL']}/runs/{run['id']}" in screen
    assert (f"compare: {env['LATLAB_URL']}/compare?baseline={run['id']}&candidate={run['id']}"
            "&baseline_labels=%7B%22side%22%3A%22base%22%7D") in screen
    assert status == EXIT_BY_VERDICT[run["verdict"]], screen

    text = summary.read_text()
    assert text.startswith(f"### latlab try: {run['verdict']}\n"), text
    # The same Markdown as the pull request's one comment, and a check run on its head.
    (posted,) = github.comments["trading/orders#7"]
    assert posted["body"].rstrip("\n") == (
        f"<!-- latlab: suite=http-order -->\n{text}".rstrip("\n")), posted["body"]
    (check,) = github.check_runs
    assert (check["head_sha"], check["name"], check["details_url"]) == (
        "e" * 40, "latlab: http-order", f"{env['LATLAB_URL']}/runs/{run['id']}")
    assert check["conclusion"] == {"pass": "success", "fail": "failure"}.get(
        run["verdict"], "neutral")
    assert not github.refused
    assert (f"- orders main ({job['commit'][:10]}) against v1.0 "
            f"({job['base']['commit'][:10]})") in text
    for reason in run["verdict_reasons"]:
        assert reason["message"] in text, text
    # A row per gated metric; where the job's stages stopped is a line of its own.
    [stages] = [r["message"] for r in run["verdict_reasons"] if r["kind"] == "stages"]
    assert f"- stages: {stages}\n" in text, text
    judged = [r for r in run["verdict_reasons"] if r["kind"] != "stages"]
    table = [line for line in text.splitlines() if line.startswith("| ")][2:]
    assert len(table) == len(judged), text
    for reason in judged:
        row = next(line for line in table if f"| {reason['metric']} |" in line)
        assert (reason.get("outcome") or "inconclusive") in row, row
        if reason.get("interval") is not None:
            low, high = (100 * bound for bound in reason["interval"])
            assert f"95 % interval {low:+.1f} % to {high:+.1f} %" in row, row

    # A job that failed has no verdict: its error, and an exit status of its own.
    broken = latlab("try", *TRY, "--param", "repo_build=go,build,./no-such-package", "--wait",
                    env=env)
    failed = http.get("/jobs", params={"limit": 1}).json()["items"][0]
    assert failed["status"] == "failed" and "no-such-package" in failed["error"], failed
    assert broken.returncode == 3, broken.stderr
    assert f"latlab: job {failed['id']} failed: building orders at " in broken.stderr
