# jmespath: queries with projections, filters and functions
import jmespath

data = {"people": [{"name": "ada", "age": 36}, {"name": "alan", "age": 41},
                   {"name": "grace", "age": 85}]}
print(jmespath.search("people[?age > `40`].name", data))
print(jmespath.search("max_by(people, &age).name", data), jmespath.search("length(people)", data))
expr = jmespath.compile("people[*].{n: name, a: age} | [0]")
print(expr.search(data))
try:
    jmespath.search("people[?", data)
except jmespath.exceptions.ParseError as e:
    print("ParseError")
