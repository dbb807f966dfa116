"""Subprocess scenarios: a module that reads its own namespace inside a function.

PEP 690 completes a module's namespace dict whenever code looks at it. A read
inside a function happens when the function is called, so the module's imports
stay lazy until then, and a read that needs one name (``globals()[name]``) or
only the keys (``sorted(globals())``) imports that name, or nothing. Each test
runs ``main.py`` plainly and under ``lazify run`` and states both outputs: the
values must be the same; which of the module's imports are loaded differs, and
is printed before and after the call.
"""

from __future__ import annotations

import sys

from tests._scenario import write_tree
from tests._util import child_mechanism, run_python

#: Three modules the scenarios import; ``loaded()`` in main.py lists which are in
#: sys.modules.
LEAVES = {
    "alpha.py": "NAME = 'alpha'\n",
    "beta.py": "NAME = 'beta'\n",
    "gamma.py": "NAME = 'gamma'\n",
}

LOADED = """
        import sys

        def loaded():
            return "".join(m[0] for m in ("alpha", "beta", "gamma") if m in sys.modules) or "-"
"""


def run_both(tmp_path, files):
    """``(plain stdout lines, lazified stdout lines)`` of main.py; both must exit 0."""
    write_tree(tmp_path, {**LEAVES, **files})
    plain = run_python(["main.py"], cwd=tmp_path)
    assert plain.returncode == 0, plain.stdout + plain.stderr
    lazy = run_python(["-m", "lazify", "run", "main.py"], cwd=tmp_path)
    assert lazy.returncode == 0, lazy.stdout + lazy.stderr
    return plain.stdout.splitlines(), lazy.stdout.splitlines()


def test_registry_looks_one_name_up(tmp_path):
    plain, lazy = run_both(tmp_path, {"registry.py": """
        import alpha
        import beta
        from gamma import NAME as gamma_name

        def find(name):
            return globals()[name]

        def find_or(name, default=None):
            return globals().get(name, default)

        def known(name):
            return name in globals()
    """, "main.py": LOADED + """
        import registry
        print(loaded())
        print(registry.known("beta"), registry.known("delta"), loaded())
        print(registry.find("beta").NAME, loaded())
        print(registry.find_or("gamma_name"), registry.find_or("delta", "none"), loaded())
        try:
            registry.find("delta")
        except KeyError as exc:
            print("KeyError", exc, loaded())
    """})
    assert plain == ["abg", "True False abg", "beta abg", "gamma none abg", "KeyError 'delta' abg"]
    assert lazy == ["-", "True False -", "beta b", "gamma none bg", "KeyError 'delta' bg"]


def test_globals_as_a_whole_imports_the_module_pending_names(tmp_path):
    plain, lazy = run_both(tmp_path, {"mod.py": """
        import alpha
        import beta

        def modules():
            return sorted(k for k, v in globals().items() if type(v).__name__ == "module")
    """, "main.py": LOADED + """
        import gamma, mod
        print(loaded())
        print(mod.modules(), loaded())
    """})
    assert plain == ["abg", "['alpha', 'beta'] abg"]
    assert lazy == ["-", "['alpha', 'beta'] ab"]


def test_dir_built_from_globals_lists_pending_names_without_importing(tmp_path):
    plain, lazy = run_both(tmp_path, {"mod.py": """
        import alpha
        from beta import NAME

        def __dir__():
            return [name for name in globals() if not name.startswith("_")] + ["extra"]
    """, "plain_dir.py": """
        import gamma
    """, "main.py": LOADED + """
        import mod, plain_dir
        print(dir(mod), loaded())
        print([n for n in dir(plain_dir) if not n.startswith("_")], loaded())
        print(mod.NAME, loaded())
    """})
    assert plain == ["['NAME', 'alpha', 'extra'] abg", "['gamma'] abg", "beta abg"]
    assert lazy == ["['NAME', 'alpha', 'extra'] -", "['gamma'] -", "beta b"]


def test_all_computed_in_a_function(tmp_path):
    plain, lazy = run_both(tmp_path, {"mod.py": """
        import alpha
        from beta import NAME
        import gamma as _gamma

        def _public():
            return sorted(name for name in globals() if not name.startswith("_"))

        __all__ = _public()
    """, "main.py": LOADED + """
        import mod
        print(mod.__all__, loaded())
        from mod import *
        print(NAME, alpha.NAME, loaded())
    """})
    assert plain == ["['NAME', 'alpha'] abg", "beta alpha abg"]
    assert lazy == ["['NAME', 'alpha'] -", "beta alpha ab"]


def test_eval_and_exec_in_a_function_see_globals_and_locals(tmp_path):
    plain, lazy = run_both(tmp_path, {"calc.py": """
        import alpha
        import beta

        def calc(src):
            factor = 10
            return eval(src)

        def run(src):
            value = 1
            exec(src)
            return sorted(locals())

        def run_in(src, namespace):
            exec(src, None, namespace)
            return sorted(namespace)
    """, "main.py": LOADED + """
        import calc
        print(loaded())
        print(calc.calc("factor * len(alpha.NAME)"), loaded())
        print(calc.run("result = value + 1"), calc.run_in("local = beta.NAME", {}), loaded())
    """})
    # exec(src) writes into the caller's locals() snapshot: from 3.13 on (PEP 667)
    # a later locals() is a new snapshot without "result"; the rewrite passes that
    # same locals() explicitly, so it matches on every version
    names = "['result', 'src', 'value']" if sys.version_info < (3, 13) else "['src', 'value']"
    assert plain == ["ab", "50 ab", f"{names} ['local'] ab"]
    # the rewrite imports a module's pending names before eval/exec; natively their
    # LOAD_NAME reifies what they read
    evaluated = "50 a" if child_mechanism() == "native" else "50 ab"
    assert lazy == ["-", evaluated, f"{names} ['local'] ab"]


def test_running_frame_globals(tmp_path):
    plain, lazy = run_both(tmp_path, {"mod.py": """
        import sys
        import alpha

        def namespace_names():
            return sorted(k for k in sys._getframe().f_globals if not k.startswith("_"))
    """, "main.py": LOADED + """
        import mod
        print(loaded())
        print(mod.namespace_names(), loaded())
    """})
    assert plain == ["a", "['alpha', 'namespace_names', 'sys'] a"]
    assert lazy == ["-", "['alpha', 'namespace_names', 'sys'] a"]


def test_user_getattr_using_globals_imports_only_what_it_serves(tmp_path):
    plain, lazy = run_both(tmp_path, {"pkg/__init__.py": """
        import alpha
        import beta
        import gamma

        _ALIASES = {"first": "alpha", "second": "beta"}

        def __getattr__(name):
            if name in _ALIASES:
                return globals()[_ALIASES[name]]
            if name == "everything":
                return sorted(k for k, v in globals().items() if type(v).__name__ == "module")
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

        def __dir__():
            return sorted(globals().keys() | set(_ALIASES))
    """, "main.py": LOADED + """
        import pkg
        print(loaded())
        print(pkg.first.NAME, loaded())
        print(hasattr(pkg, "missing"), loaded())
        print([n for n in dir(pkg) if not n.startswith("_")], loaded())
        print(pkg.everything, loaded())
    """})
    assert plain == ["abg", "alpha abg", "False abg",
                     "['alpha', 'beta', 'first', 'gamma', 'second'] abg",
                     "['alpha', 'beta', 'gamma'] abg"]
    assert lazy == ["-", "alpha a", "False a",
                    "['alpha', 'beta', 'first', 'gamma', 'second'] a",
                    "['alpha', 'beta', 'gamma'] abg"]


def test_failed_import_surfaces_at_the_read(tmp_path):
    # PEP 690: the error of a deferred import is raised where the name is first
    # needed, here by the read (a lookup of another name does not raise it)
    write_tree(tmp_path, {**LEAVES, "broken.py": """
        import alpha
        import missing_module_for_the_test

        def find(name):
            return globals()[name]

        def everything():
            return globals().copy()
    """, "attempt.py": """
        def attempt(function):
            try:
                function()
            except ImportError as exc:
                print(type(exc).__name__, exc.name)
    """, "main.py": LOADED + """
        # no ImportError handler in this module: on 3.10 naming one makes lazify
        # import its modules' dependencies at once (a plugin's missing dependency
        # must raise inside the caller's try)
        from attempt import attempt
        import broken
        print("imported", loaded())
        print(broken.find("alpha").NAME, loaded())
        attempt(broken.everything)
        print(broken.find("alpha").NAME, loaded())
    """})
    plain = run_python(["main.py"], cwd=tmp_path)
    assert plain.returncode == 1 and "ModuleNotFoundError" in plain.stderr
    lazy = run_python(["-m", "lazify", "run", "main.py"], cwd=tmp_path)
    assert lazy.returncode == 0, lazy.stdout + lazy.stderr
    assert lazy.stdout.splitlines() == [
        "imported -", "alpha a", "ModuleNotFoundError missing_module_for_the_test", "alpha a"]


def test_lookup_forms_behave_as_on_the_dict(tmp_path):
    plain, lazy = run_both(tmp_path, {"mod.py": """
        import alpha
        import beta

        counter = 0

        def bump(name):
            globals()[name] += 1
            return globals()[name]

        def forget(name):
            del globals()[name]
            return name in globals(), globals().get(name, "gone")

        def unhashable():
            try:
                return globals()[["alpha"]]
            except TypeError as exc:
                return type(exc).__name__
    """, "main.py": LOADED + """
        import mod
        print(mod.bump("counter"), mod.bump("counter"), mod.unhashable(), loaded())
        print(mod.forget("beta"), loaded())
        print(hasattr(mod, "beta"), loaded())
    """})
    assert plain == ["1 2 TypeError ab", "(False, 'gone') ab", "False ab"]
    # del imports the name first (the eager module had it), then deletes it
    assert lazy == ["1 2 TypeError -", "(False, 'gone') b", "False b"]


def test_writes_through_an_alias_of_globals_at_import_keep_the_module_lazy(tmp_path):
    """inspect's shape: ``mod_dict = globals()`` written through and deleted while the
    module is imported; its imports stay lazy and the written names are there."""
    plain, lazy = run_both(tmp_path, {"flags.py": """
        import alpha
        import beta

        mod_dict = globals()
        for _k, _v in {"ONE": 1, "TWO": 2}.items():
            mod_dict["FLAG_" + _k] = _v
        del mod_dict["FLAG_TWO"]
        del _k, _v, mod_dict

        def name():
            return alpha.NAME
    """, "main.py": LOADED + """
        import flags
        print(loaded(), flags.FLAG_ONE, hasattr(flags, "FLAG_TWO"), hasattr(flags, "mod_dict"))
        print(flags.name(), loaded())
    """})
    assert plain == ["ab 1 False False", "alpha ab"]
    assert lazy == ["- 1 False False", "alpha a"]


#: click.parser's shape: deprecated aliases served from ``globals()`` by an f-string key
#: built from a name an ``if name in {...}`` narrows
ALIASES = """
    import alpha
    from beta import NAME as _beta_name

    def _Old():
        return "old"

    def __getattr__(name):
        if name in {"Old", "Older"}:
            return globals()[f"_{name}"]
        raise AttributeError(name)
"""


def test_an_f_string_key_of_narrowed_names_imports_only_those(tmp_path):
    plain, lazy = run_both(tmp_path, {"mod.py": ALIASES, "main.py": LOADED + """
        import mod
        print(loaded())
        print(mod.Old(), loaded())
        try:
            mod.Older
        except KeyError as exc:
            print("KeyError", exc, loaded())
        print(mod._beta_name, loaded())
    """})
    assert plain == ["ab", "old ab", "KeyError '_Older' ab", "beta ab"]
    assert lazy == ["-", "old -", "KeyError '_Older' -", "beta b"]


def test_an_f_string_key_of_narrowed_names_keeps_the_module_native():
    import ast
    import textwrap

    from lazify._plan import plan_module

    def takes_rewrite(source):
        source = textwrap.dedent(source)
        tree = compile(source, "mod.py", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
        return plan_module(tree, module="mod", mechanism="native", source=source).takes_rewrite

    assert takes_rewrite(ALIASES) == ""
    # a name not narrowed, or a formatted part: any key (natively, the rewrite serves it)
    assert takes_rewrite(ALIASES.replace('f"_{name}"', 'f"{name.lower()}"')) == "namespace-read"
    assert takes_rewrite(ALIASES.replace('{name}', '{name!r}')) == "namespace-read"
    assert takes_rewrite(ALIASES.replace('if name in {"Old", "Older"}:', 'if name:')) \
        == "namespace-read"
