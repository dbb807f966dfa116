# pyparsing: an arithmetic grammar, a key=value parser, parse errors
import pyparsing as pp

integer = pp.pyparsing_common.integer
expr = pp.infix_notation(integer, [(pp.one_of("* /"), 2, pp.OpAssoc.LEFT),
                                   (pp.one_of("+ -"), 2, pp.OpAssoc.LEFT)])
print(expr.parse_string("1 + 2 * 3 - 4").as_list())
key = pp.Word(pp.alphas, pp.alphanums + "_")
value = pp.QuotedString('"') | pp.pyparsing_common.number
pair = pp.Group(key("k") + pp.Suppress("=") + value("v"))
conf = pp.DelimitedList(pair, delim=";")
res = conf.parse_string('name="ada"; age=36; ratio=0.5')
print([(p.k, p.v) for p in res])
try:
    integer.parse_string("abc")
except pp.ParseException as e:
    print("ParseException", e.lineno, e.col)
print(pp.Word(pp.nums).search_string("a1b22c333").as_list())
