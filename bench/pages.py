"""The dashboard's pages on a big project, in Chromium: time to content and requests.

A project holding a suite of `--series` series (400) and `--runs` runs (1,200), stored through
the ingest's bulk path (`latlab_stack.history`), beside a suite of one series with as many runs,
the reference measured side by side in the same run (this machine is shared: read the ratio).
For each page (Overview, Runs, Run, Compare, Trends) the script
`frontend/tests/e2e/pages.bench.mjs` opens it in a fresh tab of a signed-in Chromium, waits for
its content (a row, a drawn line) and counts the api requests it made until then and until the
network was quiet. Targets (issue 47): content in <= 2 s and <= 20 requests a page.

    .venv/bin/python -m bench.pages [--series 400] [--runs 1200] [--rounds 3]
"""

import argparse
import json
import os
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

from sqlalchemy import create_engine
from sqlalchemy.orm import Session

import latlab_stack as localstack
from bench.lab import bench_token, start_services, wait_for_api, work_dir
from latlab.runs import maintenance
from latlab_stack import history

FRONTEND = Path(__file__).resolve().parents[1] / "frontend"
TARGET_S = 2.0
TARGET_REQUESTS = 20


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--series", type=int, default=400, help="series of the big suite")
    parser.add_argument("--runs", type=int, default=1200, help="runs of each suite")
    parser.add_argument("--rounds", type=int, default=3, help="loads of each page")
    args = parser.parse_args()
    assert (FRONTEND / "dist" / "index.html").is_file(), "build the dashboard first: make"
    work = work_dir()
    services = start_services(work)
    api: subprocess.Popen[bytes] | None = None
    try:
        database_url = os.environ["LATLAB_DATABASE_URL"]
        bench_token(database_url, "read")  # the member the browser signs in as
        engine = create_engine(database_url)
        started = time.perf_counter()
        firsts = {}
        with Session(engine) as session, session.begin():
            for month in range(3):
                maintenance.ensure_partitions(session, history.START + timedelta(days=30 * month))
            for suite, clients in (("wide", tuple(f"c{i:03d}" for i in range(args.series))),
                                   ("narrow", ("c000",))):
                firsts[suite] = history.load(session, args.runs, suite=suite, clients=clients,
                                             every=timedelta(minutes=1))
        engine.dispose()
        print(f"stored {args.runs:,} runs of {args.series} series and {args.runs:,} of one in "
              f"{time.perf_counter() - started:.0f} s", flush=True)
        port = localstack.free_port()
        url = f"http://127.0.0.1:{port}"
        api = subprocess.Popen([sys.executable, "-m", "uvicorn", "latlab.main:app", "--port",
                                str(port), "--log-level", "warning"])
        wait_for_api(url)
        # The newest two runs of one scenario (run i is SCENARIOS[i % 4]: every 4th run).
        scenario = history.SCENARIOS[(args.runs - 1) % len(history.SCENARIOS)]
        pages = {suite: {"last": first + args.runs - 1, "before": first + args.runs - 5,
                         "scenario": scenario} for suite, first in firsts.items()}
        measured = subprocess.run(
            ["node", "tests/e2e/pages.bench.mjs"], cwd=FRONTEND, check=False,
            capture_output=True, text=True, timeout=1800,
            env={**os.environ, "LATLAB_URL": url,
                 "LATLAB_EMAIL": f"bench-{os.getpid()}@lab.test",
                 "LATLAB_PASSWORD": "bench-password", "LATLAB_PAGES": json.dumps(pages),
                 "LATLAB_ROUNDS": str(args.rounds)})
        if measured.returncode != 0:
            raise SystemExit(f"the browser's measurement failed:\n{measured.stderr[-4000:]}")
        _report(json.loads(measured.stdout), args)
    finally:
        if api is not None:
            api.terminate()
            api.wait(30)
        for service in services:
            service.stop()


def _report(figures: list[dict[str, object]], args: argparse.Namespace) -> None:
    by = {(str(f["page"]), str(f["suite"])): f for f in figures}
    print(f"\n{'page':10}{'wide: content':>15}{'requests':>10}{'quiet':>8}"
          f"{'narrow: content':>17}{'requests':>10}{'ratio':>8}   target")
    for page in dict.fromkeys(str(f["page"]) for f in figures):
        wide, narrow = by[(page, "wide")], by[(page, "narrow")]
        content, reference = float(str(wide["content_s"])), float(str(narrow["content_s"]))
        met = content <= TARGET_S and int(str(wide["requests"])) <= TARGET_REQUESTS
        print(f"{page:10}{content:>14.2f}s{wide['requests']:>10}{wide['quiet_requests']:>8}"
              f"{reference:>16.2f}s{narrow['requests']:>10}{content / reference:>7.1f}x"
              f"   <= {TARGET_S:g} s, <= {TARGET_REQUESTS} {'[ok]' if met else '[missed]'}")
    print(f"\n{args.series} series x {args.runs:,} runs; median of {args.rounds} loads each; "
          "content: from the navigation to the page's first row or drawn line; requests: api "
          "calls until then (quiet: until the network was idle)")


if __name__ == "__main__":
    main()
