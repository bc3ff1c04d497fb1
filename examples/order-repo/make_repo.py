#!/usr/bin/env python3
"""Makes a small git repository of an order server, to try the lab's `repo` jobs on.

    make_repo.py DEST [--commits N] [--slow-at K]

DEST (new or empty) becomes a git repository on branch `main` with N commits: the server of
`server/` first, then the small changes of history.py, one of them, commit K (1 = the first),
making every order cost a few microseconds more. Tag `v1.0` marks an early commit before it.
Author, committer and dates are fixed, so the same arguments make the same commit shas.
Prints one JSON line: {"path", "commits" (shas, oldest first), "slow", "before_slow", "tags"}.
Python's standard library and git only."""

import argparse
import json
import os
import shutil
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

from history import CHANGES, SLOW, Change, Replace, filler

SERVER = Path(__file__).resolve().parent / "server"
DEFAULT_COMMITS = 30
TAG = "v1.0"
TAG_AT = 3  # the commit tagged, when the slow one comes later
FIRST_DATE = datetime(2024, 3, 4, 9, 0, tzinfo=UTC)
GIT_TIMEOUT_S = 60
# Who made the history, and a git that reads no configuration but this.
IDENTITY = {
    "GIT_AUTHOR_NAME": "Order Team", "GIT_AUTHOR_EMAIL": "orders@example.com",
    "GIT_COMMITTER_NAME": "Order Team", "GIT_COMMITTER_EMAIL": "orders@example.com",
    "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dest", type=Path, help="the repository to make (new or empty)")
    parser.add_argument("--commits", type=int, default=DEFAULT_COMMITS,
                        help=f"commits in all (default {DEFAULT_COMMITS}, at least 2)")
    parser.add_argument("--slow-at", type=int,
                        help="the slow commit's number, 2..N (default: two thirds through)")
    args = parser.parse_args(argv)
    slow_at = args.slow_at if args.slow_at is not None else max(2, args.commits * 2 // 3)
    if args.commits < 2 or not 2 <= slow_at <= args.commits:
        parser.error(f"need 2 <= --slow-at <= --commits, got {slow_at} and {args.commits}")
    dest = args.dest.resolve()
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        parser.error(f"{dest} exists and is not an empty folder")
    print(json.dumps(make_repo(dest, args.commits, slow_at)))
    return 0


def make_repo(dest: Path, commits: int, slow_at: int) -> dict[str, object]:
    """Makes the repository; `slow_at` is the slow commit's number (1 = the first)."""
    dest.mkdir(parents=True, exist_ok=True)
    git(dest, "init", "--quiet", "--initial-branch", "main")
    shutil.copytree(SERVER, dest, dirs_exist_ok=True)
    shas = [commit(dest, "order server: POST /order, GET /stats, POST /stats/latency", 1)]
    for number, change in enumerate(changes(commits - 1, slow_at), start=2):
        apply(dest, change)
        shas.append(commit(dest, change.message, number))
    tagged = min(TAG_AT, slow_at - 1)
    git(dest, "tag", "--annotate", TAG, "--message", f"orders {TAG}", shas[tagged - 1],
        env=dated(tagged))
    return {"path": str(dest), "commits": shas, "slow": shas[slow_at - 1],
            "before_slow": shas[slow_at - 2], "tags": {TAG: shas[tagged - 1]}}


def changes(count: int, slow_at: int) -> list[Change]:
    """The `count` changes after the first commit, the slow one as commit `slow_at`."""
    plain = [*CHANGES, *(filler(n) for n in range(1, count - len(CHANGES)))][:count - 1]
    plain.insert(slow_at - 2, SLOW)
    return plain


def apply(dest: Path, change: Change) -> None:
    for edit in change.edits:
        path = dest / edit.path
        if isinstance(edit, Replace):
            text = path.read_text()
            if text.count(edit.old) != 1:
                raise SystemExit(f"make_repo: {change.message!r}: {edit.path} holds "
                                 f"{text.count(edit.old)} copies of {edit.old!r}, not one")
            path.write_text(text.replace(edit.old, edit.new))
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a") as file:
                file.write(edit.text)


def commit(dest: Path, message: str, number: int) -> str:
    git(dest, "add", "--all")
    git(dest, "commit", "--quiet", "--message", message, env=dated(number))
    return git(dest, "rev-parse", "HEAD")


def dated(number: int) -> dict[str, str]:
    """Commit `number`'s date: a working day apart, at a varying hour."""
    when = FIRST_DATE + timedelta(days=number - 1, minutes=number * 37 % 420)
    stamp = when.isoformat()
    return {"GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}


# Set by a git hook, these would point git at another repository than DEST.
FOREIGN_GIT = {"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY"}


def git(dest: Path, *args: str, env: dict[str, str] | None = None) -> str:
    inherited = {name: value for name, value in os.environ.items() if name not in FOREIGN_GIT}
    result = subprocess.run(
        ["git", "-C", str(dest), *args], env={**inherited, **IDENTITY, **(env or {})},
        capture_output=True, text=True, timeout=GIT_TIMEOUT_S, check=False)
    if result.returncode != 0:
        raise SystemExit(f"make_repo: git {' '.join(args)}: {result.stderr.strip()}")
    return result.stdout.strip()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
