from datetime import datetime
from typing import Annotated

from pydantic import AfterValidator, ConfigDict, Field, StringConstraints, model_validator

from latlab.core.schemas import Schema
from latlab_contract.repos import check_ref, check_secret, check_url

Name = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9._-]{0,63}$")]
Url = Annotated[str, StringConstraints(max_length=2000), AfterValidator(check_url)]
Ref = Annotated[str, StringConstraints(min_length=1, max_length=200), AfterValidator(check_ref)]
Secret = Annotated[str, StringConstraints(min_length=1, max_length=20_000)]

_SECRET = ("Credentials, write-only (never shown again, never logged, never in a job or a "
           "run): for http(s) `user:token` or a token; for ssh a private key")
_NETWORK = ("Its build may use the network (to fetch dependencies); otherwise it runs with "
            "loopback only, like the code it builds")


class RepositoryCreate(Schema):
    model_config = ConfigDict(json_schema_extra={"examples": [
        {"name": "orders", "url": "https://git.example.com/trading/orders.git",
         "default_branch": "main", "secret": "ci-bot:glpat-..."}]})

    name: Name
    url: Url = Field(description="file://, git://, http(s):// or ssh://; no credentials in it")
    default_branch: Ref = "main"
    secret: Secret | None = Field(None, description=_SECRET)
    build_network: bool = Field(False, description=_NETWORK)

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


class RepositoryRead(Schema):
    id: int
    name: str
    url: str
    default_branch: str
    has_secret: bool
    build_network: bool
    created_at: datetime


class CommitRead(Schema):
    sha: str
    subject: str
    author: str
    committed_at: datetime
