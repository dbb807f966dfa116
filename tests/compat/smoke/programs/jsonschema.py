# jsonschema: validate, iterate errors, format checking, a $ref
import jsonschema
from jsonschema import Draft202012Validator, ValidationError, validate

schema = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "name": {"type": "string", "minLength": 2},
        "age": {"type": "integer", "minimum": 0},
        "tags": {"type": "array", "items": {"$ref": "#/$defs/tag"}},
    },
    "required": ["name"],
    "$defs": {"tag": {"type": "string", "enum": ["a", "b"]}},
}
validate({"name": "Ada", "age": 36, "tags": ["a"]}, schema)
print("valid")
v = Draft202012Validator(schema)
for err in sorted(v.iter_errors({"name": "A", "age": -1, "tags": ["c"]}), key=lambda e: e.path):
    print(list(err.path), err.message)
try:
    validate({"age": 1}, schema)
except ValidationError as e:
    print("ValidationError", e.message)
print(jsonschema.validators.validator_for(schema).__name__)
print(Draft202012Validator.FORMAT_CHECKER.conforms("2024-01-02", "date"))
