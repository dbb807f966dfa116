# pydantic: models, validation errors, serialisation, settings-like defaults, JSON schema
from datetime import date
from typing import Literal

from pydantic import BaseModel, Field, ValidationError, field_validator


class Address(BaseModel):
    city: str
    zip: str = Field(pattern=r"^\d{5}$")


class User(BaseModel):
    id: int
    name: str
    kind: Literal["admin", "user"] = "user"
    born: date | None = None
    addresses: list[Address] = []

    @field_validator("name")
    @classmethod
    def strip(cls, v):
        return v.strip().title()


u = User.model_validate({"id": "7", "name": "  ada lovelace ", "born": "1815-12-10",
                         "addresses": [{"city": "London", "zip": "12345"}]})
print(u)
print(u.model_dump_json())
try:
    User(id="x", name="a", addresses=[{"city": "c", "zip": "1"}])
except ValidationError as e:
    print(e.error_count(), [err["loc"] for err in e.errors()])
print(sorted(User.model_json_schema()["properties"]))
