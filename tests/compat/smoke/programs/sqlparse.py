# sqlparse: format, split and parse SQL
import sqlparse

sql = "select a, b from t where a > 1 and b in (select x from y); update t set a = 2"
print(sqlparse.format(sql, reindent=True, keyword_case="upper"))
stmts = sqlparse.split(sql)
print(len(stmts), [sqlparse.parse(s)[0].get_type() for s in stmts])
print([t.ttype is not None for t in sqlparse.parse("select 1")[0].tokens])
