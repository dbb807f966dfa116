"""Subprocess scenarios: imports used only in annotations are lazy, and whoever reads
the annotations (``typing.get_type_hints``, ``dataclasses``, ``inspect``, a metaclass)
finds them imported, exactly as in the eager program.

Each scenario runs the same ``main.py`` plain and under ``python -m lazify run`` and
compares what they print; the lazy run also reports when the annotation-only modules
were imported.
"""

from __future__ import annotations

import sys

import pytest

from tests._util import run_python
from tests.test_runtime import write_tree

pytestmark = pytest.mark.skipif(
    sys.version_info >= (3, 14), reason="PEP 649 annotations: names in annotations stay eager"
)

#: Modules the scenarios import only for annotations; none of them is imported by
#: Python's start-up, lazify, typing, dataclasses or inspect.
WATCHED = ("difflib", "pprint", "textwrap", "fractions", "shlex")

SHAPES = {
    "shapes.py": """
        from __future__ import annotations

        import dataclasses
        import typing
        from typing import ClassVar, NamedTuple, TypedDict
        from difflib import Differ
        from pprint import PrettyPrinter
        from textwrap import TextWrapper
        import shlex


        @dataclasses.dataclass
        class Point:
            \"\"\"Fields come from annotations; ClassVar is recognised by name.\"\"\"
            x: Differ
            count: ClassVar[int] = 0


        class Plain:
            a: PrettyPrinter
            b: typing.Optional[shlex.shlex] = None

            def method(self, w: TextWrapper) -> PrettyPrinter:
                return None


        def func(w: TextWrapper, p: "PrettyPrinter" = None) -> typing.List[Differ]:
            return []


        class Row(NamedTuple):
            diff: Differ


        class Options(TypedDict):
            printer: PrettyPrinter


        def late(x: Later) -> None:
            pass

        from fractions import Fraction as Later
    """,
}


def _loaded(names=WATCHED):
    return f"sorted(m for m in {names!r} if m in sys.modules)"


def run_both(tmp_path, main, files=SHAPES):
    write_tree(tmp_path, {**files, "main.py": main})
    plain = run_python(["main.py"], cwd=tmp_path)
    lazy = run_python(["-m", "lazify", "run", "main.py"], cwd=tmp_path)
    assert plain.returncode == 0, plain.stdout + plain.stderr
    assert lazy.returncode == 0, lazy.stdout + lazy.stderr
    return plain.stdout, lazy.stdout


def test_annotation_only_imports_wait_until_annotations_are_read(tmp_path):
    main = f"""
        import sys, typing
        import shapes
        shapes.__name__                 # main's own imports are lazy too
        print("loaded", {_loaded()}, file=sys.stderr)
        print(typing.get_type_hints(shapes.Plain))
        print("after class hints", {_loaded()}, file=sys.stderr)
        print(typing.get_type_hints(shapes.func))
        print(typing.get_type_hints(shapes.Plain.method))
        print(typing.get_type_hints(shapes.late))
    """
    write_tree(tmp_path, {**SHAPES, "main.py": main})
    lazy = run_python(["-m", "lazify", "run", "main.py"], cwd=tmp_path, check=True)
    # Point (a dataclass), Row and Options read their annotations while the module is
    # imported; Plain's and the functions' wait.
    assert "loaded ['difflib', 'pprint']" in lazy.stderr
    assert "after class hints ['difflib', 'pprint', 'shlex']" in lazy.stderr
    plain = run_python(["main.py"], cwd=tmp_path, check=True)
    assert lazy.stdout == plain.stdout
    assert "<class 'textwrap.TextWrapper'>" in lazy.stdout
    assert "<class 'fractions.Fraction'>" in lazy.stdout


def test_dataclass_namedtuple_typeddict_are_the_same(tmp_path):
    main = """
        import dataclasses, typing
        import shapes
        print([f.name for f in dataclasses.fields(shapes.Point)])
        print(shapes.Point.count, shapes.Row._fields, shapes.Options.__annotations__)
        print(typing.get_type_hints(shapes.Point), typing.get_type_hints(shapes.Row))
        print(typing.get_type_hints(shapes.Options))
    """
    plain, lazy = run_both(tmp_path, main)
    assert lazy == plain
    assert "['x']" in lazy


def test_every_way_to_read_the_dict_sees_the_imports(tmp_path):
    main = """
        import copy, inspect, pickle, sys
        import shapes

        def evaluated(ann):
            ns = vars(shapes)
            return {k: eval(v, ns) for k, v in ann.items()}

        ways = {
            "dict": lambda a: dict(a),
            "unpack": lambda a: {**a},
            "copy": lambda a: a.copy(),
            "copy.copy": lambda a: dict(copy.copy(a)),
            "pickle": lambda a: pickle.loads(pickle.dumps(a)),
            "values": lambda a: dict(zip(a.keys(), a.values())),
            "getitem": lambda a: {k: a[k] for k in a},
            "get": lambda a: {k: a.get(k) for k in list(a)},
        }
        for way, read in ways.items():
            for name in list(sys.modules):
                if name in ("textwrap", "pprint", "difflib"):
                    del sys.modules[name]
            vars(shapes).pop("TextWrapper", None)
            import importlib; importlib.reload(shapes)
            ann = read(shapes.func.__annotations__)
            print(way, sorted(evaluated(ann)))
        print(inspect.signature(shapes.func, eval_str=True))
        print(inspect.get_annotations(shapes.Plain, eval_str=True))
    """
    plain, lazy = run_both(tmp_path, main)
    assert lazy == plain
    assert "pickle ['p', 'return', 'w']" in lazy


def test_metaclass_evaluating_at_class_creation(tmp_path):
    """pydantic's pattern: the metaclass reads the namespace's annotations and evaluates
    them against the module's globals while the class is created."""
    files = {
        "models.py": """
            from __future__ import annotations
            import sys
            from difflib import Differ


            class Meta(type):
                def __new__(mcls, name, bases, ns):
                    glob = sys.modules[ns["__module__"]].__dict__
                    hints = {k: eval(v, glob) for k, v in ns.get("__annotations__", {}).items()}
                    ns["hints"] = hints
                    return super().__new__(mcls, name, bases, ns)


            class Model(metaclass=Meta):
                d: Differ
        """,
    }
    plain, lazy = run_both(tmp_path, "import models\nprint(models.Model.hints)\n", files)
    assert lazy == plain == "{'d': <class 'difflib.Differ'>}\n"


def test_plain_dicts_when_nothing_is_pending(tmp_path):
    """With lazy imports off (the rewritten module's imports run eagerly), or once the
    names are bound, the annotations are the very dicts Python made."""
    main = """
        import lazify
        lazify.set_lazy_imports(False)
        import shapes
        print(type(shapes.func.__annotations__) is dict,
              type(shapes.Plain.__dict__["__annotations__"]) is dict)
    """
    write_tree(tmp_path, {**SHAPES, "main.py": main})
    out = run_python(["-m", "lazify", "run", "main.py"], cwd=tmp_path, check=True).stdout
    assert out == "True True\n"


def test_module_level_annotation_keeps_the_name_eager(tmp_path):
    files = {
        "mod.py": """
            from __future__ import annotations
            from difflib import Differ
            from pprint import PrettyPrinter
            default: Differ = None

            def f(p: PrettyPrinter) -> None:
                pass
        """,
    }
    main = f"""
        import sys, typing
        import mod
        mod.__name__
        print({_loaded()})
        print(typing.get_type_hints(mod))
    """
    write_tree(tmp_path, {**files, "main.py": main})
    lazy = run_python(["-m", "lazify", "run", "main.py"], cwd=tmp_path, check=True).stdout
    assert lazy == "['difflib']\n{'default': <class 'difflib.Differ'>}\n"


def test_failed_annotation_import_raises_when_read(tmp_path):
    files = {
        "mod.py": """
            from __future__ import annotations
            from not_installed_anywhere import Thing

            def f(t: Thing) -> None:
                pass
        """,
        "main.py": """
            import typing
            import mod
            print("imported")
            try:
                typing.get_type_hints(mod.f)
            except ModuleNotFoundError as e:
                print("raised", e.name, any("lazify" in n for n in getattr(e, "__notes__", ["lazify"])))
            try:
                typing.get_type_hints(mod.f)
            except ModuleNotFoundError as e:
                print("raised again")
        """,
    }
    write_tree(tmp_path, files)
    out = run_python(["-m", "lazify", "run", "main.py"], cwd=tmp_path, check=True).stdout
    assert out == "imported\nraised not_installed_anywhere True\nraised again\n"


def test_check_reports_annotation_names(tmp_path):
    write_tree(tmp_path, SHAPES)
    out = run_python(["-m", "lazify", "check", "shapes.py"], cwd=tmp_path, check=True).stdout
    line = next(line for line in out.splitlines() if "from textwrap import TextWrapper" in line)
    assert "lazy" in line and "annotations" in line


def test_forward_reference_through_an_alias(tmp_path):
    files = {
        "mod.py": """
            from typing import Optional, TypeVar
            from difflib import Differ
            from pprint import PrettyPrinter

            MaybeDiffer = Optional["Differ"]
            P = TypeVar("P", bound="PrettyPrinter")

            def f(d: MaybeDiffer, p: "P") -> None:
                pass
        """,
    }
    main = """
        import typing
        import mod
        hints = typing.get_type_hints(mod.f)
        print(hints["d"], hints["p"].__bound__)
    """
    plain, lazy = run_both(tmp_path, main, files)
    assert lazy == plain
    assert "difflib.Differ" in lazy
