"""`latlab hosts invite`: an admin invites a machine to join the lab as a host; the machine
joins with the printed command, run in a checkout of latlab (`scripts/join-host.sh`)."""

from typing import Annotated

import typer

from latlab_cli.client import Lab
from latlab_cli.config import TokenOption, UrlOption, settings
from latlab_cli.login import PasswordOption, signed_in
from latlab_cli.output import out

app = typer.Typer(name="hosts", add_completion=False, rich_markup_mode=None,
                  pretty_exceptions_enable=False, no_args_is_help=True,
                  help="The lab's hosts: invite one to join.")


@app.command()
def invite(
    name: Annotated[str, typer.Argument(
        metavar="NAME", show_default=False,
        help="The host's name (letters, digits, '.', '_', '-'): its queue is host.NAME.")],
    tags: Annotated[str, typer.Option(metavar="TAG,...", help="Its tags, comma-separated: "
                                      "what jobs' host_tags select.")] = "",
    project: Annotated[list[str] | None, typer.Option(
        metavar="PROJECT", help="A project it serves (repeat it); none: every project.")]
    = None,
    hours: Annotated[int, typer.Option(help="How long the code is good.")] = 24,
    email: Annotated[str | None, typer.Option(
        help="Invite it signed in as this admin, rather than with a token.")] = None,
    password: PasswordOption = None,
    url: UrlOption = None,
    token: TokenOption = None,
) -> None:
    """Invite a host (POST /hosts/invitations, admins only): prints the one-time code's
    command to run on the new machine."""
    chosen = settings(url, token)
    lab = Lab.with_token(chosen) if email is None else signed_in(chosen.url, email, password)
    invitation = lab.post("/hosts/invitations", {
        "name": name, "tags": [t.strip() for t in tags.split(",") if t.strip()],
        "projects": project or None, "expires_in_hours": hours})
    out.print(f"host {invitation['name']} invited until {invitation['expires_at']}; on the "
              f"new machine, in a checkout of latlab, run (once):\n  {invitation['command']}")
