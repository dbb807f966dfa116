"""What ``lazify check`` adds to the plan: the runtime's mode, and the CI gate.

The planner decides what the import hook compiles; whether a registered import is then
deferred is decided when it runs (:meth:`lazify._importlib_bootstrap._ModuleState.lazy_for`,
and the native mechanism's filter): in global mode every eligible import of a module that is
not excluded, else only those of the modules its ``__lazy_modules__`` names (PEP 810's
opt-in), from the statement that binds it on.  ``check`` applies the same rule to the
plan's verdicts, so that it reports what the runtime does with ``enabled = false`` or
``LAZIFY_DISABLE=1`` too.
"""

from __future__ import annotations

import ast
import os

from ._names import within
from ._reasons import Reason


def lazy_modules(tree: ast.Module, module: str = "", package: str = "") -> tuple[frozenset, int] | None:
    """``(names, line)`` of the module's own ``__lazy_modules__ = ...`` (a list, tuple or
    set, at module level: the first such binding), or None.  Its strings may be
    f-strings of ``__name__``, ``__package__`` and ``__spec__.name``/``.parent`` (packaging
    writes ``f"{__spec__.parent}.specifiers"``); an item beyond that names nothing here."""
    for node in tree.body:
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets = [node.target]
        else:
            continue
        if not any(isinstance(t, ast.Name) and t.id == "__lazy_modules__" for t in targets):
            continue
        value = node.value
        names = set()
        if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
            for item in value.elts:
                text = _static_text(item, module, package)
                if text is not None:
                    names.add(text)
        return frozenset(names), node.end_lineno
    return None


def _static_text(node, module: str, package: str) -> str | None:
    """The value of a string constant or simple f-string, or None."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if not isinstance(node, ast.JoinedStr):
        return None
    known = {"__name__": module, "__package__": package, "__spec__.name": module,
             "__spec__.parent": package}
    out = []
    for part in node.values:
        if isinstance(part, ast.Constant) and isinstance(part.value, str):
            out.append(part.value)
            continue
        if not isinstance(part, ast.FormattedValue) or part.conversion != -1 or part.format_spec:
            return None
        text = ast.unparse(part.value) if hasattr(ast, "unparse") else None
        if text not in known:
            return None
        out.append(known[text])
    return "".join(out)


def is_excluded(module: str, excluding) -> bool:
    """Whether ``excluding`` names ``module`` or a package above it."""
    return bool(excluding) and within(module, excluding)


def never_rewritten(module: str) -> bool:
    """Whether the import hook leaves ``module`` plain whatever the settings: lazify,
    the import system and the modules the rewriter imports (measured on this Python)."""
    from . import _hook

    _hook.plain_modules()
    return _hook.never_rewritten(module)


def plain_packages(imports, excluding) -> tuple:
    """The rewrite's runtime (``_without_catch_up``): ``import a.b`` runs at its statement
    when a package on the way is never rewritten, excluded, or was imported before the
    hook was installed (``plain-package``; :func:`startup_modules`)."""
    from ._plan import replaced

    out = []
    for site in imports:
        if site.kind == "import" and any(n.lazy and not n.explicit and "." in n.module
                                         for n in site.names):
            names = []
            for n in site.names:
                if n.lazy and not n.explicit and "." in n.module:
                    parts = n.module.split(".")
                    parents = [".".join(parts[:i]) for i in range(1, len(parts))]
                    if any(never_rewritten(p) or is_excluded(p, excluding)
                           or p in startup_modules() for p in parents):
                        n = _eager(n, Reason.PLAIN_PACKAGE)
                names.append(n)
            site = replaced(site, names=tuple(names))
        out.append(site)
    return tuple(out)


_STARTUP = []


def startup_modules() -> frozenset:
    """The modules this interpreter has loaded once ``lazify.install()`` returns, in this
    environment (``site``, ``.pth`` files, a ``sitecustomize``): the hook never rewrites
    them.  Measured once, in a child; empty if that fails."""
    if not _STARTUP:
        import subprocess
        import sys

        code = "import sys, lazify; lazify.install(); print(' '.join(sys.modules))"
        try:
            proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                  timeout=60)
            names = frozenset(proc.stdout.split()) if proc.returncode == 0 else frozenset()
        except (OSError, subprocess.SubprocessError):
            names = frozenset()
        _STARTUP.append(names)
    return _STARTUP[0]


def _eager(name, reason):
    from ._plan import replaced

    return replaced(name, lazy=False, reason=reason, used_at_import=None, unused=False,
                     in_annotations=False, resolved_by=())


def restrict(imports, opted, reason, explicit_too: bool = False) -> tuple:
    """The sites with each lazily registered name kept lazy only where ``opted``
    (:func:`lazy_modules`, or None) names its module and the statement comes after it;
    the others eager with ``reason``; a name the planner keeps eager only because the
    module reads it while it is imported (read-at-import) takes ``reason`` too, the one
    that would keep it eager anyway.  ``explicit_too``: PEP 810 ``lazy`` statements of
    the source as well (the native mechanism's filter decides those too)."""
    from ._plan import replaced

    out = []
    for site in imports:
        names = []
        for n in site.names:
            if (n.lazy or n.reason is Reason.READ_AT_IMPORT) \
                    and (explicit_too or not n.explicit) and not (
                    opted is not None and n.module in opted[0] and site.span[0] > opted[1]):
                n = _eager(n, reason)
            names.append(n)
        out.append(replaced(site, names=tuple(names)))
    return tuple(out)


# ------------------------------------------------------------------ the CI gate

#: the tags of a lazy name, as codes (``--fail-on``, the text report's notes)
TAG_CODES = ("explicit", "used-at-import", "unused", "in-annotations", "resolved-by")


def tag_codes(n) -> list[str]:
    """The tag codes of one imported name (none for an eager one)."""
    if not n.lazy:
        return []
    codes = []
    if n.explicit:
        codes.append("explicit")
    if n.used_at_import is not None:
        codes.append("used-at-import")
    if n.unused:
        codes.append("unused")
    if n.in_annotations:
        codes.append("in-annotations")
    if n.resolved_by:
        codes.append("resolved-by")
    return codes


def known_codes() -> tuple[str, ...]:
    """What ``--fail-on`` accepts: ``eager`` (any eager name), every reason code, every tag."""
    reasons = sorted(str(value) for value in vars(Reason).values() if isinstance(value, Reason))
    return ("eager", *reasons, *TAG_CODES)


def parse_fail_on(values) -> frozenset:
    """The codes of ``--fail-on`` (repeatable, comma-separated); ValueError names an
    unknown one, or says none was given: ``--fail-on "$CODES"`` with the variable unset
    must not be a gate that passes whatever it finds."""
    codes = {code.strip() for value in values for code in value.split(",") if code.strip()}
    if values and not codes:
        raise ValueError(f"--fail-on: no code given (known: {', '.join(known_codes())})")
    unknown = sorted(codes - set(known_codes()))
    if unknown:
        raise ValueError(f"--fail-on: unknown code(s) {', '.join(unknown)} "
                         f"(known: {', '.join(known_codes())})")
    return frozenset(codes)


def matched(n, codes) -> list[str]:
    """The codes of ``codes`` that the imported name ``n`` has."""
    if not codes:
        return []
    have = tag_codes(n) if n.lazy else ["eager", str(n.reason)]
    return [code for code in have if code in codes]


def _escape(text: str, prop: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def github_report(results, codes, out) -> None:
    """GitHub Actions workflow commands: an ``::error`` for every file that could not be
    checked and every name ``--fail-on`` matches (shown on the pull request's lines),
    then the summary as plain log lines."""
    for r in results:
        path = r["path"].replace("\\", "/")
        if r["error"] is not None:
            out.write(f"::error file={_escape(path, True)},title=lazify check::"
                      f"{_escape(r['error'])}\n")
            continue
        for site in r["sites"]:
            for n in site.names:
                found = matched(n, codes)
                if not found:
                    continue
                why = n.reason.words if not n.lazy else ", ".join(found)
                verdict = "LAZY" if n.lazy else f"EAGER:{n.reason}"
                out.write(f"::error file={_escape(path, True)},line={site.span[0]},"
                          f"col={site.span[1] + 1},title={_escape('lazify ' + verdict, True)}::"
                          f"{_escape(f'{site.statement} [{n.name}]: {verdict}: {why}')}\n")


def enabled_for(path: str) -> bool:
    """Whether the settings for an application at *path* leave global mode on
    (``[tool.lazify] enabled``, ``LAZIFY_DISABLE``)."""
    from ._config import load_config

    start = path if os.path.isdir(path) else os.path.dirname(os.path.abspath(path))
    return load_config(start).enabled


def check_file(path: str, excluding, strict: bool, mechanism: str = "rewrite",
               enabled: bool = True) -> dict:
    """The report of one file (``lazify check``, ``lazify report``): the plan's verdicts
    as the runtime applies them in global mode (*enabled*) or with global mode off."""
    from . import _deep, _sources

    module, is_package = _sources.module_name_for(path)
    result = {"path": path, "module": module, "error": None, "sites": ()}
    try:
        data, tree = _sources.read_and_parse(path)
    except _sources.SourceError as e:
        result["error"] = e.short()
        return result
    try:
        plan, sites = _deep.call(_planned, path, data, tree, module, is_package, excluding,
                                 mechanism, enabled)
    except _deep.TooDeep as e:
        result["error"] = f"{e}; not checked"
        return result
    except Exception as e:
        if strict:
            raise
        result["error"] = f"lazify internal error: {type(e).__name__}: {e} (please report it)"
        return result
    result["sites"] = sites
    result["takes_rewrite"] = plan.takes_rewrite
    result["audit_hook"] = plan.audit_hook
    return result


def _planned(path, data, tree, module, is_package, excluding, mechanism, enabled):
    """``(plan, sites)`` of one parsed file, as :func:`check_file` reports them (the
    planner's walk is recursive: :mod:`lazify._deep`)."""
    from ._rewrite import plan_source

    opted = lazy_modules(tree, module, module if is_package else module.rpartition(".")[0])
    excluded = is_excluded(module, excluding)
    # the source's own `lazy` statements stay lazy on either mechanism (PEP 810:
    # explicit imports are lazy whatever lazify's settings; the filter lets them be)
    reason = Reason.EXCLUDED if excluded else Reason.NOT_OPTED_IN
    if opted is not None and (excluded or not enabled):
        # the hook rewrites a module that opts in, excluded or not, and the
        # runtime defers the imports of the modules it names
        plan = plan_source(tree, data, path, module=module, is_package=is_package,
                           excluding=None, mechanism=mechanism, future_flags=True)
        sites = restrict(plan.imports, opted, reason)
    else:
        plan = plan_source(tree, data, path, module=module, is_package=is_package,
                           excluding=excluding, mechanism=mechanism, future_flags=True)
        sites = plan.imports
        if not enabled:
            sites = restrict(sites, None, reason)
    if module and never_rewritten(module):
        sites = restrict(sites, None, Reason.MACHINERY)
    elif mechanism == "rewrite":
        sites = plain_packages(sites, excluding)
    return plan, sites


def rows(result: dict):
    """Yield ``(site, imported_name)`` for every name bound in a file, in source order."""
    for site in result["sites"]:
        for name in site.names:
            yield site, name
