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

libcst is imported inside :func:`emit_cst`: it is slow to import (and to parse, about 75 ms
per stdlib file here), so it is never on the import hook's path.
"""

from __future__ import annotations

import re

from ._plan import NAMESPACE, NAMESPACE_METHODS, Plan

#: The two header statements, on one line (contract item 1), without fallback names.
HEADER = (
    f"from lazify._importlib_bootstrap import __lazy_module__ as {NAMESPACE}; "
    f"{NAMESPACE} = {NAMESPACE}(globals())"
)


def header_code(plan: Plan) -> str:
    """The header line; ``Plan.fallback_names`` become extra arguments, as in the AST emitter."""
    names = getattr(plan, "fallback_names", ())
    if not names:
        return HEADER
    return HEADER[: -len(")")] + "".join(f", {name!r}" for name in names) + ")"


def _annotate_call(names) -> str:
    return f"{NAMESPACE}.__lazy_annotate__({', '.join(map(repr, names))})"


# Lines as CPython and libcst's PositionProvider count them (not str.splitlines, which
# also splits on \f, \v, \x1c... and would shift every later line).
_NEWLINE = re.compile(r"\r\n?|\n")


class EmitError(Exception):
    """The plan does not match the source: a lazify bug, never a user error."""


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
    if not plan.rewrite:
        return source
    import libcst as cst
    from libcst.metadata import MetadataWrapper, PositionProvider

    try:
        module = cst.parse_module(source)
    except cst.ParserSyntaxError as e:
        message = (e.message.strip().splitlines() or ["cannot parse"])[0]
        raise CannotParse(f"{e.raw_line}:{e.raw_column + 1}: libcst {_libcst_version()}: {message}") from e
    except Exception as e:
        raise CannotParse(f"libcst {_libcst_version()} cannot parse it ({type(e).__name__}: {e})") from e
    # unsafe_skip_copy: the tree is fresh, and the transformer needs the very nodes the
    # positions are keyed by.
    wrapper = MetadataWrapper(module, unsafe_skip_copy=True)
    positions = wrapper.resolve(PositionProvider)
    applier = _make_applier(cst)(plan, positions, _ByteColumns(module.code))
    new = module.visit(applier)
    applier.check_all_applied()
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


def _make_applier(cst):
    """Build the transformer class (a function, so that libcst is imported lazily)."""

    def small(code: str):
        """Parse one generated small statement."""
        return cst.parse_statement(code + "\n").body[0]

    def alias_text(alias) -> str:
        text = cst.helpers.get_full_name_for_node(alias.name)
        if alias.asname is not None:
            text += " as " + alias.asname.name.value
        return text

    def is_blank(line) -> bool:
        return line.comment is None

    class Applier(cst.CSTTransformer):
        def __init__(self, plan: Plan, positions, byte_col) -> None:
            super().__init__()
            self.plan = plan
            self.positions = positions
            self.byte_col = byte_col
            self.refs = {(r.span[0], r.span[1]): r.name for r in plan.references}
            self.sites = {
                (s.span[0], s.span[1]): s
                for s in plan.imports
                if s.any_lazy or any(n.alias == "*" for n in s.names)
            }
            self.chains = {(s[0], s[1]) for s in plan.chain_after}
            owners = getattr(plan, "annotation_owners", ())
            self.decorate = {(o.span[0], o.span[1]): o.names for o in owners if o.kind == "def"}
            self.before = {(o.span[0], o.span[1]): o.names for o in owners if o.kind == "class"}
            self.annotate = {(o.span[0], o.span[1]): o.names for o in owners if o.kind == "annotate"}
            self.templates = {(t.span[0], t.span[1]): t.names for t in getattr(plan, "templates", ())}
            self.done_templates: set = set()
            #: starts of implicitly concatenated strings: a t-string part that starts
            #: there is not the whole template
            self.concat_starts: set = set()
            self.prologues = {(p.span[0], p.span[1]): p.param for p in plan.getattr_prologues}
            self.done_prologues: set = set()
            self.reads = {(r.span[0], r.span[1]): r for r in getattr(plan, "namespace_reads", ())}
            self.done_reads: set = set()
            self.done_owners: set = set()
            self.done_refs: set = set()
            self.done_sites: set = set()
            self.done_chains: set = set()
            self.header_done = False
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

        def end_line(self, node) -> int:
            return self.positions[node].end.line

        def check_all_applied(self) -> None:
            missing = []
            missing += [f"reference {n!r} at {k}" for k, n in self.refs.items() if k not in self.done_refs]
            missing += [
                f"import {s.statement!r} at {k}" for k, s in self.sites.items() if k not in self.done_sites
            ]
            missing += [f"__getattr__/__dir__ binding at {k}" for k in self.chains - self.done_chains]
            missing += [
                f"annotated def or class at {k}"
                for k in {*self.decorate, *self.before, *self.annotate} - self.done_owners
            ]
            missing += [f"t-string at {k}" for k in set(self.templates) - self.done_templates]
            missing += [f"def __getattr__ at {k}" for k in set(self.prologues) - self.done_prologues]
            missing += [
                f"namespace read {r.kind!r} at {k}" for k, r in self.reads.items() if k not in self.done_reads
            ]
            if not self.header_done:
                missing.append(f"header after line {self.plan.header_after_line}")
            if missing:
                raise EmitError(
                    f"plan for module {self.plan.module!r} does not match the source: "
                    "no node for " + "; ".join(missing)
                )

        # ------------------------------------------------------------ references

        def leave_Name(self, original, updated):
            key = self.start(original)
            name = self.refs.get(key)
            if name is None or name != original.value:
                return updated
            self.done_refs.add(key)
            if self.fstring_routes:
                self.fstring_routes[-1] += 1
            return cst.Attribute(
                value=cst.Name(NAMESPACE),
                attr=cst.Name(original.value),
                lpar=updated.lpar,
                rpar=updated.rpar,
            )

        # ------------------------------------------------------------ namespace reads

        def read_at(self, original, kind_ok):
            """The namespace read planned for ``original``, or None."""
            if not self.reads:
                return None
            key = self.start(original)
            read = self.reads.get(key)
            if read is None or not kind_ok(read.kind):
                return None
            self.done_reads.add(key)
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
            method = f"{NAMESPACE}.{NAMESPACE_METHODS[read.kind]}()"
            if read.kind != "eval":
                return cst.parse_expression(method).with_changes(lpar=updated.lpar, rpar=updated.rpar)
            # eval(src[, None[, loc]]) -> eval(src, __lazy__.__lazy_globals__(), loc or locals())
            args = list(updated.args)
            if len(args) >= 2:
                args[1] = args[1].with_changes(value=cst.parse_expression(method))
            else:
                comma = args[0].comma
                if isinstance(comma, cst.Comma) and _code(cst, comma.whitespace_after) == "":
                    # eval(src,): a space after the comma that now separates arguments
                    args[0] = args[0].with_changes(
                        comma=comma.with_changes(whitespace_after=cst.SimpleWhitespace(" ")))
                args.append(cst.Arg(cst.parse_expression(method)))
            if len(args) < 3:
                args.append(cst.Arg(cst.parse_expression("locals()")))
            return updated.with_changes(args=args)

        def leave_Attribute(self, original, updated):
            if original.attr.value != "f_globals":
                return updated
            read = self.read_at(original, lambda kind: kind == "frame")
            if read is None:
                return updated
            method = cst.Attribute(value=cst.Name(NAMESPACE), attr=cst.Name(NAMESPACE_METHODS["frame"]))
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
            code = _code(cst, original.whitespace_before_expression)
            code += _code(cst, original.expression)
            code += _code(cst, original.whitespace_after_expression)
            code += _code(cst, original.equal)
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
            # (__lazy__.a, t"{a}")[-1]: the interpolation keeps its text (contract in
            # _plan.TemplateString)
            key = self.start(original)
            names = self.templates.get(key)
            if names is None:
                return updated
            self.done_templates.add(key)
            elements = [
                cst.Element(cst.Attribute(value=cst.Name(NAMESPACE), attr=cst.Name(name)))
                for name in names
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
                site = self.sites.get(key) if isinstance(orig, (cst.Import, cst.ImportFrom)) else None
                new = [upd] if site is None else self.apply_site(key, site, upd)
                names = self.before.get(key) if isinstance(orig, cst.AnnAssign) else None
                if names is not None:
                    self.done_owners.add(key)
                    args = "".join(f", {name!r}" for name in names)
                    new.insert(0, small(
                        f"__annotations__ = {NAMESPACE}.__lazy_annotations__(__annotations__{args})"))
                names = self.annotate.get(key)
                if names is not None:
                    self.done_owners.add(key)
                    new.insert(0, small(_annotate_call(names)))
                if key in self.chains:
                    self.done_chains.add(key)
                    new.append(small(f"{NAMESPACE}.__lazy_chain__()"))
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
            if isinstance(node.names, cst.ImportStar):
                self.done_sites.add(key)
                module = "." * site.level + site.from_module
                return [small(f"{NAMESPACE}.__lazy_star__({module!r})"), node]
            aliases = list(node.names)
            written = [alias_text(a) for a in aliases]
            planned = [n.alias for n in site.names]
            if written != planned:
                raise EmitError(
                    f"import at {key} binds {written}, the plan says {planned}"
                )
            self.done_sites.add(key)
            lazy = [n.alias for n in site.names if n.lazy]
            if site.kind == "import":
                call = f"{NAMESPACE}.__lazy_import__({', '.join(map(repr, lazy))})"
            else:
                module = "." * site.level + site.from_module
                args = ", ".join(map(repr, [module, *lazy]))
                call = f"{NAMESPACE}.__lazy_from__({args})"
            kept = [a for a, n in zip(aliases, site.names) if not n.lazy]
            if not kept:
                if _spans_lines(cst, node):
                    spread = _spread_call(cst, node, None if site.kind == "import" else module, written)
                    return [cst.Expr(spread)]
                return [small(call)]
            if isinstance(node, cst.ImportFrom) and node.lpar is not None:
                keep = [not n.lazy for n in site.names]
                return [_remove_parenthesized(cst, node, keep), small(call)]
            if kept[-1] is not aliases[-1]:
                # Without parentheses a trailing comma is a syntax error.
                kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
            return [node.with_changes(names=kept), small(call)]

        # ------------------------------------------------------------ annotations

        def leave_FunctionDef(self, original, updated):
            key = self.start(original)
            param = self.prologues.get(key)
            if param is not None:
                self.done_prologues.add(key)
                updated = _with_prologue(cst, updated, param)
            names = self.decorate.get(key)
            if names is None:
                return updated
            self.done_owners.add(key)
            call = f"{NAMESPACE}.__lazy_annotated__({', '.join(map(repr, names))})"
            decorator = cst.Decorator(decorator=cst.parse_expression(call))
            leading = list(updated.leading_lines)
            if not updated.decorators and leading and is_blank(leading[-1]):
                # It takes the blank line above the def: no line moves.
                leading = leading[:-1]
            return updated.with_changes(
                decorators=[*updated.decorators, decorator], leading_lines=leading)

        # ------------------------------------------------------------ blocks

        def leave_IndentedBlock(self, original, updated):
            body, origs = self.chain_compounds(original.body, updated.body)
            body, _ = self.annotate_compounds(origs, body)
            return updated.with_changes(body=body)

        def annotate_compounds(self, origs, body):
            """3.14+: ``__lazy__.__lazy_annotate__(...)`` before the compound statement of
            a class body or of the module that holds its first annotation (``if X: attr:
            T``): on the blank line above it, or on a new line."""
            if not self.annotate:
                return body, origs
            out, out_origs = [], []
            for orig, new in zip(origs, body):
                if orig is not None and not isinstance(orig, cst.SimpleStatementLine):
                    key = self.start(orig)
                    names = self.annotate.get(key)
                    if names is not None:
                        self.done_owners.add(key)
                        leading = list(new.leading_lines)
                        if leading and is_blank(leading[-1]):
                            leading = leading[:-1]   # no line moves
                        out.append(cst.SimpleStatementLine(
                            body=[small(_annotate_call(names))], leading_lines=leading))
                        out_origs.append(None)
                        new = new.with_changes(leading_lines=())
                out.append(new)
                out_origs.append(orig)
            return out, out_origs

        def leave_Module(self, original, updated):
            body, origs = self.chain_compounds(original.body, updated.body)
            body, origs = self.annotate_compounds(origs, body)
            header_lines = list(updated.header)
            body = self.insert_header(body, origs, header_lines)
            return updated.with_changes(body=body, header=header_lines)

        def chain_compounds(self, originals, updateds):
            """Put a chain call after each compound statement in chain_after."""
            body = list(updateds)
            origs: list = list(originals)
            i = 0
            while i < len(body):
                orig = origs[i]
                if orig is None or isinstance(orig, cst.SimpleStatementLine):
                    i += 1
                    continue
                key = self.start(orig)
                if key not in self.chains:
                    i += 1
                    continue
                self.done_chains.add(key)
                chain = small(f"{NAMESPACE}.__lazy_chain__()")
                nxt = body[i + 1] if i + 1 < len(body) else None
                if nxt is not None and nxt.leading_lines and is_blank(nxt.leading_lines[0]):
                    # The blank line after the block: no line moves.
                    body[i + 1] = nxt.with_changes(leading_lines=nxt.leading_lines[1:])
                    body.insert(i + 1, cst.SimpleStatementLine(body=[chain]))
                    origs.insert(i + 1, None)
                elif isinstance(nxt, cst.SimpleStatementLine):
                    body[i + 1] = nxt.with_changes(body=[chain, *nxt.body])
                else:
                    body.insert(i + 1, cst.SimpleStatementLine(body=[chain]))
                    origs.insert(i + 1, None)
                i += 1
            return body, origs

        def insert_header(self, body: list, origs: list, header_lines: list) -> list:
            line = self.plan.header_after_line
            self.header_done = True
            statements = list(cst.parse_module(header_code(self.plan) + "\n").body[0].body)
            if line == 0:
                return self.header_at_top(body, origs, statements, header_lines)
            for i, orig in enumerate(origs):
                if orig is None or not isinstance(orig, cst.SimpleStatementLine):
                    continue
                smalls = orig.body
                ends = [j for j, s in enumerate(smalls) if self.end_line(s) == line]
                if not ends:
                    continue
                # After the docstring / last __future__ import on that line; anything that
                # follows it on the same line comes after the header.
                j = next(
                    (j for j in reversed(ends) if _is_doc_or_future(cst, smalls[j], j == 0 and i == 0)),
                    ends[-1],
                )
                nxt = body[i + 1] if i + 1 < len(body) else None
                counts = self.counts[id(orig)]
                if j == len(smalls) - 1 and (
                    nxt is None or (nxt.leading_lines and is_blank(nxt.leading_lines[0]))
                ):
                    # Take the blank line after it (or add a line after the last statement):
                    # no line moves, and the diff stays readable.
                    if nxt is not None:
                        body[i + 1] = nxt.with_changes(leading_lines=nxt.leading_lines[1:])
                    body.insert(i + 1, cst.SimpleStatementLine(body=statements))
                    return body
                stmt = body[i]
                new = list(stmt.body)
                j = sum(counts[: j + 1]) - 1
                new[j : j + 1] = [new[j].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)] + [
                    s.with_changes(semicolon=cst.MaybeSentinel.DEFAULT) for s in statements[:-1]
                ] + [statements[-1].with_changes(semicolon=new[j].semicolon)]
                body[i] = stmt.with_changes(body=new)
                return body
            raise EmitError(f"no statement ends at header_after_line {line}")

        def header_at_top(self, body: list, origs: list, statements: list, header_lines: list) -> list:
            if not body:
                # An empty package __init__ (comments at most): the header is the module.
                return [cst.SimpleStatementLine(body=statements)]
            first = body[0]
            leading = list(first.leading_lines)
            # Take the blank line right above the first statement (its line number is the
            # count of lines above the statement), unless it is line 1: a coding cookie on
            # line 2 only counts after a comment or blank line 1.
            above = len(header_lines) + len(leading)
            if above >= 2 and leading and is_blank(leading[-1]):
                body[0] = first.with_changes(leading_lines=leading[:-1])
                body.insert(0, cst.SimpleStatementLine(body=statements))
                return body
            if above >= 2 and not leading and is_blank(header_lines[-1]):
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

    return Applier


def _with_prologue(cst, node, param: str):
    """``def __getattr__`` with lazify's prologue first in its body (after the
    docstring): a new line, the only one it adds."""
    line = cst.parse_statement(
        f"if {NAMESPACE}.__lazy_getattr__({param}): return {NAMESPACE}.__lazy_result__({param})\n")
    body = node.body
    if isinstance(body, cst.SimpleStatementSuite):
        # ``def __getattr__(name): return x``: the one-line body becomes a block
        body = cst.IndentedBlock(body=[cst.SimpleStatementLine(body=list(body.body))])
    statements = list(body.body)
    first = statements[0] if statements else None
    index = 1 if (
        isinstance(first, cst.SimpleStatementLine)
        and _is_doc_or_future(cst, first.body[0], True)
        and not isinstance(first.body[0], cst.ImportFrom)
    ) else 0
    statements.insert(index, line)
    return node.with_changes(body=body.with_changes(body=statements))


def _code(cst, node) -> str:
    if node is None:
        return ""
    return cst.Module(body=()).code_for_node(node)


def _is_doc_or_future(cst, node, first: bool) -> bool:
    if isinstance(node, cst.ImportFrom):
        return isinstance(node.module, cst.Name) and node.module.value == "__future__" and not node.relative
    return first and isinstance(node, cst.Expr) and isinstance(node.value, (cst.SimpleString, cst.ConcatenatedString))


def _spread_call(cst, node, module: str | None, aliases: list[str]):
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
    for text, alias in zip(aliases, node.names):
        args.append(cst.Arg(cst.SimpleString(repr(text)), comma=alias.comma))
    if getattr(node, "rpar", None) is not None:
        args[-1] = args[-1].with_changes(whitespace_after_arg=node.rpar.whitespace_before)
    method = "__lazy_import__" if module is None else "__lazy_from__"
    func = cst.Attribute(value=cst.Name(NAMESPACE), attr=cst.Name(method))
    return cst.Call(func=func, args=args)


def _spans_lines(cst, node) -> bool:
    """Whether the import's aliases are spread over several lines."""
    if getattr(node, "lpar", None) is not None:
        return True
    return any(
        isinstance(a.comma, cst.Comma) and "\n" in _code(cst, a.comma.whitespace_after) for a in node.names
    )


def _remove_parenthesized(cst, node, keep: list[bool]):
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
                comma=prev.comma.with_changes(whitespace_after=_merge_ws(cst, prev.comma.whitespace_after, after))
            )
        else:
            lpar_ws = _merge_ws(cst, lpar_ws, after)
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


def _merge_ws(cst, before, after):
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
