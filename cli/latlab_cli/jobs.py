"""Launching and watching lab jobs: `latlab suites` (what can run), `latlab run` (a job, with
a progress bar until its run's table and verdict) and `latlab job` (one job: watch, cancel)."""

import time
from typing import Annotated, Any

import typer
from rich.progress import (
    BarColumn,
    Progress,
    SpinnerColumn,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table

from latlab_cli.client import Lab
from latlab_cli.config import TokenOption, UrlOption, settings
from latlab_cli.errors import CliError, Rejected, Unreachable
from latlab_cli.output import err, out
from latlab_cli.params import typed_params
from latlab_cli.runs import show_run
from latlab_cli.verdicts import FailOn, FailOnOption, exit_status

POLL_S = 0.5
FINISHED = {"succeeded", "failed", "cancelled", "timed_out"}
INTERRUPTED = 130  # as a shell reports Ctrl-C

JobId = Annotated[int, typer.Argument(metavar="JOB", min=1, help="A job's number.")]


def suites(
    suite: Annotated[str | None, typer.Argument(
        metavar="SUITE", help="One suite: its scenarios and params.")] = None,
    url: UrlOption = None,
    token: TokenOption = None,
) -> None:
    """The suites online hosts offer; with SUITE, its scenarios and the params --param sets."""
    lab = Lab.with_token(settings(url, token))
    if suite is None:
        table = Table("suite", "scenarios", "hosts", "description", title="suites",
                      title_justify="left")
        for item in lab.get("/suites"):
            table.add_row(item["id"], ", ".join(item["scenarios"]), ", ".join(item["hosts"]),
                          item["description"])
        out.print(table)
        return
    found = find_suite(lab, suite)
    scenarios = Table("scenario", "params", "description", title=f"{suite}: scenarios",
                      title_justify="left")
    for name, spec in found["scenarios"].items():
        scenarios.add_row(name, ", ".join(f"{k}={v}" for k, v in spec["params"].items()),
                          spec["description"])
    params = Table("param", "type", "default", "description", title=f"{suite}: --param",
                   title_justify="left")
    for name, spec in found["params_schema"].get("properties", {}).items():
        kinds = [c.get("type", "") for c in spec.get("anyOf", [spec])]
        kind = next((k for k in kinds if k != "array"), "array")
        params.add_row(name, kind + (" or a list" if len(kinds) > 1 else ""),
                       str(spec.get("default", "")), spec.get("description", ""))
    out.print(scenarios)
    out.print(params)


def run(
    suite: Annotated[str, typer.Argument(
        metavar="SUITE", help="The suite (latlab suites lists them).")],
    scenario: Annotated[str | None, typer.Argument(
        metavar="SCENARIO", help="Default: the suite's lightest, by the lab's estimate.")]
    = None,
    param: Annotated[list[str] | None, typer.Option(
        "--param", "-p", metavar="NAME=VALUE",
        help="A param of the suite (repeat), typed by its schema: count=5000; a list sweeps "
             "an axis: connections=1,2,4.")] = None,
    repetitions: Annotated[int | None, typer.Option(
        "--repetitions", "-r", min=1, max=100,
        help="Trials per series (default: the lab's, 5, enough for a comparison to test a "
             "change).")] = None,
    tag: Annotated[list[str] | None, typer.Option(
        metavar="TAG", help="Run on a host with this tag (repeat).")] = None,
    timeout: Annotated[int | None, typer.Option(
        help="Seconds the job may take (default: from its estimate).")] = None,
    profile: Annotated[bool, typer.Option(
        help="One more trial per series with each program's CPU profiled.")] = False,
    wait: Annotated[bool, typer.Option(
        "--wait", "-w", help="Show its progress, then its run's table and verdict; the exit "
        "status follows the verdict.")] = False,
    fail_on: FailOnOption = "regression",
    url: UrlOption = None,
    token: TokenOption = None,
) -> None:
    """Launch a job: SUITE's SCENARIO on a lab host (POST /jobs, as the dashboard's jobs
    page)."""
    lab = Lab.with_token(settings(url, token))
    found = find_suite(lab, suite)
    request: dict[str, Any] = {"suite": suite, "params": typed_params(found, param or []),
                               "host_tags": tag or [], "profile": profile}
    if repetitions is not None:
        request["repetitions"] = repetitions
    if timeout is not None:
        request["timeout_s"] = timeout
    scenario, estimate = estimated(lab, found, request, scenario)
    job = lab.post("/jobs", {**request, "scenario": scenario})
    err.print(f"job {job['id']}: {suite}/{scenario}, {about(estimate)} · {lab.page('/jobs')}")
    if not wait:
        out.print(job["id"])
        return
    raise typer.Exit(_finish(lab, job["id"], fail_on))


def job(
    job_id: JobId,
    wait: Annotated[bool, typer.Option("--wait", "-w", help="Watch it to its run's verdict.")]
    = False,
    cancel: Annotated[bool, typer.Option(help="Cancel it (its programs are killed).")]
    = False,
    fail_on: FailOnOption = "regression",
    url: UrlOption = None,
    token: TokenOption = None,
) -> None:
    """A job's state; --wait watches it as `latlab run --wait` does, --cancel ends it."""
    lab = Lab.with_token(settings(url, token))
    if cancel:
        out.print(_state(lab.post(f"/jobs/{job_id}/cancel")))
    elif wait:
        raise typer.Exit(_finish(lab, job_id, fail_on))
    else:
        found = lab.get(f"/jobs/{job_id}")
        out.print(_state(found) + (f" · run {found['run_id']}" if found["run_id"] else ""))


def find_suite(lab: Lab, suite: str) -> dict[str, Any]:
    offered: dict[str, dict[str, Any]] = {item["id"]: item for item in lab.get("/suites")}
    if suite not in offered:
        raise CliError(f"no online host offers suite '{suite}' (offered: "
                       f"{', '.join(sorted(offered)) or 'none'})")
    return offered[suite]


def estimated(lab: Lab, suite: dict[str, Any], request: dict[str, Any],
              scenario: str | None) -> tuple[str, dict[str, Any]]:
    """The scenario to run (the one asked for, else `_lightest`) and the lab's estimate of
    the request in it (`POST /jobs/estimate`)."""
    if scenario is None:
        return _lightest(lab, suite, request)
    if scenario not in suite["scenarios"]:
        raise CliError(f"suite '{suite['id']}' has no scenario '{scenario}' (it has: "
                       f"{', '.join(sorted(suite['scenarios']))})")
    return scenario, lab.post("/jobs/estimate", {**request, "scenario": scenario})


def _lightest(lab: Lab, suite: dict[str, Any],
              request: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    """The scenario the lab estimates shortest for this request (one without an estimate
    last): what a first try should run."""
    estimates, refusal = {}, None
    for name in suite["scenarios"]:
        try:
            estimates[name] = lab.post("/jobs/estimate", {**request, "scenario": name})
        except Rejected as error:
            refusal = refusal or error
    if not estimates:
        assert refusal is not None
        raise refusal
    name = min(estimates, key=lambda n: (estimates[n]["estimate_s"] is None,
                                         estimates[n]["estimate_s"] or 0.0))
    return name, estimates[name]


def about(estimate: dict[str, Any]) -> str:
    work = f"{estimate['series']} series x {estimate['trials']} trials"
    seconds = estimate["estimate_s"]
    return work if seconds is None else f"about {seconds:.0f} s ({work})"


def _finish(lab: Lab, job_id: int, fail_on: FailOn) -> int:
    """Watches the job to its end, then shows its run; the exit status of its verdict."""
    run = shown_run(lab, job_id)
    return INTERRUPTED if run is None else exit_status(fail_on, run.get("verdict"))


def shown_run(lab: Lab, job_id: int) -> dict[str, Any] | None:
    """Watches the job to its end, then shows its run (its table and verdict) and returns
    it; None when the watch was interrupted (the job goes on). A job that did not succeed is
    `Unreachable`, with its error."""
    try:
        done = _watch(lab, job_id)
    except KeyboardInterrupt:
        err.print(f"stopped watching; job {job_id} goes on (latlab job {job_id} --wait, "
                  "or --cancel)")
        return None
    if done["status"] != "succeeded" or done["run_id"] is None:
        raise Unreachable(f"job {job_id} {done['status']}: {done.get('error') or 'no run'}")
    run: dict[str, Any] = lab.get(f"/runs/{done['run_id']}")
    show_run(lab, run)
    return run


def _watch(lab: Lab, job_id: int) -> dict[str, Any]:
    """A progress bar on a terminal; elsewhere (CI logs) a line per change of state."""
    columns = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
               TaskProgressColumn(), TimeElapsedColumn())
    with Progress(*columns, console=err, disable=not err.is_terminal) as progress:
        task = progress.add_task(f"job {job_id}", total=100)
        shown = ""
        while True:
            found: dict[str, Any] = lab.get(f"/jobs/{job_id}")
            state = _state(found)
            progress.update(task, completed=found["progress"], description=state)
            if state != shown and not err.is_terminal:
                err.print(state)
            shown = state
            if found["status"] in FINISHED:
                return found
            time.sleep(POLL_S)


def _state(job: dict[str, Any]) -> str:
    where = f" on {job['host_name']}" if job.get("host_name") else ""
    phase = f" · {job['phase']}" if job.get("phase") and job["status"] == "running" else ""
    stages = job.get("stages")
    look = (f" · look {len(stages['measured']) + 1} of {len(stages['looks'])}"
            if stages and job["status"] not in FINISHED else "")
    return (f"job {job['id']} {job['suite']}/{job['scenario']}{where}: {job['status']}{phase}"
            f"{look}")
