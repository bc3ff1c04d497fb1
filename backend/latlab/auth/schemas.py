from datetime import datetime
from typing import Annotated

from pydantic import ConfigDict, Field, StringConstraints

from latlab.core.schemas import Moment, ReadSchema, Schema
from latlab.models import Role, Scope
from latlab.projects.schemas import ProjectRead, ProjectSlug

Email = Annotated[
    str, StringConstraints(strip_whitespace=True, to_lower=True, max_length=320,
                           pattern=r"^[^@\s\x00]+@[^@\s\x00]+$")
]
Password = Annotated[str, StringConstraints(min_length=8, max_length=256)]
Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]


class LoginRequest(Schema):
    model_config = ConfigDict(json_schema_extra={"examples": [
        {"email": "ada@lab.example", "password": "correct horse battery"}]})

    email: Annotated[str, StringConstraints(min_length=3, max_length=320)]
    password: Annotated[str, StringConstraints(min_length=1, max_length=256)]


class UserRead(ReadSchema):
    id: int
    email: str
    name: str | None
    role: Role
    is_active: bool
    projects: list[str] = Field(description="Slugs of the projects the user belongs to "
                                "(an admin may use every project)")


class MeRead(UserRead):
    project: ProjectRead | None = Field(description="The project the dashboard shows")


class SignInProvider(Schema):
    name: str
    label: str


class SignInOptions(Schema):
    passwords: bool = Field(description="Whether email and password sign in here")
    providers: list[SignInProvider] = Field(description="OpenID Connect providers: sign in "
                                            "at /api/v1/auth/oidc/{name}/start")


class UserCreate(Schema):
    model_config = ConfigDict(json_schema_extra={"examples": [
        {"email": "grace@lab.example", "password": "a long passphrase", "role": "member",
         "projects": ["default"]}]})

    email: Email
    name: Name | None = None
    password: Password
    role: Role = Role.member
    projects: Annotated[list[ProjectSlug], Field(max_length=500)] | None = Field(
        None, description="The user's projects; by default the lab's default project")


class UserUpdate(Schema):
    model_config = ConfigDict(json_schema_extra={"examples": [
        {"role": "viewer"}, {"is_active": False}, {"projects": ["default", "payments"]}]})

    name: Name | None = None
    password: Password | None = None
    role: Role | None = None
    is_active: bool | None = None
    projects: Annotated[list[ProjectSlug], Field(max_length=500)] | None = None


class TokenCreate(Schema):
    model_config = ConfigDict(json_schema_extra={"examples": [
        {"name": "github-ci", "scopes": ["runs:write", "read"]}]})

    name: Name
    scopes: Annotated[list[Scope], Field(min_length=1, max_length=len(Scope))]
    expires_at: Moment | None = None
    project: ProjectSlug | None = Field(None, description="By default the current project")


class TokenRead(ReadSchema):
    id: int
    name: str
    project: str
    prefix: str
    scopes: list[Scope]
    created_by_id: int | None
    created_at: datetime
    expires_at: datetime | None
    revoked_at: datetime | None
    last_used_at: datetime | None


class TokenCreated(TokenRead):
    token: str = Field(description="The secret; shown once, never again.")
