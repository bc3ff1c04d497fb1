"""A team's own code on the lab's hosts, end to end with real git and real builds: a
repository registered (over git://, file:// and http with credentials), a try job building two
of its commits and interleaving them on one host (api -> Redis -> a real runner -> ingest ->
Postgres), its verdict; a job running the repository's own benchmark command (the `harness`
suite); and what is refused, saying why, storing nothing."""

import json
import os
import pwd
import re
import shutil
from urllib.parse import urlsplit

import httpx
from git_servers import git_daemon, git_repository, http_git

from latlab_workers.sandbox import running_as
from latlab_workers.settings import get_settings
from tests.test_jobs_e2e import _finish, _online

# A thousand orders a trial (a P99 the gate trusts: 10 beyond it) through the Python client
# (it needs no build of its own).
ORDERS = {"server": "repo", "loads": "python", "orders": 1000, "connections": 4,
          "warmup": 20}


def _register(client: httpx.Client, **body) -> httpx.Response:
    return client.post("/api/v1/repositories", json=body)


def test_a_try_job_builds_two_commits_and_judges_head_against_base(
        member, ingest_worker, start_runner, orders_repo, tmp_path) -> None:
    start_runner("lab-try")
    _online(member, "lab-try")
    with http_git(orders_repo["base"], "ci-bot", "s3cret-token") as served:
        url = f"{served}orders"
        wrong = _register(member, name="orders", url=url, secret="ci-bot:n0t-the-t0ken")
        assert wrong.status_code == 422, wrong.text
        assert "n0t-the-t0ken" not in wrong.text and "refused" in wrong.text
        assert member.get("/api/v1/repositories").json() == []  # nothing stored
        created = _register(member, name="orders", url=url, secret="ci-bot:s3cret-token")
        assert created.status_code == 201, created.text
        assert created.json()["has_secret"] and "secret" not in created.json()
        commits = member.get("/api/v1/repositories/orders/commits").json()
        assert [c["sha"] for c in commits] == orders_repo["commits"][::-1]
    # The same repository on the lab's disk (where the session's other tests have it, so
    # each commit is built once): a new address is read before it is kept.
    assert member.patch("/api/v1/repositories/orders", json={
        "url": f"file://{tmp_path}/nothing", "forget_secret": True}).status_code == 422
    moved = member.patch("/api/v1/repositories/orders", json={
        "url": f"file://{orders_repo['path']}", "forget_secret": True})
    assert moved.status_code == 200 and not moved.json()["has_secret"], moved.text
    unknown = member.post("/api/v1/jobs", json={
        "suite": "http-order", "scenario": "small", "params": ORDERS, "repo": "orders",
        "compare": {"base": "v1.0", "head": "no-such-branch"}})
    assert unknown.status_code == 422, unknown.text
    assert "no-such-branch" in unknown.text
    assert member.get("/api/v1/jobs").json()["total"] == 0

    # Two trials a side first: undecided (no test settles a change from them), the job is
    # queued again on its host for as many again, then doubling, all in its one run.
    launched = member.post("/api/v1/jobs", json={
        "suite": "http-order", "scenario": "small", "params": ORDERS, "repo": "orders",
        "repetitions": 2, "compare": {"base": "v1.0", "head": "main"}})
    assert launched.status_code == 202, launched.text
    job, seen = _finish(member, launched.json()["id"], timeout=900)
    assert job["status"] == "succeeded", (job["error"], seen)
    assert job["commit"] == orders_repo["commits"][-1]
    assert job["base"] == {"ref": "v1.0", "commit": orders_repo["tags"]["v1.0"]}
    run = member.get(f"/api/v1/runs/{job['run_id']}").json()
    assert run["source"]["commit"] == orders_repo["commits"][-1]
    assert run["source"]["repo"] == "orders"
    sides = sorted(s["labels"]["side"] for s in run["series"])
    assert sides == ["base", "head"], run["series"]
    measured = [stage["trials"] for stage in job["stages"]["measured"]]
    assert job["stages"]["looks"] == [2, 4, 8, 16] and measured[:2] == [2, 2], job["stages"]
    assert all(s["labels"]["repo"] == "orders" and len(s["trials"]) == sum(measured)
               for s in run["series"])
    [stages] = [r["message"] for r in run["verdict_reasons"] if r["kind"] == "stages"]
    assert re.match(rf"(un)?decided at look {len(measured)} of 4, {sum(measured)} trials a "
                    rf"side", stages), stages
    assert run["verdict"] in ("pass", "fail", "inconclusive")
    judged = {r["metric"] for r in run["verdict_reasons"]}
    assert {"p99", "throughput"} <= judged, run["verdict_reasons"]
    assert "s3cret-token" not in json.dumps([job, run])


def test_the_harness_suite_runs_a_repositorys_benchmarks_at_a_commit(
        member, ingest_worker, start_runner, orders_repo) -> None:
    start_runner("lab-bench")
    _online(member, "lab-bench")
    url = f"file://{orders_repo['path']}"
    assert _register(member, name="orders", url=url).status_code == 201
    launched = member.post("/api/v1/jobs", json={
        "suite": "harness", "repo": "orders", "ref": "v1.0", "repetitions": 2,
        "params": {"command": ["go", "test", "-run", "^$", "-bench", "ParseOrder",
                               "-benchtime", "200x"], "format": "go-bench"}})
    assert launched.status_code == 202, launched.text
    job, seen = _finish(member, launched.json()["id"], timeout=900)
    assert job["status"] == "succeeded", (job["error"], seen)
    run = member.get(f"/api/v1/runs/{job['run_id']}").json()
    assert run["source"]["commit"] == orders_repo["tags"]["v1.0"]
    names = {s["labels"].get("benchmark") for s in run["series"]}
    assert any("ParseOrder" in (n or "") for n in names), run["series"]
    assert all(s["labels"]["repo"] == "orders" for s in run["series"])


def test_a_failed_build_fails_the_job_with_its_log_and_stores_nothing(
        member, ingest_worker, start_runner, orders_repo) -> None:
    start_runner("lab-broken")
    _online(member, "lab-broken")
    with git_daemon(orders_repo["base"]) as served:
        assert _register(member, name="orders", url=f"{served}orders").status_code == 201
        launched = member.post("/api/v1/jobs", json={
            "suite": "http-order", "scenario": "small", "repo": "orders", "repetitions": 1,
            "params": {**ORDERS, "repo_build": ["go", "build", "-o", "order-server",
                                                "./no-such-package"]}})
        assert launched.status_code == 202, launched.text
        job, _ = _finish(member, launched.json()["id"], timeout=600)
    assert job["status"] == "failed" and job["run_id"] is None
    assert "building orders at" in job["error"] and "no-such-package" in job["error"], job
    assert member.get("/api/v1/runs").json()["total"] == 0


def test_repositories_the_lab_cannot_read_are_refused_saying_why(
        member, orders_repo, tmp_path) -> None:
    """(Another project sees none of them: `test_tenancy`.)"""
    gone = tmp_path / "gone"
    shutil.copytree(orders_repo["path"], gone)
    refused = {
        "scp-like url": {"name": "a", "url": "git@example.com:team/a.git"},
        "credentials in the url": {"name": "a", "url": "https://bot:pw@example.com/a.git"},
        "no such branch": {"name": "a", "url": f"file://{gone}", "default_branch": "trunk"},
        "not a repository": {"name": "a", "url": f"file://{tmp_path}/nothing"},
        "a secret git:// cannot carry": {"name": "a", "url": f"file://{gone}",
                                         "secret": "token"},
        "a bad name": {"name": "A B", "url": f"file://{gone}"},
    }
    for why, body in refused.items():
        answer = _register(member, **body)
        assert answer.status_code == 422, (why, answer.text)
    assert member.get("/api/v1/repositories").json() == []

    assert _register(member, name="gone", url=f"file://{gone}").status_code == 201
    shutil.rmtree(gone)
    vanished = member.get("/api/v1/repositories/gone/commits")
    assert vanished.status_code == 422 and "cannot fetch gone" in vanished.text


PROBE = '''import json, os, socket, sys, time
ports = [int(p) for p in sys.argv[1:]]
def reaches(port):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=2).close()
        return True
    except OSError:
        return False
found = {"env": dict(os.environ), "reached": {p: reaches(p) for p in ports},
         "uid": os.getuid()}
if os.fork() == 0:  # a daemon: its own session, its parent gone
    os.setsid()
    if os.fork() == 0:
        with open("daemon.pid", "w") as out:
            out.write(str(os.getpid()))
        time.sleep(600)
    os._exit(0)
json.dump(found, open("probe.json", "w"))
'''
BENCH = "print('goos: linux\\nBenchmarkProbe-2 \\t 100 \\t 1234 ns/op\\nPASS')\n"


def test_code_under_test_sees_no_secret_reaches_no_lab_port_and_leaves_nothing_running(
        member, ingest_worker, start_runner, tmp_path) -> None:
    """From inside a build, through the real runner: the build step's environment holds
    none of the runner's, the lab's Redis and Postgres ports are not there, and the daemon
    it started is gone once the job ends."""
    git_repository(tmp_path / "probe", [{"probe.py": PROBE, "bench.py": BENCH}])
    start_runner("lab-probe")
    _online(member, "lab-probe")
    assert _register(member, name="probe", url=f"file://{tmp_path / 'probe'}"
                     ).status_code == 201
    ports = [str(urlsplit(os.environ[name]).port)
             for name in ("LATLAB_REDIS_URL", "LATLAB_DATABASE_URL")]
    launched = member.post("/api/v1/jobs", json={
        "suite": "harness", "repo": "probe", "repetitions": 1, "params": {
            "build": ["python3", "probe.py", *ports], "command": ["python3", "bench.py"],
            "format": "go-bench"}})
    assert launched.status_code == 202, launched.text
    job, seen = _finish(member, launched.json()["id"], timeout=300)
    assert job["status"] == "succeeded", (job["error"], seen)
    probe = max((get_settings().code_cache / "builds").glob("*/src/probe.json"),
                key=lambda p: p.stat().st_mtime)
    found = json.loads(probe.read_text())
    code_user = pwd.getpwnam(os.environ.get("LATLAB_CODE_USER", "latlab-code")).pw_uid
    assert found["uid"] == code_user
    assert not [k for k in found["env"] if k.startswith(("LATLAB_", "CELERY"))], found["env"]
    assert not any(os.environ["LATLAB_REDIS_URL"] in v for v in found["env"].values())
    assert found["reached"] == {port: False for port in ports}, found
    daemon = int((probe.parent / "daemon.pid").read_text())
    assert daemon not in running_as(code_user)  # (a zombie until init reaps it, at most)
