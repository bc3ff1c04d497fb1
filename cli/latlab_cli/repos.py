"""`latlab repos`: the project's git repositories, whose code lab jobs build and measure at a
commit (`latlab try`): list them, register one (its credentials read from the environment
or a file, never from the command line), list one's newest commits."""

import os
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from latlab_cli.client import Lab
from latlab_cli.config import TokenOption, UrlOption, settings
from latlab_cli.errors import CliError, Rejected
from latlab_cli.login import PasswordOption, signed_in
from latlab_cli.output import moment, out
from latlab_cli.runs import Limit

Name = Annotated[str, typer.Argument(metavar="NAME", show_default=False,
                                     help="The repository's name in the lab.")]

app = typer.Typer(name="repos", add_completion=False, rich_markup_mode=None,
                  pretty_exceptions_enable=False)


@app.callback(invoke_without_command=True)
def repos(context: typer.Context, url: UrlOption = None, token: TokenOption = None) -> None:
    """The project's repositories (never their credentials); `add` registers one, `commits`
    lists one's newest commits."""
    if context.invoked_subcommand is not None:
        return
    table = Table("repository", "url", "default branch", "credentials", "build network",
                  "registered", title="repositories", title_justify="left")
    for repo in Lab.with_token(settings(url, token)).get("/repositories"):
        table.add_row(repo["name"], repo["url"], repo["default_branch"],
                      "yes" if repo["has_secret"] else "no",
                      "yes" if repo["build_network"] else "no", moment(repo["created_at"]))
    out.print(table)


@app.command()
def add(
    name: Annotated[str, typer.Argument(
        metavar="NAME", show_default=False,
        help="Its name in the lab (lower case letters, digits, '.', '_', '-'): what jobs "
             "and `latlab try --repo` name.")],
    address: Annotated[str, typer.Argument(
        metavar="URL", show_default=False,
        help="file://, git://, http(s):// or ssh://, with no credentials in it.")],
    branch: Annotated[str, typer.Option(
        metavar="BRANCH", help="Its default branch: what a job that names no ref measures.")]
    = "main",
    secret_env: Annotated[str | None, typer.Option(
        metavar="VAR", help="Its credentials, from this environment variable: for http(s) "
        "user:token or a token, for ssh a private key. The lab keeps them write-only.")]
    = None,
    secret_file: Annotated[Path | None, typer.Option(
        metavar="PATH", help="Its credentials, from this file (as --secret-env).")] = None,
    build_network: Annotated[bool, typer.Option(
        help="Its build may use the network (to fetch dependencies); otherwise it has "
             "loopback only, as the code it builds does.")] = False,
    email: Annotated[str | None, typer.Option(
        help="Register it signed in as this member (the lab takes no API token for it).")]
    = None,
    password: PasswordOption = None,
    url: UrlOption = None,
    token: TokenOption = None,
) -> None:
    """Register a repository (POST /repositories): the lab reads its default branch first,
    with the credentials given, and refuses one it cannot read, saying why."""
    body = {"name": name, "url": address, "default_branch": branch,
            "secret": _secret(secret_env, secret_file), "build_network": build_network}
    chosen = settings(url, token)
    lab = Lab.with_token(chosen) if email is None else signed_in(chosen.url, email, password)
    try:
        repo = lab.post("/repositories", body)
    except Rejected as error:
        if error.status == 403 and email is None:
            raise CliError(f"{error} (sign in to register it: --email)") from error
        raise
    credentials = "credentials kept" if repo["has_secret"] else "no credentials"
    network = "with the network" if repo["build_network"] else "offline"
    out.print(f"registered {repo['name']}: {repo['url']}, default branch "
              f"{repo['default_branch']}, {credentials}, builds {network}")


@app.command()
def commits(
    name: Name,
    ref: Annotated[str | None, typer.Option(
        metavar="REF", help="A branch, tag or commit (default: the default branch).")] = None,
    limit: Limit = 20,
    url: UrlOption = None,
    token: TokenOption = None,
) -> None:
    """A repository's newest commits from REF, fetched now: what `latlab try --base/--head`
    may name."""
    query = {"limit": limit} if ref is None else {"limit": limit, "ref": ref}
    found = Lab.with_token(settings(url, token)).get(f"/repositories/{name}/commits", **query)
    table = Table("commit", "committed", "author", "subject",
                  title=f"{name}: the newest {len(found)} commits of {ref or 'its default branch'}",
                  title_justify="left")
    for commit in found:
        table.add_row(commit["sha"][:12], moment(commit["committed_at"]), commit["author"],
                      commit["subject"])
    out.print(table)


def _secret(variable: str | None, path: Path | None) -> str | None:
    """The credentials, from the environment or a file; a one-line secret (a token, written
    with its line end) without its line end, a key whole."""
    if variable is not None and path is not None:
        raise CliError("give --secret-env or --secret-file, not both")
    if variable is not None:
        text = os.environ.get(variable)
        if not text:
            raise CliError(f"--secret-env {variable}: the environment has no such variable, "
                           "or it is empty")
    elif path is not None:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as error:
            raise CliError(f"--secret-file {path}: {error.strerror}") from error
        except UnicodeDecodeError as error:
            raise CliError(f"--secret-file {path}: not text") from error
        if not text.strip():
            raise CliError(f"--secret-file {path}: empty")
    else:
        return None
    return text.strip() if "\n" not in text.strip() else text
