# pygments: highlight with a lexer by name and one by filename, HTML and terminal formatters
from pygments import highlight, lex
from pygments.formatters import HtmlFormatter, NullFormatter, TerminalFormatter
from pygments.lexers import PythonLexer, get_lexer_by_name, get_lexer_for_filename
from pygments.token import Token

code = "def f(x):\n    return x + 1  # inc\n"
print(highlight(code, PythonLexer(), HtmlFormatter(nowrap=True)))
print(repr(highlight(code, get_lexer_by_name("python"), TerminalFormatter())))
print(get_lexer_for_filename("x.rs").name, get_lexer_by_name("yaml").name)
print([t for t, v in lex("x = 1", PythonLexer()) if t in Token.Name][:1])
print(highlight("SELECT 1;", get_lexer_by_name("sql"), NullFormatter()), end="")
print(HtmlFormatter(style="monokai").get_style_defs(".hl").splitlines()[0])
