"""The source ``lazify rewrite`` and ``lazify diff`` print for one file.

The planner and the libcst emitter (:mod:`lazify._emit_cst`) on the file's bytes, comments
and formatting kept, in the file's own encoding; the output is portable (the same whichever
Python prints it, runnable on all of them).
"""

from __future__ import annotations


class RewriteFailed(Exception):
    """A file that could not be rewritten; the message names the file and the cause."""


def rewrite_file(path: str, excluding=None, mechanism: str = "rewrite") -> tuple[bytes, bytes]:
    """Return ``(original, rewritten)`` bytes for one file, in the file's own encoding.

    A file with nothing to rewrite, or that *excluding* names, comes back unchanged.
    Raises :class:`RewriteFailed` with the path and the parser's message when the file cannot
    be read or parsed.
    """
    from lazify import _deep, _sources
    from lazify._emit_cst import CannotParse

    try:
        data, tree = _sources.read_and_parse(path)
    except _sources.SourceError as e:
        raise RewriteFailed(e.located()) from None
    try:
        return data, _deep.on_large_stack(_rewritten, path, data, tree, excluding, mechanism)
    except _deep.TooDeep as e:
        raise RewriteFailed(f"{path}: {e}; not rewritable by `lazify rewrite`/`diff`, "
                            "left as it is") from None
    except CannotParse as e:
        # Valid for this Python, but libcst cannot parse it (newer syntax than it knows,
        # or a libcst bug): not rewritable here; the import hook rewrites it at run time.
        where = "" if str(e)[:1].isdigit() else " "
        raise RewriteFailed(
            f"{path}:{where}{e}; not rewritable by `lazify rewrite`/`diff` (the import hook, "
            "which uses ast, still rewrites it)") from None
    except Exception as e:
        # A lazify bug (the planner, or a plan the emitter cannot apply): as `check`
        # reports it, unless LAZIFY_STRICT asks for the traceback.
        from lazify._settings import env_flag

        if env_flag("LAZIFY_STRICT"):
            raise
        raise RewriteFailed(f"{path}: lazify internal error: {type(e).__name__}: {e} (please report it)") from None


def _rewritten(path, data, tree, excluding, mechanism):
    """The planner and the libcst emitter on one parsed file (recursive walks both)."""
    from lazify import _sources
    from lazify._emit_cst import emit_cst
    from lazify._rewrite import plan_source

    module, is_package = _sources.module_name_for(path)
    # portable: the same output whichever Python prints it, runnable on all of them
    plan = plan_source(tree, data, path, module=module, is_package=is_package,
                       excluding=excluding, mechanism=mechanism, portable=True)
    return emit_cst(data, plan) if plan.changes_module else data
