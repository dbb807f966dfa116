"""PEP 810's ``lazy`` soft keyword on every Python: parse ``lazy import`` before 3.15.

Python 3.15 reads ``lazy import x`` and ``lazy from x import y`` at the start of a
statement; before 3.15 they are a ``SyntaxError``.  :func:`parse` gives the tree 3.15's
parser gives, on any Python: the statements found with the tokenizer (``lazy`` is an
ordinary name everywhere else), the word replaced by ``0;`` and spaces so that every
column stays where it was, the source compiled, the ``0`` statements taken out again and
each import node given its real start and ``is_lazy = 1``, the field 3.15 has.  The
errors are 3.15's too, with its messages and positions: ``lazy`` inside a function, a
class or a ``try`` statement, ``lazy from m import *`` and ``lazy from __future__``.

Only a source holding ``lazy``, whitespace and ``import``/``from`` pays for this
(:func:`mentions`, one ``find`` over the bytes for any other); ``tokenize`` is
imported then.  The rewrite planner marks such imports explicit (``check``: ``lazy
(explicit)``); the rewrite emits them as registrations that are lazy whatever the
settings, as 3.15 defers them (:mod:`lazify._importlib_bootstrap`).
"""

import ast

from ._ast_walk import walk

#: whether this interpreter's parser reads the keyword itself (3.15+)
NATIVE = "is_lazy" in ast.Import._fields

_WHITESPACE = " \t\f\\\r\n"
_BYTES_WHITESPACE = _WHITESPACE.encode()


def mentions(data) -> bool:
    """Whether source (bytes or text) may hold a ``lazy import``: the word ``lazy`` first
    on its line (after indentation, ``;`` or ``:``), whitespace (a backslash continuation
    too), then ``import`` or ``from``.  (Not ``# a lazy import``: a comment or docstring
    that mentions one costs no tokenizing.)"""
    if isinstance(data, str):
        word, space, keywords, indent, before = "lazy", _WHITESPACE, ("import", "from"), \
            " \t\f", "\n\r;:\ufeff"
    else:
        word, space, keywords, indent, before = b"lazy", _BYTES_WHITESPACE, \
            (b"import", b"from"), b" \t\f", b"\n\r;:\xbf"
    find = data.find
    size = len(data)
    i = find(word)
    while i >= 0:
        j = i + 4
        while j < size and data[j:j + 1] in space:
            j += 1
        if j > i + 4 and data.startswith(keywords, j):
            k = i
            while k and data[k - 1:k] in indent:
                k -= 1
            if not k or data[k - 1:k] in before:
                return True
        i = find(word, j)
    return False


def parse(data, path: str, optimize: int = -1, validate: bool = True) -> ast.Module:
    """The module's ``ast`` as 3.15 parses it (``compile(..., ast.PyCF_ONLY_AST)``).

    :param validate: raise 3.15's compiler errors too (a ``lazy`` statement inside a
        function, a class, a ``try``; ``*``), which compiling the tree raises on 3.15
        unless the rewrite has replaced the statement.
    :raises SyntaxError: where 3.15 raises one, with its message and position, or
        what ``compile()`` raises for the source.
    """
    if NATIVE:
        tree = _compile(data, path, optimize)
        if validate:
            # (its source lines are read only for an error: no tokenize on this path,
            # which 3.15's standard library, with lazy imports of its own, takes)
            _validate(tree, lambda: _lines(data), path)
        return tree
    text = _text(data)
    if text is None:
        return _compile(data, path, optimize)     # its own error, as Python's
    lines = text.split("\n")
    found, future = _statements(text)
    if not found and future is None:
        return _compile(data, path, optimize)
    changed = {}
    for start, _keyword in found:
        row, col = start
        line = changed.get(row, lines[row - 1])
        changed[row] = line[:col] + "0;  " + line[col + 4:]
    blanked = list(lines)
    for row, line in changed.items():
        blanked[row - 1] = line
    try:
        tree = _compile("\n".join(blanked), path, optimize)
    except SyntaxError as e:
        if future is not None and (e.lineno is None or (e.lineno, e.offset or 0) > (
                future[0], future[1] + 1)):
            raise _future_error(future, lines, path) from None
        if e.lineno in changed and e.text is not None:
            e.text = e.text.replace(changed[e.lineno], lines[e.lineno - 1])
        raise
    if future is not None:
        raise _future_error(future, lines, path)
    if not _mark(tree, found, lines):
        # a ``lazy`` after a ``:`` that starts no block (``x: lazy import y``, ``lambda:
        # lazy import y``): no statement; Python's own error for the source
        _compile(data, path, optimize)
        raise SyntaxError("invalid syntax", (path, 1, 1, lines[0] + "\n", 1, 1))
    _validate(tree, lambda: lines, path)
    return tree


def _compile(data, path, optimize):
    return compile(data, path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True, optimize=optimize)


def _text(data):
    """The source as text, newlines made ``\\n`` as the compiler makes them; None when it
    cannot be decoded (compiling the bytes then raises Python's own error)."""
    if isinstance(data, str):
        text = data
    else:
        import io
        import tokenize

        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
            text = data.decode(encoding)
        except (SyntaxError, LookupError, UnicodeDecodeError):
            return None
    if text.startswith("\ufeff"):
        text = text[1:]
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _lines(data) -> list:
    text = _text(data)
    return text.split("\n") if text is not None else []


#: tokens after which a statement starts (with no bracket open): ``lazy`` there is the
#: keyword when ``import`` or ``from`` follows it
_STARTS = frozenset({"NEWLINE", "INDENT", "DEDENT", "ENCODING", ";", ":"})


def _statements(text) -> tuple:
    """``([((row, col), "import" | "from"), ...], future)``: where each ``lazy``
    keyword is (1-based row, 0-based character column), and the position of the first
    ``lazy from __future__`` (or None).  A source the tokenizer gives up on keeps what
    it found before."""
    import io
    import token
    import tokenize

    found = []
    future = None
    depth = 0
    previous = "NEWLINE"
    pending = None        # a ``lazy`` that may start a statement: (start, state)
    names = token.NAME
    skip = (token.NL, token.COMMENT)
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            kind = tok.type
            if kind in skip:
                continue
            if pending is not None:
                start, step = pending
                if step == 0:
                    if kind == names and tok.string in ("import", "from"):
                        found.append((start, tok.string))
                        pending = (start, 1) if tok.string == "from" else None
                    else:
                        pending = None
                else:
                    if kind == names and tok.string == "__future__" and future is None:
                        future = start
                    pending = None
            string = tok.string
            if kind == token.OP:
                if string in "([{":
                    depth += 1
                elif string in ")]}":
                    depth -= 1
                previous = string
            elif kind == names and string == "lazy" and depth == 0 and previous in _STARTS:
                pending = (tok.start, 0)
                previous = string
            else:
                previous = token.tok_name[kind]
    except (SyntaxError, tokenize.TokenError, ValueError):
        pass
    return found, future


def _byte_col(line: str, col: int) -> int:
    """ast's column (UTF-8 bytes) of character ``col`` of ``line``."""
    head = line[:col]
    return col if head.isascii() else len(head.encode("utf-8", "surrogatepass"))


def _mark(tree, found, lines) -> bool:
    """Take out the ``0`` statements that stand for the keywords, and give each import
    its start at ``lazy`` and ``is_lazy = 1``; False when a keyword started no statement."""
    zeros = {(row, _byte_col(lines[row - 1], col)) for (row, col), _keyword in found}
    remaining = set(zeros)
    for node in walk(tree):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if type(body) is not list:
                continue
            for i in range(len(body) - 1, -1, -1):
                statement = body[i]
                key = (getattr(statement, "lineno", None), getattr(statement, "col_offset", None))
                if key in remaining and type(statement) is ast.Expr \
                        and type(statement.value) is ast.Constant:
                    nxt = body[i + 1]
                    nxt.lineno, nxt.col_offset = key
                    nxt.is_lazy = 1
                    remaining.discard(key)
                    del body[i]
    return not remaining


def _error(message, node, lines, path) -> SyntaxError:
    """3.15's SyntaxError for the statement ``node``: its compiler gives the statement's
    span in UTF-8 bytes (its parser's errors count characters)."""
    lines = lines()
    line = lines[node.lineno - 1] if node.lineno <= len(lines) else ""
    return SyntaxError(message, (path, node.lineno, node.col_offset + 1, line + "\n",
                                 node.end_lineno, node.end_col_offset + 1))


def _future_error(future, lines, path) -> SyntaxError:
    row, col = future
    line = lines[row - 1]
    return SyntaxError("lazy from __future__ import is not allowed",
                       (path, row, col + 1, line + "\n", row, col + 5))


_CONTEXTS = {ast.FunctionDef: "functions", ast.AsyncFunctionDef: "functions",
             ast.ClassDef: "classes", ast.Try: "try/except blocks"}
if hasattr(ast, "TryStar"):
    _CONTEXTS[ast.TryStar] = "try/except blocks"


def _validate(tree, lines, path) -> None:
    """(``lines``: gives the source's lines.)  Raise 3.15's SyntaxError for the first lazy import, in source order, where it is
    not allowed: inside a function, a class or a ``try`` statement (the innermost of
    them names it), or a ``from ... import *``."""
    stack = [(tree, None)]
    while stack:
        node, context = stack.pop()
        kind = _CONTEXTS.get(type(node))
        if kind is not None:
            context = kind
        elif type(node) in (ast.Import, ast.ImportFrom) and getattr(node, "is_lazy", 0):
            what = "lazy import" if type(node) is ast.Import else "lazy from ... import"
            if context is not None:
                raise _error(f"{what} not allowed inside {context}", node, lines, path)
            if type(node) is ast.ImportFrom and node.names[0].name == "*":
                raise _error("lazy from ... import * is not allowed", node, lines, path)
        if isinstance(node, ast.expr):
            continue
        stack.extend((child, context) for child in reversed(list(ast.iter_child_nodes(node))))
