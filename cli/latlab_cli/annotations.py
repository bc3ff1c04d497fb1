"""`latlab annotate` and `latlab annotations`: moments marked on the project's trends (a
deploy, a config change: a CI step after a deploy), and the list of them, the lab's own
included (a host's tuning changed, a suite's version changed)."""

from typing import Annotated

import typer
from rich.table import Table

from latlab_cli.client import Lab
from latlab_cli.config import TokenOption, UrlOption, settings
from latlab_cli.output import DASH, moment, out
from latlab_cli.params import parse_moment
from latlab_cli.tables import fitted


def annotate(
    text: Annotated[str, typer.Argument(metavar="TEXT", show_default=False,
                                        help="What happened (at most 500 characters).")],
    suite: Annotated[str | None, typer.Option(
        help="The suite whose trends it concerns (default: every suite's).")] = None,
    host: Annotated[str | None, typer.Option(
        help="The host whose runs it concerns (default: every host's).")] = None,
    at: Annotated[str | None, typer.Option(
        metavar="WHEN", help="When it happened, ISO 8601 (UTC unless it says; default: "
        "now).")] = None,
    until: Annotated[str | None, typer.Option(
        metavar="WHEN", help="The end of a range (a load test, a week of maintenance), ISO "
        "8601.")] = None,
    link: Annotated[str | None, typer.Option(
        metavar="URL", help="A page about it (a deploy, a change request).")] = None,
    url: UrlOption = None,
    token: TokenOption = None,
) -> None:
    """Mark a moment on the project's trends (POST /annotations; a token with runs:write may):
    the dashboard draws it on every trend of the suite (or of every suite) it concerns."""
    body = {"text": text, "suite": suite, "host": host, "link": link,
            "at": None if at is None else parse_moment("--at", at).isoformat(),
            "until": None if until is None else parse_moment("--until", until).isoformat()}
    made = Lab.with_token(settings(url, token)).post(
        "/annotations", {k: v for k, v in body.items() if v is not None})
    until_text = "" if made["until"] is None else f" to {moment(made['until'])}"
    out.print(f"annotation {made['id']} at {moment(made['at'])}{until_text}: {made['text']}")


def annotations(
    suite: Annotated[str | None, typer.Option(
        help="Those of this suite and of every suite.")] = None,
    host: Annotated[str | None, typer.Option(
        help="Those of this host and of every host.")] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", min=1, max=500,
                                       help="How many, the newest.")] = 20,
    url: UrlOption = None,
    token: TokenOption = None,
) -> None:
    """The project's annotations, newest first: people's and CI's, and the lab's own."""
    query = {k: v for k, v in {"suite": suite, "host": host}.items() if v is not None}
    found = Lab.with_token(settings(url, token)).get("/annotations", limit=limit, **query)
    table = Table(title=f"{len(found)} annotations, newest first", title_justify="left")
    for column in ("id", "at", "by", "suite", "host", "text"):
        table.add_column(column, justify="right" if column == "id" else "left")
    for item in found:
        table.add_row(str(item["id"]), moment(item["at"]),
                      "lab" if item["kind"] != "note" else item["created_by"],
                      item["suite"] or "(every)", item["host"] or DASH, item["text"])
    out.print(fitted(table, ["host", "by", "suite"]))
