from pydantic import BaseModel, ConfigDict


class Schema(BaseModel):
    """The base of every request and response body: unknown fields are refused."""

    model_config = ConfigDict(extra="forbid")


class ReadSchema(BaseModel):
    model_config = ConfigDict(from_attributes=True)
