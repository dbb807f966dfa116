# jinja2: an environment with a loader, inheritance, macros, filters, autoescape
from jinja2 import DictLoader, Environment, StrictUndefined, UndefinedError, select_autoescape

env = Environment(loader=DictLoader({
    "base.html": "<h1>{% block title %}{% endblock %}</h1>{% block body %}{% endblock %}",
    "page.html": ("{% extends 'base.html' %}{% import 'm.html' as m %}"
                  "{% block title %}{{ title|upper }}{% endblock %}"
                  "{% block body %}{% for u in users %}{{ m.li(u) }}{% endfor %}{% endblock %}"),
    "m.html": "{% macro li(u) %}<li>{{ u.name }} ({{ u.age }})</li>{% endmacro %}",
}), autoescape=select_autoescape(["html"]), undefined=StrictUndefined)
env.filters["shout"] = lambda s: s + "!"
print(env.get_template("page.html").render(title="users", users=[
    {"name": "<b>ada</b>", "age": 36}, {"name": "alan", "age": 41}]))
print(env.from_string("{{ 'hi'|shout }} {{ xs|sum }} {{ xs|join('-') }}").render(xs=[1, 2, 3]))
try:
    env.from_string("{{ missing.attr }}").render()
except UndefinedError as e:
    print("UndefinedError", e)
