"""Where the lab is and the token to use: `--url`/`--token`, else LATLAB_URL/LATLAB_TOKEN,
else the config file `latlab login` writes (~/.config/latlab/config.toml; LATLAB_CONFIG names
another), else the local lab at http://127.0.0.1:8000."""

import json
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

import typer

from latlab_cli.errors import CliError

DEFAULT_URL = "http://127.0.0.1:8000"
KEYS = ("url", "token")

UrlOption = Annotated[str | None, typer.Option(
    "--url", envvar="LATLAB_URL", show_default=False,
    help="The lab's address (default: the config file's, else http://127.0.0.1:8000).")]
TokenOption = Annotated[str | None, typer.Option(
    "--token", envvar="LATLAB_TOKEN", show_default=False,
    help="An API token (default: the config file's); `latlab login` makes one.")]


@dataclass(frozen=True)
class Settings:
    url: str
    token: str | None
    sources: dict[str, str]  # each key's origin: "option or env", the file's path, "default"


def settings(url: str | None, token: str | None) -> Settings:
    """The options (typer fills them from the environment) over the config file."""
    path = config_path()
    stored = read_file(path)
    given = {"url": url, "token": token}
    sources = {key: "option or environment" if given[key] else str(path) if key in stored
               else "default" for key in KEYS}
    return Settings(url=(url or stored.get("url") or DEFAULT_URL).rstrip("/"),
                    token=token or stored.get("token"), sources=sources)


def config_path() -> Path:
    if explicit := os.environ.get("LATLAB_CONFIG"):
        return Path(explicit)
    base = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(base) / "latlab" / "config.toml"


def read_file(path: Path) -> dict[str, str]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise CliError(f"cannot read the config file {path}: {error}") from error
    return {key: value for key in KEYS if isinstance(value := data.get(key), str)}


def write_file(path: Path, values: dict[str, str]) -> None:
    """The file, readable by its owner only (it holds a token)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    # A JSON string is a TOML basic string (the same escapes).
    text = "".join(f"{key} = {json.dumps(values[key])}\n" for key in KEYS if key in values)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as file:
        file.write(text)


def masked(token: str | None) -> str:
    return "(none)" if not token else f"{token[:4]}…{token[-4:]}"
