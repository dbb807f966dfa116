# marshmallow: schemas, nested fields, load/dump, validation errors
from marshmallow import Schema, ValidationError, fields, post_load, validate


class AuthorSchema(Schema):
    name = fields.Str(required=True)
    email = fields.Email()


class BookSchema(Schema):
    title = fields.Str(required=True, validate=validate.Length(min=1))
    year = fields.Int(validate=validate.Range(min=1450))
    author = fields.Nested(AuthorSchema)

    @post_load
    def make(self, data, **kwargs):
        return ("Book", data["title"], data.get("year"))


s = BookSchema()
print(s.load({"title": "Dune", "year": 1965, "author": {"name": "Frank"}}))
print(s.dump({"title": "Dune", "year": 1965, "author": {"name": "F", "email": "f@x.test"}}))
try:
    s.load({"title": "", "year": 1000, "author": {"email": "bad"}})
except ValidationError as e:
    print(sorted(e.messages), sorted(e.messages["author"]))
print(BookSchema(many=True).dump([{"title": "a"}, {"title": "b"}]))
