"""Reading results: `latlab runs`, `show`, `compare` and `trends`, each one API call the
dashboard's page of the same name makes."""

import json
from typing import Annotated, Any, Literal

import typer

from latlab_cli.client import Lab
from latlab_cli.config import TokenOption, UrlOption, settings
from latlab_cli.errors import CliError
from latlab_cli.output import err, labels_text, moment, out, source_text, verdict_lines
from latlab_cli.params import label_pairs
from latlab_cli.tables import print_compare, print_trend, run_table, runs_table

RunId = Annotated[int, typer.Argument(metavar="RUN", min=1, help="A run's number.")]
Limit = Annotated[int, typer.Option("--limit", "-n", min=1, max=200,
                                    help="How many, the newest.")]


def runs(
    suite: Annotated[str | None, typer.Option(
        help="Only runs of suites starting with this, in any case (as the dashboard filters: "
             "--suite zmq gives zmq and zmq-pubsub).")] = None,
    scenario: Annotated[str | None, typer.Option(help="Only this scenario's.")] = None,
    branch: Annotated[str | None, typer.Option(help="Only this branch's.")] = None,
    host: Annotated[str | None, typer.Option(help="Only those measured on this host.")]
    = None,
    source: Annotated[Literal["ci", "job", "manual"] | None, typer.Option(
        help="Only runs from CI, lab jobs or manual submissions.")] = None,
    verdict: Annotated[Literal["pass", "fail", "inconclusive", "no-baseline", "none"] | None,
                       typer.Option(help="Only runs with this verdict (none: not judged).")]
    = None,
    limit: Limit = 20,
    url: UrlOption = None,
    token: TokenOption = None,
) -> None:
    """The project's recent runs, newest first, with their verdicts and headline P99."""
    filters = {"suite_prefix": suite, "scenario": scenario, "branch": branch, "host": host,
               "source": source, "verdict": verdict}
    page = Lab.with_token(settings(url, token)).get(
        "/runs", limit=limit, **{k: v for k, v in filters.items() if v is not None})
    out.print(runs_table(page))


def show(
    run_id: RunId,
    all_metrics: Annotated[bool, typer.Option(
        help="Every metric of the run (CPU time, page faults, ...), not only throughput and "
             "errors.")] = False,
    url: UrlOption = None,
    token: TokenOption = None,
) -> None:
    """A run: where and how it ran, its series' summary table and its verdict."""
    lab = Lab.with_token(settings(url, token))
    show_run(lab, lab.get(f"/runs/{run_id}"), all_metrics)


def show_run(lab: Lab, run: dict[str, Any], every_metric: bool = False) -> None:
    out.print(f"run {run['id']} · {run['suite']}/{run['scenario']} · started "
              f"{moment(run['started_at'])} · {source_text(run['source'])} · host "
              f"{run.get('host_name') or '(not given)'} · {run['trial_count']} trials")
    if run.get("params"):
        out.print(f"params: {json.dumps(run['params'], sort_keys=True)}")
    out.print(run_table(run, every_metric))
    verdict_lines(run, lab.page(f"/runs/{run['id']}"))


def compare(
    baseline: Annotated[int, typer.Argument(metavar="BASELINE", min=1, help="A run.")],
    candidate: Annotated[int, typer.Argument(metavar="CANDIDATE", min=1, help="A run.")],
    baseline_series: Annotated[list[str] | None, typer.Option(
        metavar="LABEL=VALUE", help="Only the baseline's series with these labels, matched "
        "on their other labels (two series of one run: server=go against server=zig).")]
    = None,
    candidate_series: Annotated[list[str] | None, typer.Option(
        metavar="LABEL=VALUE", help="The same for the candidate.")] = None,
    evidence: Annotated[bool, typer.Option(help="Show each verdict's test and p-value.")]
    = False,
    every: Annotated[bool, typer.Option(
        "--all", help="Every series, not only those that changed.")] = False,
    url: UrlOption = None,
    token: TokenOption = None,
) -> None:
    """Candidate against baseline: the series that changed, the largest change first (every
    series with --all), per metric both values, the change and the lab's verdict (GET
    /compare, as the dashboard's compare page), then each regression by name."""
    lab = Lab.with_token(settings(url, token))
    query: dict[str, Any] = {"baseline": baseline, "candidate": candidate}
    for side, pairs in (("baseline", baseline_series), ("candidate", candidate_series)):
        if pairs:
            query[f"{side}_labels"] = json.dumps(label_pairs(pairs, f"--{side}-series"))
    print_compare(lab.get("/compare", **query), evidence, every)
    out.print(lab.page(f"/compare?baseline={baseline}&candidate={candidate}"))


def trends(
    suite: Annotated[str, typer.Argument(metavar="SUITE", help="The suite.")],
    scenario: Annotated[str, typer.Argument(metavar="SCENARIO", help="Its scenario.")],
    metric: Annotated[str, typer.Option("--metric", "-m", help="p50, p99, p999, throughput, "
                                        "or any metric of the suite.")] = "p99",
    label: Annotated[list[str] | None, typer.Option(
        metavar="LABEL=VALUE", help="The series' labels (repeat), e.g. transport=tcp. Default: "
        "the series the newest run shows first (the one it failed on, else its worst against "
        "its window, else its first).")]
    = None,
    branch: Annotated[str | None, typer.Option(help="Default: main.")] = None,
    host: Annotated[str | None, typer.Option(help="Only runs on this host.")] = None,
    params: Annotated[str | None, typer.Option(
        metavar="JSON", help="The runs' params (default: the newest run's): another params "
        "set is another history; the answer lists them.")] = None,
    limit: Limit = 20,
    url: UrlOption = None,
    token: TokenOption = None,
) -> None:
    """A series' history: its metric run after run, the change points found in it and the
    window the latest run is judged against (GET /trends, as the dashboard's trends page)."""
    lab = Lab.with_token(settings(url, token))
    labels = label_pairs(label, "--label") if label else _headline_series(lab, suite, scenario)
    query = {"suite": suite, "scenario": scenario, "metric": metric, "branch": branch,
             "host": host, "params": params, "limit": max(limit, 2),
             "labels": json.dumps(labels)}
    trend = lab.get("/trends", **{k: v for k, v in query.items() if v is not None})
    print_trend(trend)


def _headline_series(lab: Lab, suite: str, scenario: str) -> dict[str, str]:
    """The series the newest run of `suite`/`scenario` shows in lists, said on stderr with the
    others to choose from."""
    newest = lab.get("/runs", suite=suite, scenario=scenario, limit=1)["items"]
    if not newest or newest[0]["headline"] is None:
        raise CliError(f"no run of {suite}/{scenario} has a series")
    labels: dict[str, str] = newest[0]["headline"]["series"]
    count = newest[0]["series_count"]
    if count > 1:
        err.print(f"series {labels_text(labels)} (the newest run, #{newest[0]['id']}, shows "
                 f"it first of its {count}; --label NAME=VALUE to choose another)")
    return labels
