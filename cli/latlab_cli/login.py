"""`latlab login` writes the config file (the lab's address and a token); `latlab config`
shows what the commands use and where each value comes from."""

import socket
from typing import Annotated

import typer

from latlab_cli.client import Lab
from latlab_cli.config import (
    Settings,
    TokenOption,
    UrlOption,
    config_path,
    masked,
    settings,
    write_file,
)
from latlab_cli.output import out

SCOPES = ["read", "runs:write", "jobs:write"]
PasswordOption = Annotated[str | None, typer.Option(
    envvar="LATLAB_PASSWORD", show_default=False,
    help="With --email (asked for when not given).")]


def login(
    url: UrlOption = None,
    token: Annotated[str | None, typer.Option(
        help="An API token to keep (the dashboard's Settings make them); asked for when "
             "neither it nor --email is given.")] = None,
    email: Annotated[str | None, typer.Option(
        help="Sign in with your account instead: a token for this machine is made (scopes "
             "read, runs:write, jobs:write).")] = None,
    password: PasswordOption = None,
) -> None:
    """Keep the lab's address and a token in the config file, checked against the lab first;
    LATLAB_URL and LATLAB_TOKEN still override it."""
    target = settings(url, None).url
    if email is not None:
        token = _new_token(signed_in(target, email, password))
    elif token is None:
        token = typer.prompt("API token", hide_input=True)
    Lab(Settings(target, token, {})).get("/runs", limit=1)  # an unknown token stops here
    path = config_path()
    write_file(path, {"url": target, "token": token})
    out.print(f"saved {path}: {target}, token {masked(token)}")


def config(url: UrlOption = None, token: TokenOption = None) -> None:
    """What the commands use: the lab's address and the token, each with its origin."""
    chosen = settings(url, token)
    out.print(f"config file: {config_path()}")
    out.print(f"url:   {chosen.url}  ({chosen.sources['url']})")
    out.print(f"token: {masked(chosen.token)}  ({chosen.sources['token']})")


def signed_in(url: str, email: str, password: str | None) -> Lab:
    """A client of the lab signed in as the account (a session cookie for this client only),
    for what a token may not do; the password is asked for when not given."""
    lab = Lab(Settings(url, None, {}))
    lab.post("/auth/login", {"email": email,
                             "password": password or typer.prompt("password", hide_input=True)})
    return lab


def _new_token(lab: Lab) -> str:
    """A token for this machine, made by the signed-in client."""
    made = lab.post("/tokens", {"name": f"latlab CLI on {socket.gethostname()}"[:200],
                                "scopes": SCOPES})
    return str(made["token"])
