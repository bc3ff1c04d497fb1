"""`latlab experiment`: save an experiment (a JSON or TOML document: its jobs, named series,
expectations and reference figures), run it and wait for the lab's judgement, read a run's
judgements, export one as Markdown."""

import json
import time
import tomllib
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from latlab_cli.client import Lab
from latlab_cli.config import TokenOption, UrlOption, settings
from latlab_cli.errors import CliError
from latlab_cli.jobs import INTERRUPTED
from latlab_cli.output import err, moment, out, styled, value, write_report
from latlab_cli.tables import fitted

POLL_S = 5.0  # an experiment's jobs take minutes
# A run's judgement as an exit status: 0 every expectation holds, 1 one does not, 4 none
# fails but one is not decided, 3 the run failed (a job did not succeed).
NOT_DECIDED = 4
FAILED = 3
# Each outcome in the colour of the verdict it resembles.
OUTCOMES = {"holds": "pass", "does-not-hold": "fail", "not-decided": "inconclusive"}

Name = Annotated[str, typer.Argument(metavar="NAME", show_default=False,
                                     help="The experiment's name in the lab.")]
RunId = Annotated[int, typer.Argument(metavar="RUN", min=1, show_default=False,
                                      help="One of its runs (latlab experiment show NAME).")]

app = typer.Typer(name="experiment", add_completion=False, rich_markup_mode=None,
                  pretty_exceptions_enable=False, no_args_is_help=True,
                  help="Experiments: a study's jobs, named series and expectations, run and "
                       "judged by the lab.")


@app.command()
def save(
    document: Annotated[Path, typer.Argument(
        metavar="FILE", show_default=False, exists=True, dir_okay=False,
        help="The experiment as JSON, or TOML (.toml).")],
    url: UrlOption = None, token: TokenOption = None,
) -> None:
    """Save an experiment (POST /experiments): a changed document becomes its next version."""
    text = document.read_text(encoding="utf-8")
    try:
        body = tomllib.loads(text) if document.suffix == ".toml" else json.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as error:
        raise CliError(f"{document}: {error}") from error
    lab = Lab.with_token(settings(url, token))
    answer = lab.send("POST", "/experiments", json=body)
    saved = answer.json()
    out.print(f"{saved['name']} version {saved['version']}"
              + (" (unchanged)" if answer.status_code == 200 else ""))


@app.command()
def run(
    name: Name,
    host_tag: Annotated[list[str] | None, typer.Option(
        "--host-tag", "--tag", metavar="TAG", help="Run on hosts with this tag (repeat).")]
    = None,
    wait: Annotated[bool, typer.Option(
        "--wait", "-w", help="Wait for its jobs, then show every expectation judged; the "
        "exit status follows them.")] = False,
    url: UrlOption = None, token: TokenOption = None,
) -> None:
    """Run the experiment's latest version (POST /experiments/NAME/runs): prints the run's
    number, or with --wait its judgements. Exit status with --wait: 0 every expectation
    holds, 1 one does not hold, 4 none fails but one is not decided, 3 the run failed (a
    job did not succeed), 130 interrupted (the run goes on)."""
    lab = Lab.with_token(settings(url, token))
    started = lab.post(f"/experiments/{name}/runs", {"host_tags": host_tag or []})
    jobs = ", ".join(f"{job} #{j['job_id']}" for job, j in started["jobs"].items())
    err.print(f"experiment {name} version {started['version']}, run {started['id']}: {jobs}")
    if not wait:
        out.print(started["id"])
        err.print(f"its judgements once the jobs end: latlab experiment show {name} "
                  f"{started['id']}")
        return
    found = started
    try:
        while found["status"] == "running":
            time.sleep(POLL_S)
            found = lab.get(f"/experiments/{name}/runs/{started['id']}")
    except KeyboardInterrupt:
        err.print(f"stopped waiting; run {started['id']} goes on (latlab experiment show "
                  f"{name} {started['id']})")
        raise typer.Exit(INTERRUPTED) from None
    raise typer.Exit(_shown(found))


@app.command()
def show(name: Name, run_id: Annotated[int | None, typer.Argument(
        metavar="[RUN]", min=1, show_default=False,
        help="One of its runs; without it, its runs.")] = None,
         url: UrlOption = None, token: TokenOption = None) -> None:
    """An experiment's runs, or one run's expectations as the lab judged them (the exit
    status as `run --wait`'s)."""
    lab = Lab.with_token(settings(url, token))
    if run_id is not None:
        raise typer.Exit(_shown(lab.get(f"/experiments/{name}/runs/{run_id}")))
    table = Table("run", "version", "status", "holds", "does not hold", "not decided",
                  "launched", title=f"experiment {name}", title_justify="left")
    for found in lab.get(f"/experiments/{name}/runs"):
        counts = [sum(j["outcome"] == o for j in found["judgements"] or [])
                  for o in OUTCOMES]
        table.add_row(str(found["id"]), str(found["version"]), found["status"],
                      *(str(c) if found["judgements"] is not None else "-" for c in counts),
                      moment(found["created_at"]))
    out.print(fitted(table, ["launched", "version"]))


@app.command()
def export(name: Name, run_id: RunId, output: Annotated[Path | None, typer.Option(
        "--output", "-o", metavar="FILE", help="Write it here instead of the terminal.")]
           = None, url: UrlOption = None, token: TokenOption = None) -> None:
    """A run as a report in Markdown: question, setup, expectations judged, the lab's figures
    beside the reference, conclusions."""
    lab = Lab.with_token(settings(url, token))
    text = lab.send("GET", f"/experiments/{name}/runs/{run_id}/markdown").text
    if output is None:
        print(text)
    else:
        write_report(output, text)
        err.print(f"wrote {output}")


def _shown(found: dict[str, Any]) -> int:
    """Prints a run's judgements; its exit status."""
    if found["status"] == "failed":
        out.print(f"run {found['id']} failed: {found['message']}")
        return FAILED
    if found["judgements"] is None:
        out.print(f"run {found['id']} is {found['status']}: its jobs have not all ended")
        return 0
    table = Table("expectation", "at", "judged", "value", "95 % interval", "decides from",
                  title=f"experiment {found['experiment']} version {found['version']}, run "
                        f"{found['id']}", title_justify="left")
    for judged in found["judgements"]:
        at = ", ".join(f"{k}={v:g}" for k, v in (judged["point"] or {}).items()) or "-"
        interval = ("-" if judged["interval"] is None else
                    f"{value(judged['interval'][0], judged['unit'])} - "
                    f"{value(judged['interval'][1], judged['unit'])}")
        decides = "-" if judged["decidable"] is None else f"{100 * judged['decidable']:.1f} %"
        table.add_row(judged["expectation"], at,
                      styled(OUTCOMES[judged["outcome"]], judged["outcome"].replace("-", " ")),
                      value(judged["value"], judged["unit"]), interval, decides)
    out.print(fitted(table, ["decides from", "95 % interval", "at"]))
    for judged in found["judgements"]:
        if judged["outcome"] != "holds":
            out.print(f"{judged['expectation']}: {judged['reason']}")
    outcomes = {j["outcome"] for j in found["judgements"]}
    return 1 if "does-not-hold" in outcomes else NOT_DECIDED if "not-decided" in outcomes else 0
