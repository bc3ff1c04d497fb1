"""Every scenario of every suite, launched as the dashboard launches it (its defaults, one
repetition, the timeout the lab derives): does each finish, and how long did it take against
the estimate its timeout came from?

Starts a throwaway lab (bench/lab.py) and runs the scenarios one after another, printing per
scenario the job's status, its estimate (`POST /jobs/estimate`), its timeout, and the minutes
it took from start to end (builds cached; a first build is in the first job of a suite).

    .venv/bin/python -m bench.scenarios [--suites echo,zmq] [--repetitions 1]

Target (issue "Every experiment of the four reports"): every scenario succeeds at its defaults,
each inside its timeout.
"""

import argparse
from typing import Any

from bench.lab import Lab, job_minutes, running_lab, wait_job


def main() -> None:
    options = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    options.add_argument("--suites", default="", help="comma-separated; default: every suite")
    options.add_argument("--repetitions", type=int, default=1)
    args = options.parse_args()
    chosen = [s for s in args.suites.split(",") if s]
    rows, failed = [], 0
    with running_lab() as lab:
        suites = lab.api.get("/suites").raise_for_status().json()
        for suite in sorted(suites, key=lambda s: s["id"]):
            if chosen and suite["id"] not in chosen:
                continue
            for scenario in suite["scenarios"]:
                row, ok = _run(lab, suite["id"], scenario, args.repetitions)
                failed += not ok
                rows.append(row)
                print(row, flush=True)
    print(f"\n{len(rows) - failed} of {len(rows)} scenarios succeeded at their defaults "
          f"({args.repetitions} repetition a job) [{'ok' if not failed else 'missed'}]")


def _run(lab: Lab, suite: str, scenario: str, repetitions: int) -> tuple[str, bool]:
    body: dict[str, Any] = {"suite": suite, "scenario": scenario, "repetitions": repetitions,
                            "host_tags": [lab.host_tag]}
    estimate = lab.api.post("/jobs/estimate", json=body).raise_for_status().json()
    job = wait_job(lab, lab.api.post("/jobs", json=body).raise_for_status().json()["id"])
    minutes = job_minutes(job)
    about = estimate["estimate_s"]
    row = (f"{suite + '/' + scenario:<26} {job['status']:<10} {minutes:6.2f} min  estimate "
           f"{'-' if about is None else f'{about / 60:6.2f} min'}  timeout "
           f"{job['timeout_s'] / 60:5.1f} min  {estimate['series']} series"
           + (f"  ({(job['error'] or '')[:120]})" if job["status"] != "succeeded" else ""))
    return row, job["status"] == "succeeded"


if __name__ == "__main__":
    main()
