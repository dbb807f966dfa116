"""libcst emitter: apply a Plan to the concrete syntax tree (``lazify rewrite`` / ``diff``).

The output is the same program as the AST emitter's (a test compares ``ast.dump`` of the
two on every fixture and on a sweep of real files), written so that a reviewer sees only
what lazify changed: everything the plan does not touch keeps its comments, formatting,
encoding and newlines byte for byte, and every original line keeps its line number.
Generated statements are joined to an existing line with ``"; "`` for that reason, or
take the place of a blank line; a new line is added only where neither is possible (the
header before a compound first statement, a chain call after a compound statement that
no simple statement follows, the decorator that makes a function's annotations import on
read, unless a blank line is right above its ``def``). A parenthesised ``from`` import keeps its lines: the call
that replaces it is laid out like it, and removed aliases leave their comments behind.
An import continued with backslashes keeps them in the call, unless it keeps eager names.

libcst is slow to import and to parse: this module is
imported only where a command emits (``lazify rewrite``/``diff``), never on the import
hook's path.
"""

from __future__ import annotations

import re

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from . import _entry_points as ep
from ._plan import EmitError, Plan, check_applied

__all__ = ["HEADER", "CannotParse", "EmitError", "emit_cst", "header_code"]

#: The two header statements, on one line, without fallback names.
HEADER = (
    f"import {ep.RUNTIME} as {ep.NAMESPACE}; "
    f"{ep.NAMESPACE} = {ep.NAMESPACE}.{ep.FACTORY}(globals())"
)


def header_code(plan: Plan) -> str:
    """The header line; ``Plan.fallback_names`` become extra arguments, as in the AST emitter."""
    if not plan.fallback_names:
        return HEADER
    return HEADER[: -len(")")] + "".join(f", {name!r}" for name in plan.fallback_names) + ")"


def _call(method: str, *args: str) -> str:
    """``__lazy__.<method>(*args)``, each argument given as source text."""
    return f"{ep.NAMESPACE}.{method}({', '.join(args)})"


# Lines as CPython and libcst's PositionProvider count them (not str.splitlines, which
# also splits on \f, \v, \x1c... and would shift every later line).
_NEWLINE = re.compile(r"\r\n?|\n")


class CannotParse(Exception):
    """libcst cannot parse source that the running Python accepts (syntax newer than the
    installed libcst knows, or a libcst bug: 1.9.0 fails on implicitly concatenated
    t-strings). ``lazify rewrite``/``diff`` cannot rewrite such a file; the import hook,
    which works on ``ast``, still does."""


def emit_cst(source: str | bytes, plan: Plan) -> str | bytes:
    """Return *source* rewritten as *plan* says, as ``str`` or ``bytes`` like *source*.

    Bytes are decoded and re-encoded with the file's own encoding (coding cookie or BOM),
    as libcst's ``Module.bytes`` does. Nothing is decided here: a plan item that matches
    no node of the source raises :class:`EmitError`.
    """
    if not plan.changes_module:
        return source
    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as e:
        message = (e.message.strip().splitlines() or ["cannot parse"])[0]
        raise CannotParse(f"{e.raw_line}:{e.raw_column + 1}: libcst {_libcst_version()}: {message}") from e
    except RecursionError:
        raise                            # deep, not unparsable: lazify._deep retries it
    except Exception as e:
        raise CannotParse(f"libcst {_libcst_version()} cannot parse it ({type(e).__name__}: {e})") from e
    # unsafe_skip_copy: the tree is fresh, and the transformer needs the very nodes the
    # positions are keyed by.
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    applier = _Applier(plan, wrapper.resolve(PositionProvider), _ByteColumns(module.code))
    new = module.visit(applier)
    check_applied(plan, applier.applied)
    if isinstance(source, bytes):
        return new.bytes
    # libcst drops a BOM character at the start of text input (bytes keep theirs).
    code = new.code
    return "\ufeff" + code if source.startswith("\ufeff") and not code.startswith("\ufeff") else code


def _libcst_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("libcst")
    except PackageNotFoundError:
        return "(unknown version)"


class _ByteColumns:
    """Convert libcst's character columns to ast's UTF-8 byte columns, line by line."""

    def __init__(self, code: str) -> None:
        self._lines = _NEWLINE.split(code)

    def __call__(self, line: int, column: int) -> int:
        text = self._lines[line - 1][:column]
        return column if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


#: libcst's import statements: PEP 810's ``lazy`` ones are nodes of their own
_LAZY_IMPORTS = tuple(getattr(cst, name) for name in ("LazyImport", "LazyImportFrom")
                      if hasattr(cst, name))
_IMPORTS = (cst.Import, cst.ImportFrom, *_LAZY_IMPORTS)


def _small(code: str):
    """Parse one generated small statement."""
    return cst.parse_statement(code + "\n").body[0]


def _is_blank(line) -> bool:
    return line.comment is None


def _pair(alias) -> tuple:
    """``(imported, asname or None)`` of a libcst ImportAlias, as the plan has it."""
    asname = alias.asname.name.value if alias.asname is not None else None
    return cst.helpers.get_full_name_for_node(alias.name), asname


class _Applier(cst.CSTTransformer):
    """Applies one plan to the tree; ``applied`` collects the ids of the plan items it
    found a node for.

    Plan items are keyed by where they start, ``(line, UTF-8 byte column)``.
    """

    def __init__(self, plan: Plan, positions, byte_col) -> None:
        super().__init__()
        self.plan = plan
        self.positions = positions
        self.byte_col = byte_col
        self.applied: set = set()
        self.refs = {r.span[:2]: r for r in plan.references}
        self.native = plan.mechanism == "native"
        self.sites = {s.span[:2]: s for s in plan.imports
                      if (s.any_lazy if self.native else s.rewritten)}
        self.chains = {span[:2]: span for span in plan.chain_after}
        owners = plan.annotation_owners
        self.decorate = {o.span[:2]: o for o in owners if o.kind == "def"}
        self.before = {o.span[:2]: o for o in owners if o.kind == "class"}
        self.annotate = {o.span[:2]: o for o in owners if o.kind == "annotate"}
        self.templates = {t.span[:2]: t for t in plan.templates}
        #: starts of implicitly concatenated strings: a t-string part that starts
        #: there is not the whole template
        self.concat_starts: set = set()
        self.prologues = {p.span[:2]: p for p in plan.getattr_prologues}
        self.reads = {r.span[:2]: r for r in plan.namespace_reads}
        self.deferred = {d.span[:2]: d for d in plan.deferred_annotations}
        #: per enclosing f-string expression: how many names were routed in it
        self.fstring_routes: list[int] = []
        #: per enclosing f-string: its quote character
        self.fstring_quotes: list[str] = []
        #: id(original SimpleStatementLine) -> how many statements each of its small
        #: statements became
        self.counts: dict[int, list[int]] = {}

    # ------------------------------------------------------------ positions

    def start(self, node) -> tuple[int, int]:
        pos = self.positions[node].start
        return pos.line, self.byte_col(pos.line, pos.column)

    # ------------------------------------------------------------ references

    def leave_Name(self, original, updated):
        ref = self.refs.get(self.start(original))
        if ref is None or ref.name != original.value:
            return updated
        self.applied.add(id(ref))
        if self.fstring_routes:
            self.fstring_routes[-1] += 1
        return cst.Attribute(
            value=cst.Name(ep.NAMESPACE),
            attr=cst.Name(original.value),
            lpar=updated.lpar,
            rpar=updated.rpar,
        )

    # ------------------------------------------------------------ namespace reads

    def read_at(self, original, kind_ok):
        """The namespace read planned for ``original``, or None."""
        if not self.reads:
            return None
        read = self.reads.get(self.start(original))
        if read is None or not kind_ok(read.kind):
            return None
        self.applied.add(id(read))
        if self.fstring_routes:
            self.fstring_routes[-1] += 1
        return read

    def leave_Call(self, original, updated):
        func = original.func
        if not isinstance(func, cst.Name) or func.value not in ("globals", "eval", "exec"):
            return updated
        read = self.read_at(
            original, (lambda kind: kind == "eval") if func.value != "globals"
            else (lambda kind: kind not in ("eval", "frame")))
        if read is None:
            return updated
        if read.kind != "eval":
            # given what the builtins it stands for are where it runs (a module global
            # or a patched attribute shadowing one is called as written)
            passed = ("globals",) if read.consumer is None else ("globals", read.consumer)
            method = cst.parse_expression(_call(ep.NAMESPACE_READS[read.kind], *passed))
            return method.with_changes(lpar=updated.lpar, rpar=updated.rpar)
        method = _call(ep.NAMESPACE_READS[read.kind])
        args = list(updated.args)
        if len(args) == 3:
            # eval(src, None, loc) -> eval(src, <globals> if <the builtin> else None, loc)
            test = _call(ep.EVAL, func.value)
            args[1] = args[1].with_changes(value=cst.IfExp(
                test=cst.parse_expression(test), body=cst.parse_expression(method),
                orelse=args[1].value))
            return updated.with_changes(args=args)
        # eval(src[, None]) -> eval(src, *(<globals>, locals()) if <the builtins> else
        # (the arguments written))
        written = f"{_code(args[1].value)}," if len(args) == 2 else ""
        spread = cst.parse_expression(
            f"({method}, locals()) if {_call(ep.EVAL, func.value, 'locals')} else ({written})")
        comma = args[0].comma
        if not isinstance(comma, cst.Comma):
            comma = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
        elif _code(comma.whitespace_after) == "":
            # eval(src,): a space after the comma that now separates arguments
            comma = comma.with_changes(whitespace_after=cst.SimpleWhitespace(" "))
        last = args[1].comma if len(args) == 2 else cst.MaybeSentinel.DEFAULT
        args = [args[0].with_changes(comma=comma), cst.Arg(value=spread, star="*", comma=last)]
        return updated.with_changes(args=args)

    def leave_Attribute(self, original, updated):
        if original.attr.value != "f_globals":
            return updated
        read = self.read_at(original, lambda kind: kind == "frame")
        if read is None:
            return updated
        method = cst.Attribute(value=cst.Name(ep.NAMESPACE), attr=cst.Name(ep.NAMESPACE_READS["frame"]))
        return cst.Call(func=method, args=[cst.Arg(updated.value)], lpar=updated.lpar, rpar=updated.rpar)

    def visit_FormattedString(self, node) -> None:
        self.fstring_quotes.append(node.start[-1])

    def leave_FormattedString(self, original, updated):
        self.fstring_quotes.pop()
        return updated

    def visit_FormattedStringExpression(self, node) -> None:
        self.fstring_routes.append(0)

    def leave_FormattedStringExpression(self, original, updated):
        # f"{json=}" prints the expression's text: routing the name would change that
        # text to "__lazy__.json=". Spell it as the literal text plus the value with the
        # conversion "=" implies (repr unless a format spec is given), which is the
        # same program: the parser produces Constant("json=") + FormattedValue for both.
        routed = self.fstring_routes.pop()
        if self.fstring_routes:
            self.fstring_routes[-1] += routed
        if updated.equal is None or not routed:
            return updated
        code = _code(original.whitespace_before_expression)
        code += _code(original.expression)
        code += _code(original.whitespace_after_expression)
        code += _code(original.equal)
        if "\\" in code or self.fstring_quotes[-1] in code:
            raise EmitError(f"cannot spell f-string debug text {code!r} as a literal")
        conversion = updated.conversion
        if conversion is None and updated.format_spec is None:
            conversion = "r"
        text = code.replace("{", "{{").replace("}", "}}")
        return cst.FlattenSentinel(
            [
                cst.FormattedStringText(text),
                # The whitespace stays: without "=" it is not printed, and it keeps
                # `{ {x: 1} = }` from turning into an escaped `{{`.
                updated.with_changes(equal=None, conversion=conversion),
            ]
        )

    # ------------------------------------------------------------ t-strings

    def visit_ConcatenatedString(self, node) -> None:
        self.concat_starts.add(self.start(node))

    def leave_ConcatenatedString(self, original, updated):
        return self.template(original, updated)

    def leave_TemplatedString(self, original, updated):
        if self.start(original) in self.concat_starts:
            return updated
        return self.template(original, updated)

    def template(self, original, updated):
        # (__lazy__.a, t"{a}")[-1]: the interpolation keeps its text (see
        # _plan.TemplateString)
        template = self.templates.get(self.start(original))
        if template is None:
            return updated
        self.applied.add(id(template))
        elements = [
            cst.Element(cst.Attribute(value=cst.Name(ep.NAMESPACE), attr=cst.Name(name)))
            for name in template.names
        ]
        elements.append(cst.Element(updated))
        index = cst.Index(cst.UnaryOperation(operator=cst.Minus(), expression=cst.Integer("1")))
        return cst.Subscript(value=cst.Tuple(elements), slice=[cst.SubscriptElement(index)])

    # ------------------------------------------------------------ small statements

    def leave_SimpleStatementLine(self, original, updated):
        counts: list[int] = []
        new = updated.with_changes(body=self.small_statements(original.body, updated.body, counts))
        self.counts[id(original)] = counts
        return new

    def leave_SimpleStatementSuite(self, original, updated):
        return updated.with_changes(body=self.small_statements(original.body, updated.body))

    def small_statements(self, originals, updateds, counts=None) -> list:
        out = []
        for orig, upd in zip(originals, updateds):
            key = self.start(orig)
            site = self.sites.get(key) if isinstance(orig, _IMPORTS) else None
            new = [upd] if site is None else self.apply_site(key, site, upd)
            owner = self.before.get(key) if isinstance(orig, cst.AnnAssign) else None
            if owner is not None:
                self.applied.add(id(owner))
                new.insert(0, _small("__annotations__ = " + _call(
                    ep.ANNOTATIONS, "__annotations__", *map(repr, owner.names))))
            owner = self.annotate.get(key)
            if owner is not None:
                self.applied.add(id(owner))
                new.insert(0, _small(_call(ep.ANNOTATE, *map(repr, owner.names))))
            chain = self.chains.get(key)
            if chain is not None:
                self.applied.add(id(chain))
                new.append(_small(_call(ep.CHAIN)))
            # The last statement keeps the original semicolon (and so the text up to
            # the next statement or the line end); the others get libcst's default "; ".
            new = [s.with_changes(semicolon=cst.MaybeSentinel.DEFAULT) for s in new[:-1]] + [
                new[-1].with_changes(semicolon=upd.semicolon)
            ]
            out.extend(new)
            if counts is not None:
                counts.append(len(new))
        return out

    def apply_site(self, key, site, node) -> list:
        if self.native:
            return self.apply_native(key, site, node)
        if site.is_star:
            self.applied.add(id(site))
            return [_small(_call(ep.STAR, repr(site.module_text))), node]
        aliases = self._aliases_as_planned(key, site, node)
        lazy = [(n.imported, n.asname) for n in site.names if n.lazy]
        if not lazy:
            # an explicit ``lazy import`` the rewrite keeps eager: without its keyword
            return [_plain(node)]
        module = None if site.kind == "import" else site.module_text
        args = map(repr, lazy if module is None else [module, *lazy])
        call = _call(_method(module, site.explicit), *args)
        kept = [a for a, n in zip(aliases, site.names) if not n.lazy]
        if not kept:
            if _spans_lines(node):
                return [cst.Expr(_spread_call(node, module, lazy, site.explicit))]
            return [_small(call)]
        # the names the rewrite keeps eager of a ``lazy`` statement: a plain one
        node = _plain(node)
        if isinstance(node, cst.ImportFrom) and node.lpar is not None:
            keep = [not n.lazy for n in site.names]
            return [_remove_parenthesized(node, keep), _small(call)]
        if kept[-1] is not aliases[-1]:
            # Without parentheses a trailing comma is a syntax error.
            kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return [node.with_changes(names=kept), _small(call)]

    def _aliases_as_planned(self, key, site, node) -> list:
        """The statement's aliases, checked against the names the plan has for the
        site (a mismatch is a lazify bug: EmitError); the site counts as applied."""
        aliases = list(node.names)
        written = [_pair(a) for a in aliases]
        planned = [(n.imported, n.asname) for n in site.names]
        if written != planned:
            raise EmitError(f"import at {key} binds {written}, the plan says {planned}")
        self.applied.add(id(site))
        return aliases

    def apply_native(self, key, site, node) -> list:
        """The native mechanism: ``lazy`` before the statement, or, when some of its
        names stay eager, the statement with those and a ``lazy`` one with the rest."""
        self._aliases_as_planned(key, site, node)   # checks the node, counts the site applied
        if all(n.lazy for n in site.names):
            return [_lazy(node)]
        # the lazy names on one line after the eager statement: no line moves, and the
        # comments stay where they are, with the eager statement
        lazy = ", ".join(n.alias for n in site.names if n.lazy)
        module = "" if site.kind == "import" else f"from {site.module_text} "
        return [_keep(node, [not n.lazy for n in site.names]),
                _small(f"lazy {module}import {lazy}")]

    # ------------------------------------------------------------ annotations

    def leave_Annotation(self, original, updated):
        # __lazy__.__lazy_deferred__(lambda: E, 'name', ...): see _plan.DeferredAnnotation
        if not self.deferred:
            return updated
        deferred = self.deferred.get(self.start(original.annotation))
        if deferred is None:
            return updated
        self.applied.add(id(deferred))
        call = cst.Call(
            func=cst.Attribute(value=cst.Name(ep.NAMESPACE), attr=cst.Name(ep.DEFERRED)),
            args=[cst.Arg(cst.Lambda(params=cst.Parameters(), body=updated.annotation)),
                  *(cst.Arg(cst.SimpleString(repr(name))) for name in deferred.names)])
        return updated.with_changes(annotation=call)

    def leave_FunctionDef(self, original, updated):
        key = self.start(original)
        prologue = self.prologues.get(key)
        if prologue is not None:
            self.applied.add(id(prologue))
            updated = _with_prologue(updated, prologue)
        owner = self.decorate.get(key)
        if owner is None:
            return updated
        self.applied.add(id(owner))
        decorator = cst.Decorator(decorator=cst.parse_expression(_call(ep.ANNOTATED, *map(repr, owner.names))))
        leading = list(updated.leading_lines)
        if not updated.decorators and leading and _is_blank(leading[-1]):
            # It takes the blank line above the def: no line moves.
            leading = leading[:-1]
        return updated.with_changes(
            decorators=[*updated.decorators, decorator], leading_lines=leading)

    # ------------------------------------------------------------ blocks

    def leave_IndentedBlock(self, original, updated):
        body, origs = self.chain_compounds(original.body, updated.body)
        body, _ = self.annotate_compounds(origs, body)
        return updated.with_changes(body=body)

    def leave_Module(self, original, updated):
        body, origs = self.chain_compounds(original.body, updated.body)
        body, origs = self.annotate_compounds(origs, body)
        header_lines = list(updated.header)
        if not self.native:
            body = _insert_header(body, origs, self.counts, header_lines, self.plan)
        return updated.with_changes(body=body, header=header_lines)

    def chain_compounds(self, originals, updateds):
        """Put a chain call after each compound statement in ``Plan.chain_after``."""
        body = list(updateds)
        origs: list = list(originals)
        i = 0
        while i < len(body):
            orig = origs[i]
            chain = None
            if orig is not None and not isinstance(orig, cst.SimpleStatementLine):
                chain = self.chains.get(self.start(orig))
            if chain is not None:
                self.applied.add(id(chain))
                _place_after(body, origs, i, _small(_call(ep.CHAIN)))
            i += 1
        return body, origs

    def annotate_compounds(self, origs, body):
        """3.14+: ``__lazy__.__lazy_annotate__(...)`` before the compound statement of
        a class body or of the module that holds its first annotation (``if X: attr:
        T``): on the blank line above it, or on a new line."""
        if not self.annotate:
            return body, origs
        out, out_origs = [], []
        for orig, new in zip(origs, body):
            if orig is not None and not isinstance(orig, cst.SimpleStatementLine):
                owner = self.annotate.get(self.start(orig))
                if owner is not None:
                    self.applied.add(id(owner))
                    leading = list(new.leading_lines)
                    if leading and _is_blank(leading[-1]):
                        leading = leading[:-1]   # no line moves
                    out.append(cst.SimpleStatementLine(
                        body=[_small(_call(ep.ANNOTATE, *map(repr, owner.names)))], leading_lines=leading))
                    out_origs.append(None)
                    new = new.with_changes(leading_lines=())
            out.append(new)
            out_origs.append(orig)
        return out, out_origs


def _place_after(body: list, origs: list, i: int, statement) -> None:
    """Put a small statement on a line of its own after the compound ``body[i]``: on the
    blank line after its block (no line moves), else before the next simple statement
    on its line, else on a new line."""
    nxt = body[i + 1] if i + 1 < len(body) else None
    if nxt is not None and nxt.leading_lines and _is_blank(nxt.leading_lines[0]):
        body[i + 1] = nxt.with_changes(leading_lines=nxt.leading_lines[1:])
        body.insert(i + 1, cst.SimpleStatementLine(body=[statement]))
        origs.insert(i + 1, None)
    elif isinstance(nxt, cst.SimpleStatementLine):
        body[i + 1] = nxt.with_changes(body=[statement, *nxt.body])
    else:
        body.insert(i + 1, cst.SimpleStatementLine(body=[statement]))
        origs.insert(i + 1, None)


def _insert_header(body: list, origs: list, counts: dict, header_lines: list, plan: Plan) -> list:
    """Put the header after the first ``plan.header_index`` statements of the module (the
    docstring and ``from __future__`` imports): joined to their line with ``"; "``, or on
    the blank line after it."""
    statements = list(cst.parse_module(header_code(plan) + "\n").body[0].body)
    if plan.header_index == 0:
        return _header_at_top(body, statements, header_lines)
    before = 0        # statements of the source seen so far
    for i, orig in enumerate(origs):
        if orig is None:
            continue   # a line the rewrite added
        if not isinstance(orig, cst.SimpleStatementLine):
            break      # the docstring and __future__ imports are simple statements
        smalls = orig.body
        if before + len(smalls) < plan.header_index:
            before += len(smalls)
            continue
        # the last statement before the header; anything after it on the line follows it
        j = plan.header_index - before - 1
        nxt = body[i + 1] if i + 1 < len(body) else None
        if j == len(smalls) - 1 and (
            nxt is None or (nxt.leading_lines and _is_blank(nxt.leading_lines[0]))
        ):
            # Take the blank line after it (or add a line after the last statement):
            # no line moves, and the diff stays readable.
            if nxt is not None:
                body[i + 1] = nxt.with_changes(leading_lines=nxt.leading_lines[1:])
            body.insert(i + 1, cst.SimpleStatementLine(body=statements))
            return body
        stmt = body[i]
        new = list(stmt.body)
        j = sum(counts[id(orig)][: j + 1]) - 1
        new[j : j + 1] = [new[j].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)] + [
            s.with_changes(semicolon=cst.MaybeSentinel.DEFAULT) for s in statements[:-1]
        ] + [statements[-1].with_changes(semicolon=new[j].semicolon)]
        body[i] = stmt.with_changes(body=new)
        return body
    raise EmitError(f"the module has fewer than the plan's {plan.header_index} statements "
                    "before the header")


def _header_at_top(body: list, statements: list, header_lines: list) -> list:
    if not body:
        # An empty package __init__ (comments at most): the header is the module.
        return [cst.SimpleStatementLine(body=statements)]
    first = body[0]
    leading = list(first.leading_lines)
    # Take the blank line right above the first statement (its line number is the
    # count of lines above the statement), unless it is line 1: a coding cookie on
    # line 2 only counts after a comment or blank line 1.
    above = len(header_lines) + len(leading)
    if above >= 2 and leading and _is_blank(leading[-1]):
        body[0] = first.with_changes(leading_lines=leading[:-1])
        body.insert(0, cst.SimpleStatementLine(body=statements))
        return body
    if above >= 2 and not leading and _is_blank(header_lines[-1]):
        del header_lines[-1]
        body.insert(0, cst.SimpleStatementLine(body=statements))
        return body
    if isinstance(first, cst.SimpleStatementLine):
        body[0] = first.with_changes(
            body=[s.with_changes(semicolon=cst.MaybeSentinel.DEFAULT) for s in statements]
            + list(first.body)
        )
        return body
    # A compound first statement: a new line, right above it (below its comments).
    body[0] = first.with_changes(leading_lines=())
    body.insert(0, cst.SimpleStatementLine(body=statements, leading_lines=leading))
    return body


def _with_prologue(node, prologue):
    """``def __getattr__`` with lazify's prologue first in its body (after the
    docstring): a new line, the only one it adds."""
    param = prologue.param
    line = cst.parse_statement(f"if {_call(ep.GETATTR, param)}: return {_call(ep.RESULT, param)}\n")
    body = node.body
    if isinstance(body, cst.SimpleStatementSuite):
        # ``def __getattr__(name): return x``: the one-line body becomes a block
        body = cst.IndentedBlock(body=[cst.SimpleStatementLine(body=list(body.body))])
    statements = list(body.body)
    statements.insert(1 if prologue.after_docstring else 0, line)
    return node.with_changes(body=body.with_changes(body=statements))


def _code(node) -> str:
    if node is None:
        return ""
    return cst.Module(body=()).code_for_node(node)


def _method(module, explicit) -> str:
    """The registration for ``import`` (*module* None) or ``from module import``, of a
    PEP 810 ``lazy`` statement when *explicit*."""
    if explicit:
        return ep.EXPLICIT_IMPORT if module is None else ep.EXPLICIT_FROM
    return ep.IMPORT if module is None else ep.FROM


def _plain(node):
    """The import statement without PEP 810's ``lazy``."""
    if not isinstance(node, _LAZY_IMPORTS):
        return node
    if isinstance(node, _LAZY_IMPORTS[0]):
        return cst.Import(names=node.names, semicolon=node.semicolon,
                          whitespace_after_import=node.whitespace_after_import)
    return cst.ImportFrom(
        module=node.module, names=node.names, relative=node.relative, lpar=node.lpar,
        rpar=node.rpar, semicolon=node.semicolon,
        whitespace_after_from=node.whitespace_after_from,
        whitespace_before_import=node.whitespace_before_import,
        whitespace_after_import=node.whitespace_after_import)


def _spread_call(node, module: str | None, lazy: list[tuple], explicit: bool = False):
    """The registration call laid out like the multi-line import it replaces.

    Each argument takes the line break, indent and comment of the alias it stands for, so
    ``from m import (...)`` over several lines (or an import continued with backslashes)
    keeps its comments and its line count. *module* is None for ``import a, b``.
    """
    args = []
    if module is not None:
        after = cst.SimpleWhitespace(" ")
        if node.lpar is not None:
            after = node.lpar.whitespace_after
            if isinstance(after, cst.SimpleWhitespace) and not after.value:
                after = cst.SimpleWhitespace(" ")
        args.append(
            cst.Arg(
                cst.SimpleString(repr(module)),
                comma=cst.Comma(whitespace_before=cst.SimpleWhitespace(""), whitespace_after=after),
            )
        )
    for pair, alias in zip(lazy, node.names):
        args.append(cst.Arg(cst.parse_expression(repr(pair)), comma=alias.comma))
    if getattr(node, "rpar", None) is not None:
        args[-1] = args[-1].with_changes(whitespace_after_arg=node.rpar.whitespace_before)
    func = cst.Attribute(value=cst.Name(ep.NAMESPACE), attr=cst.Name(_method(module, explicit)))
    return cst.Call(func=func, args=args)


def _lazy(node):
    """``lazy import ...`` / ``lazy from ... import ...`` (PEP 810) for an import."""
    ws = cst.SimpleWhitespace(" ")
    if isinstance(node, cst.Import):
        return cst.LazyImport(names=node.names, semicolon=node.semicolon, whitespace_after_lazy=ws,
                              whitespace_after_import=node.whitespace_after_import)
    return cst.LazyImportFrom(
        module=node.module, names=node.names, relative=node.relative, lpar=node.lpar,
        rpar=node.rpar, semicolon=node.semicolon, whitespace_after_lazy=ws,
        whitespace_after_from=node.whitespace_after_from,
        whitespace_before_import=node.whitespace_before_import,
        whitespace_after_import=node.whitespace_after_import)



def _keep(node, keep: list[bool]):
    """The import with the aliases ``keep`` marks."""
    if isinstance(node, cst.ImportFrom) and node.lpar is not None:
        return _remove_parenthesized(node, keep)
    kept = [a for a, k in zip(node.names, keep) if k]
    if kept[-1] is not node.names[-1]:
        # Without parentheses a trailing comma is a syntax error.
        kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return node.with_changes(names=kept)


def _spans_lines(node) -> bool:
    """Whether the import's aliases are spread over several lines."""
    if getattr(node, "lpar", None) is not None:
        return True
    return any(
        isinstance(a.comma, cst.Comma) and "\n" in _code(a.comma.whitespace_after) for a in node.names
    )


def _remove_parenthesized(node, keep: list[bool]):
    """Drop aliases from ``from m import (...)``, keeping the lines they were on.

    The whitespace before a removed alias and the whitespace after it (its comma's, or
    the one before ``)``) merge into one, and the alias's own line stays as a comment-only
    or blank line inside the parentheses: no later line moves, no comment is lost.
    """
    aliases = list(node.names)
    lpar_ws = node.lpar.whitespace_after
    rpar_ws = node.rpar.whitespace_before
    kept: list = []
    absorbed_rpar = False
    for alias, keep_it in zip(aliases, keep):
        if keep_it:
            kept.append(alias)
            continue
        if isinstance(alias.comma, cst.Comma):
            after = alias.comma.whitespace_after
        else:
            after, absorbed_rpar = rpar_ws, True
        if kept:
            prev = kept[-1]
            kept[-1] = prev.with_changes(
                comma=prev.comma.with_changes(whitespace_after=_merge_ws(prev.comma.whitespace_after, after))
            )
        else:
            lpar_ws = _merge_ws(lpar_ws, after)
    if absorbed_rpar:
        rpar_ws = cst.SimpleWhitespace("")
        tail = kept[-1].comma.whitespace_after
        if not isinstance(tail, cst.ParenthesizedWhitespace):
            # `(a, b)` without b: `(a)`, not `(a, )`.
            kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return node.with_changes(
        names=kept,
        lpar=node.lpar.with_changes(whitespace_after=lpar_ws),
        rpar=node.rpar.with_changes(whitespace_before=rpar_ws),
    )


def _merge_ws(before, after):
    """One whitespace for ``before <removed alias> after``, keeping every line break."""
    pw = cst.ParenthesizedWhitespace
    if not isinstance(after, pw):
        return before
    if not isinstance(before, pw):
        return after
    comment = after.first_line.comment
    line = cst.EmptyLine(
        indent=before.indent and comment is not None,
        whitespace=cst.SimpleWhitespace(before.last_line.value if comment is not None else ""),
        comment=comment,
        newline=after.first_line.newline,
    )
    return before.with_changes(
        empty_lines=[*before.empty_lines, line, *after.empty_lines],
        indent=after.indent,
        last_line=after.last_line,
    )
