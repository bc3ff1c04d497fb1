from datetime import datetime
from typing import Annotated
from urllib.parse import urlsplit

from pydantic import AfterValidator, ConfigDict, Field, StringConstraints, model_validator

from latlab.core.schemas import Schema
from latlab_contract.repos import (
    check_port,
    check_printable,
    check_ref,
    check_secret,
    check_url,
)

Name = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9._-]{0,63}$")]
Url = Annotated[str, StringConstraints(max_length=2000), AfterValidator(check_url)]
Ref = Annotated[str, StringConstraints(min_length=1, max_length=200), AfterValidator(check_ref)]
Secret = Annotated[str, StringConstraints(min_length=1, max_length=20_000)]

SHA = "{sha}"
MAX_COMMIT_URL = 1000


def check_commit_url(template: str) -> str:
    """`template` when it is where a person reads a commit of the repository: an http(s) URL
    with `{sha}` once in its path, query or fragment (the commit's full sha goes there), no
    other braces, no credentials, at most MAX_COMMIT_URL characters; ValueError otherwise."""
    check_printable(template, "a commit URL", MAX_COMMIT_URL)
    if template.count(SHA) != 1:
        raise ValueError(f"a commit URL contains {SHA} exactly once (where the commit's sha "
                         "goes), e.g. https://github.com/team/orders/commit/{sha}")
    if "{" in template.replace(SHA, "") or "}" in template.replace(SHA, ""):
        raise ValueError(f"a commit URL has no braces but its one {SHA}")
    parts = urlsplit(template)
    if parts.scheme not in ("http", "https") or not template.startswith(f"{parts.scheme}://"):
        raise ValueError("a commit URL starts with http:// or https://")
    if SHA in parts.netloc:
        raise ValueError(f"a commit URL's {SHA} is in its path, query or fragment, not its "
                         "host")
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise ValueError("a commit URL carries no credentials (user:password@)")
    if not parts.hostname:
        raise ValueError("a commit URL names a host")
    check_port(parts, "a commit URL")
    return template


CommitUrl = Annotated[str, AfterValidator(check_commit_url)]

_SECRET = ("Credentials, write-only (never shown again, never logged, never in a job or a "
           "run): for http(s) `user:token` or a token; for ssh a private key")
_COMMIT_URL = ("Where a person reads one of its commits: an http(s) URL with {sha} once in it, "
               "replaced by the commit's full sha (e.g. "
               "https://github.com/team/orders/commit/{sha}); the dashboard links commits to it")
_NETWORK = ("Its build may use the network (to fetch dependencies); otherwise it runs with "
            "loopback only, like the code it builds")


class RepositoryCreate(Schema):
    model_config = ConfigDict(json_schema_extra={"examples": [
        {"name": "orders", "url": "https://git.example.com/trading/orders.git",
         "default_branch": "main", "secret": "ci-bot:glpat-...",
         "commit_url": "https://git.example.com/trading/orders/-/commit/{sha}"}]})

    name: Name
    url: Url = Field(description="file://, git://, http(s):// or ssh://; no credentials in it")
    default_branch: Ref = "main"
    secret: Secret | None = Field(None, description=_SECRET)
    build_network: bool = Field(False, description=_NETWORK)
    commit_url: CommitUrl | None = Field(None, description=_COMMIT_URL)

    @model_validator(mode="after")
    def secret_fits(self) -> "RepositoryCreate":
        check_secret(self.url, self.secret)
        return self


class RepositoryUpdate(Schema):
    url: Url | None = None
    default_branch: Ref | None = None
    secret: Secret | None = Field(None, description=_SECRET)
    forget_secret: bool = Field(False, description="Remove the credentials")
    build_network: bool | None = Field(None, description=_NETWORK)
    commit_url: CommitUrl | None = Field(
        None, description=_COMMIT_URL + "; null removes it, left out keeps it")


class RepositoryRead(Schema):
    id: int
    name: str
    url: str
    default_branch: str
    has_secret: bool
    build_network: bool
    commit_url: str | None = Field(description="Its commits' links: {sha} in it is replaced "
                                   "by a commit's full sha; null: none")
    created_at: datetime


class CommitRead(Schema):
    sha: str
    subject: str
    author: str
    committed_at: datetime
