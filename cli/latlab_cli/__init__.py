"""`latlab`: the lab from a terminal or CI, a client of its REST API."""

import sys

import typer

from latlab_cli import (
    annotations,
    bisect,
    experiments,
    hosts,
    jobs,
    login,
    repos,
    runs,
    submit,
    tries,
)
from latlab_cli.errors import CliError
from latlab_cli.output import WIDE, out

HELP = """The lab from a terminal or CI.

\b
    latlab login                               keep the lab's address and a token
    latlab suites [SUITE]                      what online hosts can run, its params
    latlab run SUITE [SCENARIO] -p k=v --wait  a job: progress, its run's table, the verdict
    latlab job JOB [--wait | --cancel]         one job
    latlab repos [add NAME URL | commits NAME] your git repositories, one's newest commits
    latlab try --repo R --base REF --head REF  a try job: head against base on one host
    latlab bisect --repo R --good A --bad B    the commit that made a metric worse
    latlab experiment run NAME --wait          a study's jobs, its expectations judged
    latlab runs --suite S                      recent runs
    latlab show RUN                            a run's table and verdict
    latlab compare BASELINE CANDIDATE          the lab's verdicts, metric by metric
    latlab trends SUITE SCENARIO -m p99        a series' history and its change points
    latlab submit result.json                  submit a result or a harness's output (CI)
    latlab annotate "deployed 2.4" --suite S   mark a moment on the trends (a deploy)
    latlab hosts invite NAME --tags T          a host joins with the command it prints

Tables fit the terminal, leaving columns out and saying which; `latlab --wide COMMAND` keeps
them all.

Exit status: 0 done (a run passed, had no baseline, or was inconclusive), 1 the verdict
fails (or `submit` was refused, or an experiment's expectation does not hold), 2 a usage
error or a request the lab refuses, 3 no verdict (the lab unreachable or failing, a job that
did not succeed, a bisection or an experiment's run that failed), 4 a bisection that named no
commit (not reproduced, or only a range) or an expectation not decided, 130 interrupted.
"""

app = typer.Typer(name="latlab", help=HELP, no_args_is_help=True, add_completion=False,
                  rich_markup_mode=None, pretty_exceptions_enable=False)


@app.callback()
def options(wide: bool = typer.Option(
        False, "--wide", help="Tables as wide as they need, every column kept (they fit the "
        "terminal otherwise, leaving columns out and saying which)")) -> None:
    if wide:
        out.width = WIDE


app.command()(login.login)
app.command()(login.config)
app.command()(jobs.suites)
app.command()(jobs.run)
app.command()(jobs.job)
app.add_typer(repos.app)
app.add_typer(hosts.app)
app.add_typer(experiments.app)
app.command("try")(tries.try_job)
app.command("bisect")(bisect.bisect)
app.command()(runs.runs)
app.command()(runs.show)
app.command()(runs.compare)
app.command()(runs.trends)
app.command()(submit.submit)
app.command()(annotations.annotate)
app.command()(annotations.annotations)


def main(argv: list[str] | None = None) -> int:
    try:
        app(args=argv, prog_name="latlab")
    except SystemExit as done:
        return done.code if isinstance(done.code, int) else int(done.code is not None)
    except CliError as error:
        print(f"latlab: {error}", file=sys.stderr)
        return error.code
    return 0
