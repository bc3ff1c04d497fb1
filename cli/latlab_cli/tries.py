"""`latlab try`: a try job, a repository's head against its base, both built and their
trials interleaved on one lab host; with --wait its progress, the verdict per gate metric,
the Markdown summary (`--summary`), posted to the pull or merge request with `--comment` (as
`latlab submit --comment` does), and an exit status by verdict, as `latlab run` gives."""

import json
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlencode

import typer

from latlab_cli import forges
from latlab_cli.client import Lab
from latlab_cli.config import TokenOption, UrlOption, settings
from latlab_cli.errors import CliError
from latlab_cli.jobs import INTERRUPTED, about, estimated, find_suite, shown_run
from latlab_cli.output import err, out, write_report
from latlab_cli.params import typed_params
from latlab_cli.verdicts import FailOnOption, exit_status
from latlab_contract import reports

SUITE = "http-order"  # its clients drive the repository's order server (params.server=repo)
# The series a try job's run labels with its sides (the API's `side=base|head`).
SIDES = {"baseline_labels": {"side": "base"}, "candidate_labels": {"side": "head"}}
# The options of a try job's and a bisection's jobs (`latlab bisect` runs try jobs).
ScenarioOption = Annotated[str | None, typer.Option(
    help="Default: the suite's lightest, by the lab's estimate.")]
ParamOption = Annotated[list[str] | None, typer.Option(
    "--param", "-p", metavar="NAME=VALUE",
    help="A param of the suite (repeat), typed by its schema: orders=5000.")]
HostTagOption = Annotated[list[str] | None, typer.Option(
    "--host-tag", "--tag", metavar="TAG", help="Run on a host with this tag (repeat).")]


def try_job(
    repo: Annotated[str, typer.Option(
        metavar="NAME", show_default=False,
        help="The repository (latlab repos lists them, latlab repos add registers one).")],
    base: Annotated[str, typer.Option(
        metavar="REF", show_default=False,
        help="The branch, tag or commit (whole or abbreviated) measured as the base.")],
    head: Annotated[str, typer.Option(
        metavar="REF", show_default=False,
        help="The one measured beside it, whose change the verdict judges.")],
    suite: Annotated[str, typer.Option(
        help="The suite that builds and measures the repository: http-order drives its "
             "order server (server=repo unless --param server= says otherwise), harness runs "
             "its own benchmark command.")] = SUITE,
    scenario: ScenarioOption = None,
    param: ParamOption = None,
    repetitions: Annotated[int | None, typer.Option(
        "--repetitions", "-r", min=1, max=100,
        help="Trials of each side per series in the first stage (default: 10); undecided, "
             "the job doubles its trials at each look (up to 8x).")] = None,
    max_minutes: Annotated[int | None, typer.Option(
        "--max-minutes", min=1, metavar="MINUTES",
        help="A cap of lab time: no stage starts that would take the job past it "
             "(default: it stops at a decision or its last look).")] = None,
    host_tag: HostTagOption = None,
    timeout: Annotated[int | None, typer.Option(
        help="Seconds the job may take (default: from its estimate, with time to build).")]
    = None,
    profile: Annotated[bool, typer.Option(
        help="One more trial of each side with each program's CPU profiled: the "
             "differential flame graph on the compare page.")] = False,
    wait: Annotated[bool, typer.Option(
        "--wait", "-w", help="Show its progress, then its run's table and the verdict per "
        "gate metric; the exit status follows the verdict.")] = False,
    summary: Annotated[Path | None, typer.Option(
        metavar="FILE.md",
        help="With --wait: write the verdict as Markdown (a CI step summary, a PR "
             "comment).")] = None,
    comment: Annotated[bool, typer.Option(
        help="With --wait: post the verdict to the pull or merge request as `latlab submit "
             "--comment` does (one comment per request and suite, and a commit status).")]
    = False,
    fail_on: FailOnOption = "regression",
    url: UrlOption = None,
    token: TokenOption = None,
) -> None:
    """Try a change: HEAD against BASE of a repository, both built on one lab host and their
    trials interleaved (POST /jobs with compare); prints the job's number, or with --wait
    the verdict. Exit status: 1 when HEAD regressed (--fail-on), 3 when the job failed."""
    if (summary is not None or comment) and not wait:
        raise CliError("--summary and --comment go with --wait (the verdict comes at the "
                       "job's end)")
    forge = forges.from_env() if comment else None  # before the job is launched
    lab = Lab.with_token(settings(url, token))
    found = find_suite(lab, suite)
    params = typed_params(found, param or [])
    if suite == SUITE:
        params.setdefault("server", "repo")
    request: dict[str, Any] = {"suite": suite, "params": params, "host_tags": host_tag or [],
                               "profile": profile, "repo": repo,
                               "compare": {"base": base, "head": head,
                                           "max_minutes": max_minutes}}
    if repetitions is not None:
        request["repetitions"] = repetitions
    if timeout is not None:
        request["timeout_s"] = timeout
    scenario, estimate = estimated(lab, found, request, scenario)
    job = lab.get(f"/jobs/{lab.post('/jobs', {**request, 'scenario': scenario})['id']}")
    err.print(f"job {job['id']}: try {_sides(job)} · {suite}/{scenario}, {about(estimate)} · "
              f"{lab.page('/jobs')}")
    if not wait:
        out.print(job["id"])
        err.print(f"watch it: latlab job {job['id']} --wait")
        return
    run = shown_run(lab, job["id"])
    if run is None:
        raise typer.Exit(INTERRUPTED)
    query = {"baseline": run["id"], "candidate": run["id"],
             **{key: json.dumps(labels, separators=(",", ":"))
                for key, labels in SIDES.items()}}
    compare = lab.page(f"/compare?{urlencode(query)}")
    out.print(f"compare: {compare}")
    page = lab.page(f"/runs/{run['id']}")
    markdown = _markdown(run, job, page, compare)
    if summary is not None:
        write_report(summary, markdown)
    if forge is not None:
        for line in forge.post(suite, run.get("verdict"), markdown, page):
            err.print(f"  {line}")
    raise typer.Exit(exit_status(fail_on, run.get("verdict")))


def _sides(job: dict[str, Any]) -> str:
    """`orders main (4f1c2e7a9b) against v1.0 (0d3e...)`: the refs and the commits the lab
    resolved them to."""
    return (f"{job['repo']} {job['ref']} ({job['commit'][:10]}) against {job['base']['ref']} "
            f"({job['base']['commit'][:10]})")


def _markdown(run: dict[str, Any], job: dict[str, Any], page: str, compare: str) -> str:
    """The verdict as a heading, the commits and links, each reason, then a table: each gate
    metric of each series, head against base."""
    lines = [f"- {_sides(job)}", f"- run: {page}", f"- compare: {compare}"]
    lines += [f"- {reports.reason_line(reason)}" for reason in run["verdict_reasons"]]
    return reports.markdown(reports.try_rows(run, compare),
                            title=f"latlab try: {run.get('verdict') or 'unjudged'}",
                            lines=lines)
