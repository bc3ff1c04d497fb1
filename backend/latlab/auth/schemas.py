from datetime import datetime
from typing import Annotated

from pydantic import AwareDatetime, Field, StringConstraints

from latlab.core.schemas import ReadSchema, Schema
from latlab.models import Role, Scope

Email = Annotated[
    str, StringConstraints(strip_whitespace=True, to_lower=True, max_length=320,
                           pattern=r"^[^@\s]+@[^@\s]+$")
]
Password = Annotated[str, StringConstraints(min_length=8, max_length=256)]
Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]


class LoginRequest(Schema):
    email: Annotated[str, StringConstraints(min_length=3, max_length=320)]
    password: Annotated[str, StringConstraints(min_length=1, max_length=256)]


class UserRead(ReadSchema):
    id: int
    email: str
    name: str | None
    role: Role
    is_active: bool


class UserCreate(Schema):
    email: Email
    name: Name | None = None
    password: Password
    role: Role = Role.member


class UserUpdate(Schema):
    name: Name | None = None
    password: Password | None = None
    role: Role | None = None
    is_active: bool | None = None


class TokenCreate(Schema):
    name: Name
    scopes: Annotated[list[Scope], Field(min_length=1)]
    expires_at: AwareDatetime | None = None
    project: Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9-]{0,63}$")] | None = None


class TokenRead(ReadSchema):
    id: int
    name: str
    project: str
    prefix: str
    scopes: list[Scope]
    created_at: datetime
    expires_at: datetime | None
    revoked_at: datetime | None
    last_used_at: datetime | None


class TokenCreated(TokenRead):
    token: str = Field(description="The secret; shown once, never again.")
