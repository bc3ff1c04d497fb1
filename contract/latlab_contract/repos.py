"""A repository's URL, refs and credentials as git takes them, shared by the api (which checks
what a project registers) and the runners (which fetch): what git is allowed to be pointed at,
how a secret reaches git without any command line showing it (a process's argv is readable
by every user in /proc), and a short reason from what git printed when it failed."""

import base64
import os
import re
import shlex
from pathlib import Path
from urllib.parse import SplitResult, urlsplit

SCHEMES = ("file", "git", "http", "https", "ssh")
MAX_URL = 2000
MAX_REF = 200
# A secret without a user name is a token, sent under the user name GitHub documents for
# tokens; GitLab and Gitea accept any user name with a token.
TOKEN_USER = "x-access-token"
ALLOWED_PROTOCOLS = ":".join(SCHEMES)
# What git prints when a server will not send a commit asked for by its sha.
REFUSED_WANT = ("not our ref", "unadvertised object")
NO_SUCH_COMMIT = "the commit is not in the repository (no branch or tag reaches it)"
# What a secret-looking header or credential in git's output is replaced by.
HIDDEN = "[hidden]"

_PREFIXES = ", ".join(f"{scheme}://" for scheme in SCHEMES)
_CONTROL = re.compile(r"[\x00-\x20\x7f]")
_REF_FORBIDDEN = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]")
_AUTHORIZATION = re.compile(r"(authorization:\s*)\S+(\s+\S+)?", re.IGNORECASE)


def check_url(url: str) -> str:
    """`url` when git may fetch from it: a file://, git://, http(s):// or ssh:// URL with a
    path and no credentials in it (credentials are the repository's secret); ValueError
    otherwise. ssh:// may name its login user (git@host)."""
    check_printable(url, "a repository URL", MAX_URL)
    parts = urlsplit(url)
    if parts.scheme not in SCHEMES or "://" not in url:
        raise ValueError(f"a repository URL starts with {_PREFIXES} (an scp-like "
                         "host:path is not accepted)")
    if parts.password is not None or (parts.username is not None and parts.scheme != "ssh"):
        raise ValueError("a repository URL carries no credentials (user:password@): give "
                         "them as the repository's secret")
    if parts.scheme == "file":
        if parts.netloc not in ("", "localhost") or not parts.path.startswith("/"):
            raise ValueError("a file:// URL names an absolute path on the runner "
                             "(file:///path/to/repo)")
    elif not parts.hostname:
        raise ValueError(f"a {parts.scheme}:// URL names a host")
    if parts.path.strip("/") == "":
        raise ValueError("a repository URL names the repository's path")
    check_port(parts, "a repository URL")
    return url


def check_printable(url: str, what: str, most: int) -> None:
    """Refuses a URL (`what` names it) with spaces or control characters, or longer than
    `most` characters."""
    if len(url) > most or _CONTROL.search(url):
        raise ValueError(f"{what} has no spaces or control characters and is at most {most} "
                         "characters")


def check_port(parts: SplitResult, what: str) -> None:
    """Refuses a URL (`what` names it) whose port is not a number."""
    try:
        parts.port  # noqa: B018 (urlsplit checks the port only when it is read)
    except ValueError as error:
        raise ValueError(f"{what}'s port is a number: {error}") from None


def check_ref(ref: str) -> str:
    """`ref` when it can name a branch, a tag or a commit (abbreviated or full sha), by the
    rules of `git check-ref-format --allow-onelevel`; ValueError otherwise."""
    if not ref or len(ref) > MAX_REF:
        raise ValueError(f"a ref is 1 to {MAX_REF} characters")
    if ref.startswith("-"):
        raise ValueError("a ref does not start with '-'")
    if _REF_FORBIDDEN.search(ref):
        raise ValueError("a ref has no spaces, control characters or any of ~ ^ : ? * [ \\")
    if ".." in ref or "@{" in ref or "//" in ref or ref == "@":
        raise ValueError("a ref has no '..', '@{' or '//' and is not '@'")
    if ref.startswith("/") or ref.endswith(("/", ".", ".lock")):
        raise ValueError("a ref neither starts with '/' nor ends with '/', '.' or '.lock'")
    if any(part.startswith(".") or part.endswith(".lock") for part in ref.split("/")):
        raise ValueError("no part of a ref starts with '.' or ends with '.lock'")
    return ref


def check_secret(url: str, secret: str | None) -> str | None:
    """`secret` when it fits the URL's transport: for http(s) "user:token" or a token, for
    ssh a private key (OpenSSH PEM text); git:// and file:// take none. ValueError otherwise."""
    if secret is None:
        return None
    scheme = urlsplit(url).scheme
    if scheme in ("http", "https"):
        if not secret or _CONTROL.search(secret):
            raise ValueError("an http(s) secret is \"user:token\" or a token, with no spaces "
                             "or control characters")
    elif scheme == "ssh":
        if "PRIVATE KEY-----" not in secret or "\x00" in secret:
            raise ValueError("an ssh:// secret is a private key (the text of an OpenSSH "
                             "key file)")
    else:
        raise ValueError(f"a {scheme}:// repository takes no secret")
    return secret


# The environment every git the lab runs starts from: a system path, and nothing of its
# caller's (no token, no broker URL).
BASE_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LC_ALL": "C", "HOME": "/nonexistent"}


def git_env(url: str, secret: str | None, scratch: Path) -> dict[str, str]:
    """git's whole environment to fetch `url` with `secret` and nothing else (HOME is
    `scratch`): no system or user configuration, no credential helper, no prompt (a missing or wrong
    credential fails at once), only the transports a repository may use. An http(s) secret
    becomes an Authorization header for that URL only, through git's GIT_CONFIG_* variables;
    an ssh key is written 0600 into `scratch` (a private directory the caller removes)."""
    env = {**BASE_ENV, "HOME": str(scratch), "GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "",
           "SSH_ASKPASS": "", "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
           "GIT_ALLOW_PROTOCOL": ALLOWED_PROTOCOLS}
    config = {"credential.helper": ""}  # an empty value clears any helper
    scheme = urlsplit(check_url(url)).scheme
    check_secret(url, secret)
    if secret is not None and scheme in ("http", "https"):
        login = secret if ":" in secret else f"{TOKEN_USER}:{secret}"
        encoded = base64.b64encode(login.encode()).decode()
        config[f"http.{url}.extraHeader"] = f"Authorization: Basic {encoded}"
    if scheme == "ssh":
        env["GIT_SSH_COMMAND"] = shlex.join(_ssh_command(secret, scratch))
        env["GIT_SSH_VARIANT"] = "ssh"
    env["GIT_CONFIG_COUNT"] = str(len(config))
    for index, (key, value) in enumerate(config.items()):
        env[f"GIT_CONFIG_KEY_{index}"] = key
        env[f"GIT_CONFIG_VALUE_{index}"] = value
    return env


def git_error(stderr: bytes, secret: str | None = None) -> str:
    """A short reason from what a failed git command printed: its first error that says
    more than "could not read from remote repository", in plain words where git's are
    obscure, with Authorization headers and the secret itself hidden."""
    text = stderr.decode(errors="replace")
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    reason = _plain_reason(text)
    if reason is None:
        errors = [line for line in lines if line.startswith(("fatal:", "error:"))
                  and "Could not read from remote repository" not in line]
        reason = (errors or lines or ["git printed no reason"])[0]
        reason = reason.removeprefix("fatal: ").removeprefix("error: ")
    reason = _AUTHORIZATION.sub(lambda m: m.group(1) + HIDDEN, reason)
    if secret:
        reason = reason.replace(secret, HIDDEN)
    return reason[:500]


def _plain_reason(text: str) -> str | None:
    """What git's obscure failures mean for a repository the lab fetches."""
    if ("could not read Username" in text or "Authentication failed" in text
            or "could not read Password" in text):
        return "the server asked for credentials and refused the repository's secret " \
               "(missing or wrong)"
    if "Permission denied (publickey" in text:
        return "the ssh server refused the repository's key (missing or wrong)"
    if any(refusal in text for refusal in REFUSED_WANT):
        return NO_SUCH_COMMIT
    return None


def _ssh_command(secret: str | None, scratch: Path) -> list[str]:
    """ssh with no configuration or agent of the runner's, offering only the repository's
    key (or none), never asking anything, trusting a host's key on first use."""
    command = ["ssh", "-F", os.devnull, "-o", "BatchMode=yes", "-o", "IdentitiesOnly=yes",
               "-o", "IdentityAgent=none", "-o", "StrictHostKeyChecking=accept-new",
               "-o", f"UserKnownHostsFile={scratch / 'known_hosts'}"]
    if secret is None:
        return [*command, "-o", "IdentityFile=none"]
    key = scratch / "ssh_key"
    descriptor = os.open(key, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o600)
    with os.fdopen(descriptor, "w") as file:
        file.write(secret if secret.endswith("\n") else secret + "\n")
    return [*command, "-i", str(key)]
