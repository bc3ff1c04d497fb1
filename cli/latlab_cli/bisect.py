"""`latlab bisect`: which commit of a repository made a series' metric worse. The lab searches
the first-parent history between a good and a bad commit, each step a try job on one host
(the ends side by side first, then halving); with --wait each step as it starts and ends,
then how the search ended and an exit status by it."""

import json
import time
from typing import Annotated, Any
from urllib.parse import urlencode

import typer
from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

from latlab_cli.client import Lab
from latlab_cli.config import TokenOption, UrlOption, settings
from latlab_cli.errors import CliError, Unreachable
from latlab_cli.jobs import INTERRUPTED, estimated, find_suite
from latlab_cli.output import err, labels_text, out
from latlab_cli.params import label_pairs, typed_params
from latlab_cli.tries import SIDES, SUITE, HostTagOption, ParamOption, ScenarioOption

POLL_S = 2.0  # a step takes minutes: a few seconds between looks is enough
RUNNING = "running"
# How a search ended, as an exit status: 0 a culprit named; 4 none (the ends showed no
# regression, or only a range); 3 nothing to say (a step could not measure, or cancelled).
EXIT_BY_STATUS = {"found": 0, "not-reproduced": 4, "narrowed": 4, "failed": 3, "cancelled": 3}
KINDS = {"ends": " (the ends)", "search": "", "culprit": " (the culprit beside its parent)"}


def bisect(
    repo: Annotated[str | None, typer.Option(
        metavar="NAME", show_default=False,
        help="The repository (latlab repos lists them). Needed, with --good and --bad, "
             "unless --cancel.")] = None,
    good: Annotated[str | None, typer.Option(
        metavar="REF", show_default=False,
        help="A branch, tag or commit without the regression.")] = None,
    bad: Annotated[str | None, typer.Option(
        metavar="REF", show_default=False,
        help="A later one with it; GOOD must be on its first-parent history.")] = None,
    suite: Annotated[str, typer.Option(
        help="The suite that builds and measures the repository (http-order: server=repo "
             "unless --param server= says otherwise).")] = SUITE,
    scenario: ScenarioOption = None,
    param: ParamOption = None,
    series: Annotated[list[str] | None, typer.Option(
        metavar="NAME=VALUE",
        help="A label of the series judged (repeat): client=go (default: any series).")]
    = None,
    metric: Annotated[str, typer.Option(
        help="The gate metric whose regression is searched for.")] = "p99",
    host_tag: HostTagOption = None,
    repetitions: Annotated[int | None, typer.Option(
        "--repetitions", "-r", min=2, max=100,
        help="Trials of each side per series in a step's first stage (default: 10); "
             "undecided, a step measures more.")] = None,
    max_minutes: Annotated[int | None, typer.Option(
        "--max-minutes", min=1, metavar="MINUTES",
        help="A cap of lab time over all steps: reaching it ends the search on the narrowest "
             "range found.")] = None,
    wait: Annotated[bool, typer.Option(
        "--wait", "-w", help="Show each step as it starts and ends, then how the search "
        "ended; the exit status follows it.")] = False,
    cancel: Annotated[int | None, typer.Option(
        metavar="ID", min=1, show_default=False,
        help="End the running bisection ID (its step's job is cancelled).")] = None,
    url: UrlOption = None,
    token: TokenOption = None,
) -> None:
    """Find the commit between GOOD and BAD that made the series' METRIC worse, each step a
    try job (POST /bisections); prints the bisection's number, or with --wait its steps and
    the culprit. The same question asked again is the same bisection. Exit status with
    --wait: 0 a culprit named, 4 none (not reproduced, or narrowed to a range), 3 the search
    failed or was cancelled, 130 interrupted (the search goes on)."""
    lab = Lab.with_token(settings(url, token))
    if cancel is not None:
        if repo or good or bad or wait:
            raise CliError("--cancel ID goes without --repo, --good, --bad and --wait")
        ended = lab.post(f"/bisections/{cancel}/cancel")
        out.print(f"bisection {ended['id']}: {ended['message']}")
        return
    if not (repo and good and bad):
        raise CliError("give --repo, --good and --bad (or --cancel ID)")
    found = find_suite(lab, suite)
    params = typed_params(found, param or [])
    if suite == SUITE:
        params.setdefault("server", "repo")
    request: dict[str, Any] = {
        "repo": repo, "good": good, "bad": bad, "suite": suite, "params": params,
        "series": label_pairs(series, "--series"), "metric": metric,
        "host_tags": host_tag or [], "max_minutes": max_minutes}
    if repetitions is not None:
        request["repetitions"] = repetitions
    # A step is a try job of two commits: the lab's estimate picks the scenario and checks
    # the params before anything is launched.
    scenario, _ = estimated(lab, found, {
        "suite": suite, "params": params, "host_tags": host_tag or [], "repo": repo,
        "compare": {"base": good, "head": bad},
        **({} if repetitions is None else {"repetitions": repetitions})}, scenario)
    answer = lab.send("POST", "/bisections", json={**request, "scenario": scenario})
    bisection: dict[str, Any] = answer.json()
    if answer.status_code == 200:
        err.print(f"asked before: bisection {bisection['id']} ({bisection['status']})")
    err.print(_described(lab, bisection, good, bad))
    if not wait:
        out.print(bisection["id"])
        err.print(f"watch it: the same command with --wait; end it: latlab bisect --cancel "
                  f"{bisection['id']}")
        return
    try:
        bisection = _watch(lab, bisection)
    except KeyboardInterrupt:
        err.print(f"stopped watching; bisection {bisection['id']} goes on (the same command "
                  f"watches it again, latlab bisect --cancel {bisection['id']} ends it)")
        raise typer.Exit(INTERRUPTED) from None
    raise typer.Exit(_ended(lab, bisection))


def _described(lab: Lab, bisection: dict[str, Any], good: str, bad: str) -> str:
    """`bisection 7: orders v1.0 (0d3e1a2b3c) .. main (4f1c2e7a9b), 9 commits, http-order/small
    p99 of client=go · its page`."""
    of = labels_text(bisection["series"]) if bisection["series"] else "any series"
    return (f"bisection {bisection['id']}: {bisection['repo']} {good} "
            f"({bisection['good'][:10]}) .. {bad} ({bisection['bad'][:10]}), "
            f"{len(bisection['commits'])} commits, {bisection['suite']}/"
            f"{bisection['scenario']} {bisection['metric']} of {of} · {_page(lab, bisection)}")


def _watch(lab: Lab, bisection: dict[str, Any]) -> dict[str, Any]:
    """Polls the bisection to its end: a line as each step starts and as it ends; on a
    terminal, a progress line below them."""
    columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn())
    shown: dict[int, bool] = {}  # step number -> whether its end was shown
    with Progress(*columns, console=err, disable=not err.is_terminal) as progress:
        task = progress.add_task(_progress(bisection), total=None)
        while True:
            for number, step in enumerate(bisection["steps"], 1):
                ended = step["outcome"] is not None or step["said"] is not None
                if number not in shown and not ended:
                    err.print(_step_line(number, step, bisection["metric"]))
                    shown[number] = False
                elif ended and not shown.get(number):
                    err.print(_step_line(number, step, bisection["metric"]))
                    shown[number] = True
            progress.update(task, description=_progress(bisection))
            if bisection["status"] != RUNNING:
                return bisection
            time.sleep(POLL_S)
            bisection = lab.get(f"/bisections/{bisection['id']}")


def _step_line(number: int, step: dict[str, Any], metric: str) -> str:
    """`step 2: 0d3e1a2b3c against 8eb2c4d5e6: regressed +29.9 % p99 [+28.1 % to +31.9 %]
    (job 12)`, or `measuring` while its job runs."""
    head = f"step {number}{KINDS[step['kind']]}: {step['base'][:10]} against {step['head'][:10]}"
    job = f"(job {step['job_id']})"
    if step["outcome"] == "unbuildable":
        return f"{head}: {step['head'][:10]} does not build {job}: {step['said']}"
    if step["outcome"] is None and step["said"] is not None:
        return f"{head}: did not measure {job}: {step['said']}"
    if step["outcome"] is None:
        return f"{head}: measuring {job}"
    return (f"{head}: {step['outcome']} {_pct(step['change'])} {metric}"
            f"{_interval(step['interval'])} {job}")


def _progress(bisection: dict[str, Any]) -> str:
    done = sum(step["outcome"] is not None for step in bisection["steps"])
    unknown = sum(commit["state"] == "unknown" for commit in bisection["commits"])
    return (f"bisection {bisection['id']} {bisection['status']}: {done} steps done · "
            f"{unknown} of {len(bisection['commits'])} commits unknown")


def _ended(lab: Lab, bisection: dict[str, Any]) -> int:
    """How the search ended, on standard output; its exit status."""
    page = _page(lab, bisection)
    if bisection["status"] in ("failed", "cancelled"):
        raise Unreachable(f"bisection {bisection['id']} {bisection['status']}: "
                          f"{bisection['message']} · {page}")
    out.print(bisection["message"])
    culprit = (bisection["result"] or {}).get("culprit")
    if culprit is not None:
        out.print(f"commit: {culprit['sha']} {culprit['subject']} ({culprit['author']})")
        if culprit.get("run_id") is not None:
            query = {"baseline": culprit["run_id"], "candidate": culprit["run_id"],
                     **{key: json.dumps(labels, separators=(",", ":"))
                        for key, labels in SIDES.items()}}
            out.print(f"compare: {lab.page(f'/compare?{urlencode(query)}')}")
    out.print(f"bisection: {page}")
    return EXIT_BY_STATUS[bisection["status"]]


def _page(lab: Lab, bisection: dict[str, Any]) -> str:
    return lab.page(f"/bisections/{bisection['id']}")


def _pct(change: float | None) -> str:
    return "?" if change is None else f"{100 * change:+.1f} %"


def _interval(interval: list[float] | None) -> str:
    return "" if not interval else (f" [{100 * interval[0]:+.1f} % to "
                                    f"{100 * interval[1]:+.1f} %]")
