"""examples/order-repo: the repository make_repo.py makes (its history, the slow commit's
place in it), its server built at a commit with no network and driven by the lab's Python load
client, and the server's /stats/latency histogram read by HdrHistogram's Python library."""

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hdrh.histogram import HdrHistogram
from http_order_support import SUITE, decode, request, run_client
from suite_support import announced

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "order-repo"
MAKE_REPO = EXAMPLE / "make_repo.py"
TESTDATA = EXAMPLE / "server" / "testdata"
COMMITS = 30
BUILD_TIME_S = 600  # a Go build with an empty cache compiles the standard library too
ORDERS, WARMUP = 200, 20


def make_repo(dest: Path, *args: str) -> dict[str, Any]:
    result = subprocess.run([sys.executable, str(MAKE_REPO), str(dest), *args],
                            capture_output=True, text=True, timeout=120, check=True)
    made: dict[str, Any] = json.loads(result.stdout)
    return made


def git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True,
                          timeout=60, check=True).stdout.strip()


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return make_repo(tmp_path_factory.mktemp("example") / "orders")


@pytest.fixture(scope="module")
def offline_go(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The environment of an offline Go build: a fresh home and build cache (shared by this
    module's builds), no module proxy, nothing else."""
    go = shutil.which("go")
    assert go, "the example's server needs Go on PATH"
    home = tmp_path_factory.mktemp("gohome")
    return {"PATH": f"{Path(go).parent}:/usr/bin:/bin", "HOME": str(home),
            "GOCACHE": str(home / "cache"), "GOFLAGS": "-mod=mod", "GOPROXY": "off"}


def test_the_history_has_one_slow_commit_after_the_tag(repo: dict[str, Any],
                                                      tmp_path: Path) -> None:
    commits = repo["commits"]
    assert len(commits) == COMMITS == len(set(commits))
    assert git(Path(repo["path"]), "rev-list", "--reverse", "main").split() == commits
    assert git(Path(repo["path"]), "rev-parse", f"{repo['slow']}^") == repo["before_slow"]
    assert commits.index(repo["slow"]) == COMMITS * 2 // 3 - 1
    tagged = git(Path(repo["path"]), "rev-parse", "v1.0^{commit}")
    assert tagged == repo["tags"]["v1.0"]
    assert commits.index(tagged) < commits.index(repo["before_slow"])
    # Fixed names and dates: the same arguments make the same commits.
    assert make_repo(tmp_path / "again")["commits"] == commits


def test_the_slow_commit_goes_where_it_is_asked(tmp_path: Path) -> None:
    made = make_repo(tmp_path / "orders", "--commits", "5", "--slow-at", "2")
    assert len(made["commits"]) == 5
    assert made["commits"][:2] == [made["before_slow"], made["slow"]]
    refused = subprocess.run([sys.executable, str(MAKE_REPO), str(tmp_path / "other"),
                              "--commits", "5", "--slow-at", "6"],
                             capture_output=True, text=True, timeout=60, check=False)
    assert refused.returncode == 2 and "--slow-at" in refused.stderr


@pytest.mark.parametrize("which", ["first", "slow"])
def test_a_commit_builds_offline_and_serves_the_lab_client(
        which: str, repo: dict[str, Any], offline_go: dict[str, str], tmp_path: Path) -> None:
    commit = repo["commits"][0] if which == "first" else repo["slow"]
    checkout = tmp_path / "checkout"
    git(tmp_path, "clone", "--quiet", "--no-checkout", repo["path"], str(checkout))
    git(checkout, "checkout", "--quiet", "--detach", commit)
    built = subprocess.run(["go", "build", "-o", "order-server", "."], cwd=checkout,
                           env=offline_go, capture_output=True, text=True,
                           timeout=BUILD_TIME_S, check=False)
    assert built.returncode == 0, built.stderr[-2000:]

    server = [str(checkout / "order-server"), "--listen", "127.0.0.1:0"]
    with announced(server, checkout) as (process, endpoints):
        listening = endpoints["listening"]
        report = run_client([
            sys.executable, str(SUITE.directory / "clients/python/order_client.py"),
            "--url", f"http://{listening}", "--orders", str(ORDERS), "--connections", "4",
            "--warmup", str(WARMUP), "--rate", "0", "--duration", "10", "--timeout", "5",
            "--pin-cpus", "", "--mlock", "false"]).report
        assert (report["orders"], report["ok"], report["errors"], report["timeouts"]) == (
            ORDERS, ORDERS, 0, 0)
        accepted = request(listening, "GET", "/stats").body["total_orders"]
        assert accepted == ORDERS + report["warmup_orders"]
        window = request(listening, "POST", "/stats/latency").body
        assert decode(window["latency_hdr"]).get_total_count() == accepted
        assert window["metrics"] == {"orders": accepted}
        # The next window starts empty.
        window = request(listening, "POST", "/stats/latency").body
        assert decode(window["latency_hdr"]).get_total_count() == 0
    assert process.returncode == 0  # SIGTERM ends it cleanly


def test_the_servers_histogram_encoding_decodes_to_its_counts() -> None:
    """testdata/latency.hdr is what the server's encoder makes of testdata/latency_values.txt
    (its Go test checks that): HdrHistogram's Python library reads back the same counts."""
    values = [int(line) for line in (TESTDATA / "latency_values.txt").read_text().split()]
    expected = HdrHistogram(1, 3_600_000_000_000, 3)
    for value in values:
        expected.record_value(value)
    decoded = decode((TESTDATA / "latency.hdr").read_text().strip())
    assert decoded.get_total_count() == len(values)
    for value in set(values):
        assert decoded.get_count_at_value(value) == expected.get_count_at_value(value), value
    assert (decoded.get_min_value(), decoded.get_max_value()) == (
        expected.get_min_value(), expected.get_max_value())
