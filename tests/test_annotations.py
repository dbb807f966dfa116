"""Subprocess scenarios: imports used only in annotations are lazy, and whoever reads
the annotations (``annotationlib`` in every format, ``typing.get_type_hints``,
``inspect``, ``dataclasses``, ``NamedTuple``/``TypedDict``, pydantic, a metaclass) finds
them imported, exactly as in the eager program.

Each scenario runs the same ``main.py`` plain and under ``python -m lazify run`` and
compares what they print; the lazy run also reports, on stderr, which of the
annotation-only modules were imported after each step. Two shapes of module: with
``from __future__ import annotations`` (strings; every version) and without it, where
3.10-3.13 evaluate annotations where they are written and 3.14+ (PEP 649) when they are
read.
"""

from __future__ import annotations

import sys
import textwrap

import pytest

from tests._sample import chosen, full, sample
from tests._scenario import write_tree
from tests._util import child_mechanism, run_python

PEP649 = sys.version_info >= (3, 14)

#: Modules the scenarios import only for annotations; none of them is imported by
#: Python's start-up, lazify, typing, dataclasses, inspect or annotationlib.
WATCHED = ("difflib", "pprint", "textwrap", "fractions", "shlex", "calendar")

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


def _shapes(future: bool) -> str:
    """The shapes module, with or without ``from __future__ import annotations``."""
    head = "from __future__ import annotations\n" if future else ""
    body = """
        import dataclasses
        import typing
        from dataclasses import InitVar
        from typing import ClassVar, NamedTuple, TypedDict
        from difflib import Differ
        from pprint import PrettyPrinter
        from textwrap import TextWrapper
        from fractions import Fraction
        import shlex
        import calendar

        default: Fraction = None


        @dataclasses.dataclass
        class Point:
            x: Differ
            seed: InitVar[calendar.Calendar] = None
            count: ClassVar[int] = 0

            def __post_init__(self, seed):
                pass


        @dataclasses.dataclass(slots=True, frozen=True)
        class Slotted:
            # slots=True makes a new class from the first one's namespace
            d: Differ
            k: ClassVar[calendar.Calendar] = None


        class Plain:
            a: PrettyPrinter
            b: typing.Optional[shlex.shlex] = None
            if True:
                c: TextWrapper = None

            def method(self, w: TextWrapper) -> PrettyPrinter:
                return None


        def func(w: TextWrapper, p: "PrettyPrinter" = None, *a: Differ, **k: "shlex.shlex") -> typing.List[Differ]:
            return []


        class Row(NamedTuple):
            diff: Differ


        class Options(TypedDict):
            printer: PrettyPrinter
    """
    if future or PEP649:
        # a name imported after the def that mentions it: fine when annotations are
        # not evaluated where they are written
        body += """

        def late(x: Later) -> None:
            pass

        from fractions import Fraction as Later


        # Missing is never defined: VALUE raises NameError, FORWARDREF falls back to
        # annotationlib's fake globals (a ForwardRef for Missing, the real Differ)
        def undefined(x: Missing, y: Differ) -> None:
            pass


        class Partial:
            known: PrettyPrinter
            unknown: Missing
        """
    import textwrap

    return head + textwrap.dedent(body)


#: Every reader this Python has, applied to OBJECTS; annotation-only modules reported on
#: stderr after each step (STRING first: it must import nothing under PEP 649).
READERS = """
    import dataclasses, inspect, re, sys, typing
    try:
        import annotationlib
    except ImportError:
        annotationlib = None
    import MODULE as shapes
    shapes.__name__                 # main's own imports are lazy too

    WATCHED = %r
    def note(step):
        print(step, sorted(m for m in WATCHED if m in sys.modules), file=sys.stderr)

    def show(label, read):
        try:
            value = read()
        except Exception as exc:
            value = f"raised {type(exc).__name__}: {exc}"
        print(label, "=", re.sub(" at 0x[0-9a-f]+", " at 0x...", str(value)))

    OBJECTS = {
        "module": shapes, "Point": shapes.Point, "Plain": shapes.Plain,
        "method": shapes.Plain.method, "func": shapes.func, "Row": shapes.Row,
        "Options": shapes.Options, "Point.__init__": shapes.Point.__init__,
        "Slotted": shapes.Slotted, "Slotted.__init__": shapes.Slotted.__init__,
    }
    for name in ("late", "undefined", "Partial"):
        if hasattr(shapes, name):
            OBJECTS[name] = getattr(shapes, name)
    note("imported")
    if annotationlib is not None:
        for fmt in ("STRING", "FORWARDREF", "VALUE"):
            for name, obj in OBJECTS.items():
                show(f"{name} annotationlib {fmt}", lambda: annotationlib.get_annotations(
                    obj, format=getattr(annotationlib.Format, fmt)))
            note(f"after {fmt}")
    for name, obj in OBJECTS.items():
        show(f"{name} inspect.get_annotations", lambda: inspect.get_annotations(obj))
        show(f"{name} inspect.get_annotations eval_str",
             lambda: inspect.get_annotations(obj, eval_str=True))
        show(f"{name} get_type_hints", lambda: typing.get_type_hints(obj))
        show(f"{name} get_type_hints extras", lambda: typing.get_type_hints(obj, include_extras=True))
        show(f"{name} __annotations__", lambda: dict(obj.__annotations__))
        if callable(obj) and not isinstance(obj, type):
            show(f"{name} signature", lambda: inspect.signature(obj))
            show(f"{name} signature eval_str", lambda: inspect.signature(obj, eval_str=True))
    show("fields", lambda: [(f.name, f.type) for f in dataclasses.fields(shapes.Point)])
    show("Point()", lambda: (shapes.Point(1), shapes.Point.count, inspect.signature(shapes.Point)))
    show("Row", lambda: (shapes.Row._fields, shapes.Row(1)))
    show("Options", lambda: (shapes.Options.__required_keys__, shapes.Options(printer=1)))
    note("read")
""" % (WATCHED,)


@pytest.mark.parametrize("future", [True, False], ids=["future", "no_future"])
def test_every_reader_sees_what_plain_python_sees(tmp_path, future):
    module = "shapes_future" if future else "shapes_now"
    files = {f"{module}.py": _shapes(future), "main.py": READERS.replace("MODULE", module)}
    write_tree(tmp_path, files)
    plain = run_python(["main.py"], cwd=tmp_path, check=True)
    lazy = run_python(["-m", "lazify", "run", "main.py"], cwd=tmp_path, check=True)
    assert lazy.stdout == plain.stdout
    # (3.10's get_type_hints rejects InitVar: plain and lazy raise the same there.)
    assert "__lazy__" not in lazy.stdout
    if sys.version_info >= (3, 11):
        assert all("Missing" in line for line in lazy.stdout.splitlines() if "raised" in line)
    steps = {}
    for line in lazy.stderr.splitlines():
        step, _, loaded = line.rpartition(" [")
        steps[step] = "[" + loaded
    everything = repr(sorted(WATCHED))
    if child_mechanism() == "native":
        # The interpreter reifies a name wherever it is read: no annotation keeps one
        # eager. On import, what the classes read: dataclasses resolves a string
        # annotation with getattr on the module (Differ); PEP 649: the dataclasses',
        # NamedTuple's and TypedDict's own annotations. 3.15's annotationlib calls
        # __annotate__ with the real globals before STRING's fake ones: that reads, and
        # imports, every name (as under -X lazy_imports=all).
        if future:
            assert steps["imported"] == "['difflib']"
            assert steps["after FORWARDREF"] == steps["imported"]
        else:
            assert steps["imported"] == "['calendar', 'difflib', 'pprint']"
            assert steps["after STRING"] == everything
    elif not PEP649 or future:
        # The dataclass, the NamedTuple and the TypedDict read their annotations while
        # the module is imported; a module-level annotation (default: Fraction) and one
        # in a block of a class body (if True: c: TextWrapper) keep their names eager.
        # (3.10-3.13 evaluate annotations where they are written: those of defs and
        # class bodies, such as Plain's shlex.shlex, are evaluated on read instead.)
        assert steps["imported"] == "['calendar', 'difflib', 'fractions', 'pprint', 'textwrap']"
    else:
        # The same, and the module's and Plain's __annotate__ import on read.
        assert steps["imported"] == "['calendar', 'difflib', 'pprint']"
        # STRING asks the compiler's __annotate__ for text: it imports nothing.
        assert steps["after STRING"] == steps["imported"]
    if PEP649 and not (future and child_mechanism() == "native"):
        assert steps["after FORWARDREF"] == everything
    assert steps["read"] == everything


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
    # (natively Options' string annotations are not evaluated: pprint waits too)
    loaded = "['difflib']" if child_mechanism() == "native" else "['difflib', 'pprint']"
    assert f"loaded {loaded}" in lazy.stderr
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


EVALUATED = {
    "evaluated.py": """
        import functools
        import typing
        from difflib import Differ
        from pprint import PrettyPrinter
        import textwrap
        import shlex


        def func(d: Differ, n: int = 0, *a: typing.Optional[shlex.shlex]) -> list[PrettyPrinter]:
            return []


        class Plain:
            name: str = "x"
            printer: PrettyPrinter | None = None
            wrapper: textwrap.TextWrapper

            def method(self, d: Differ) -> "PrettyPrinter":
                return None


        @functools.wraps(func)
        def wrapper(*args):
            return func(*args)
    """,
}


#: Each way of reading an annotations dict first; the default run checks a sample of
#: eight of them (tests/_sample.py), LAZIFY_FULL_TESTS=1 every one.
FIRST_READS = [
    "repr(ann)", "str(ann)", "ann == dict(ann)", "ann != {}", "dict(ann)", "{**ann}",
    "ann.copy()", "copy.copy(ann)", "copy.deepcopy(ann)", "pickle.loads(pickle.dumps(ann))",
    "list(ann.values())", "list(ann.items())", "[ann[k] for k in ann]",
    "[ann.get(k) for k in ann]", "ann | {}", "{} | ann", "json.dumps(ann, default=repr)",
    "typing.get_type_hints(OWNER)", "inspect.get_annotations(OWNER)",
    "inspect.signature(OWNER) if callable(OWNER) and not isinstance(OWNER, type) else 0",
    "[(k, ann.pop(k)) for k in list(ann)]", "ann.setdefault('n')", "ann.update(x=1) or ann",
]


@pytest.fixture(scope="module")
def first_reads(tmp_path_factory):
    """Each way of the sample read first in a process of its own, forked from one
    ``python main.py`` and one ``lazify run main.py`` before ``evaluated`` is imported
    (a fresh interpreter per way cost two starts a way): ``{way: (plain, lazy)}``, each
    ``(stdout, stderr)`` of the way's process."""
    ways = FIRST_READS if full() else sorted(chosen(FIRST_READS, 8), key=FIRST_READS.index)
    branches = "".join(f"""
            {'if' if i == 0 else 'elif'} i == {i}:
                print({way})""" for i, way in enumerate(ways))
    main = f"""
        import copy, inspect, json, os, pickle, sys, typing
        for i in range({len(ways)}):
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid:
                os.waitpid(pid, 0)
                continue
            print("== way", i)
            print("== way", i, file=sys.stderr)
            import evaluated
            for OWNER in (evaluated.func, evaluated.Plain, evaluated.Plain.method, evaluated.wrapper):
                ann = OWNER.__annotations__
                print(sorted(ann), len(ann), "d" in ann)
                print({_loaded()}, file=sys.stderr)
    {textwrap.indent(textwrap.dedent(branches), " " * 16)}
                print(OWNER.__annotations__)
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(0)
    """
    root = tmp_path_factory.mktemp("first-reads")
    write_tree(root, {**EVALUATED, "main.py": main})
    plain = run_python(["main.py"], cwd=root, check=True)
    lazy = run_python(["-m", "lazify", "run", "main.py"], cwd=root, check=True)

    def blocks(text):
        parts = text.split("== way ")[1:]
        assert len(parts) == len(ways), text
        return [part.split("\n", 1)[1] for part in parts]

    return {way: ((p_out, p_err), (l_out, l_err)) for way, p_out, p_err, l_out, l_err in
            zip(ways, blocks(plain.stdout), blocks(plain.stderr), blocks(lazy.stdout),
                blocks(lazy.stderr))}


@pytest.mark.parametrize("way", sample(FIRST_READS, 8))
def test_annotations_evaluated_on_read_first_read(first_reads, way):
    """Annotations evaluated where they are written (before 3.14; on 3.14+ PEP 649 does
    it): lazify evaluates those of defs and class bodies when the dict is read instead.
    Whatever reads the dict first sees what plain Python had; keys need nothing."""
    (plain, _plain_err), (lazy, lazy_err) = first_reads[way]
    assert lazy == plain
    assert lazy.splitlines()[0] == "['a', 'd', 'n', 'return'] 4 True"
    if not PEP649:
        # keys, length and membership import nothing (on 3.14+ reading
        # __annotations__ calls __annotate__, which evaluates them all)
        assert lazy_err.splitlines()[0] == "[]", lazy_err


def test_annotations_evaluated_on_read_in_class_body_and_singledispatch(tmp_path):
    files = {
        "disp.py": """
            import functools
            import sys
            import typing
            from decimal import Decimal
            from fractions import Fraction


            @functools.singledispatch
            def show(x):
                return "object"


            @show.register
            def _(x: Decimal) -> str:
                return "decimal"


            class Record(typing.NamedTuple):
                amount: Fraction
                note: typing.Optional[str] = None


            class Body:
                value: Fraction = None
                if sys.version_info < (3, 14):   # 3.14: no __annotations__ in the body
                    keys = sorted(__annotations__)
                    seen = repr(__annotations__)
                else:
                    keys = seen = None
        """,
    }
    main = """
        import sys
        import disp
        from decimal import Decimal
        print(disp.show(Decimal(1)), disp.show(1))
        print(disp.Record.__annotations__, disp.Record(1))
        print(disp.Body.keys, disp.Body.seen)
    """
    plain, lazy = run_both(tmp_path, main, files)
    assert lazy == plain
    assert "decimal object" in lazy


@pytest.mark.skipif(PEP649, reason="before 3.14: annotations evaluated where written")
def test_annotation_evaluated_on_read_while_another_reader_imports(tmp_path):
    """A second thread reading while the first one imports the names (the dict's names
    already taken) evaluates the annotation itself: never lazify's placeholder."""
    main = """
        import evaluated
        ann = evaluated.func.__annotations__
        ann._lazify_names = ()          # what another thread's first read leaves meanwhile
        print(ann["d"], ann["return"], repr(ann) == repr(dict(ann)))
    """
    plain = "<class 'difflib.Differ'> list[pprint.PrettyPrinter] True\n"
    write_tree(tmp_path, {**EVALUATED, "main.py": main})
    lazy = run_python(["-m", "lazify", "run", "main.py"], cwd=tmp_path, check=True)
    assert lazy.stdout == plain


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
    # natively the name stays lazy: get_type_hints' evaluation reifies it
    eager = "[]" if child_mechanism() == "native" else "['difflib']"
    assert lazy == f"{eager}\n{{'default': <class 'difflib.Differ'>}}\n"


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


@pytest.mark.rewrite_only("in-annotations is the rewrite's verdict; natively it does not apply")
def test_check_reports_annotation_names(tmp_path):
    write_tree(tmp_path, SHAPES)
    out = run_python(["-m", "lazify", "check", "shapes.py"], cwd=tmp_path, check=True).stdout
    line = next(line for line in out.splitlines() if "from textwrap import TextWrapper" in line)
    assert line.split()[-2:] == ["LAZY", "in-annotations"]


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


@pytest.mark.parametrize("future", [True, False], ids=["future", "no_future"])
def test_pydantic_models_are_the_same(tmp_path, future):
    pytest.importorskip("pydantic")
    head = "from __future__ import annotations\n" if future else ""
    files = {
        "models.py": head + """
import typing
import pydantic
from decimal import Decimal
from fractions import Fraction


class Model(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(arbitrary_types_allowed=True)
    price: Decimal
    ratio: typing.Optional[Fraction] = None
""",
    }
    main = """
        import sys
        import models
        models.__name__
        print([m for m in ("decimal", "fractions") if m in sys.modules], file=sys.stderr)
        print(repr(models.Model(price="1.5")), models.Model.model_fields)
        print(models.Model.model_json_schema())
    """
    write_tree(tmp_path, {**files, "main.py": main})
    plain = run_python(["main.py"], cwd=tmp_path, check=True)
    lazy = run_python(["-m", "lazify", "run", "main.py"], cwd=tmp_path, check=True)
    assert lazy.stdout == plain.stdout
    assert "Decimal('1.5')" in lazy.stdout
    # pydantic reads the annotations while the class is created
    assert lazy.stderr == "['decimal', 'fractions']\n"


@pytest.mark.skipif(not PEP649, reason="PEP 649: metaclasses read __annotate__ from the namespace")
def test_metaclass_calling_the_namespace_annotate(tmp_path):
    """typing.NamedTuple's way on 3.14: the metaclass takes ``__annotate__`` from the class
    namespace (annotationlib.get_annotate_from_class_namespace) and calls it."""
    files = {
        "models.py": """
            import annotationlib
            from difflib import Differ
            from pprint import PrettyPrinter


            class Meta(type):
                def __new__(mcls, name, bases, ns):
                    annotate = annotationlib.get_annotate_from_class_namespace(ns)
                    ns["forward"] = annotationlib.call_annotate_function(
                        annotate, annotationlib.Format.FORWARDREF)
                    ns["string"] = annotationlib.call_annotate_function(
                        annotate, annotationlib.Format.STRING)
                    return super().__new__(mcls, name, bases, ns)


            class Model(metaclass=Meta):
                d: Differ
                p: "PrettyPrinter"
        """,
    }
    plain, lazy = run_both(tmp_path, "import models\nprint(models.Model.forward, models.Model.string)\n", files)
    assert lazy == plain == "{'d': <class 'difflib.Differ'>, 'p': 'PrettyPrinter'} {'d': 'Differ', 'p': 'PrettyPrinter'}\n"


@pytest.mark.parametrize("future", [True, False], ids=["future", "no_future"])
def test_wraps_and_singledispatch(tmp_path, future):
    head = "from __future__ import annotations\n" if future else ""
    files = {
        "funcs.py": head + """
import functools
from difflib import Differ
from pprint import PrettyPrinter


def original(p: PrettyPrinter) -> Differ:
    return None


@functools.wraps(original)
def wrapper(*args, **kwargs):
    return original(*args, **kwargs)


@functools.singledispatch
def describe(arg):
    return "object"


@describe.register
def _(arg: int) -> str:
    return "int"
""",
    }
    main = """
        import inspect, sys, typing
        import funcs
        funcs.__name__
        print([m for m in ("difflib", "pprint") if m in sys.modules], file=sys.stderr)
        print(inspect.signature(funcs.wrapper), typing.get_type_hints(funcs.wrapper))
        print(funcs.describe(1), funcs.describe("x"))
    """
    write_tree(tmp_path, {**files, "main.py": main})
    plain = run_python(["main.py"], cwd=tmp_path, check=True)
    lazy = run_python(["-m", "lazify", "run", "main.py"], cwd=tmp_path, check=True)
    assert lazy.stdout == plain.stdout
    if future or PEP649:
        assert lazy.stderr == "[]\n"


@pytest.mark.skipif(not PEP649, reason="PEP 649: annotations evaluated when read")
def test_module_level_annotations_import_on_read(tmp_path):
    files = {
        "mod.py": """
            from difflib import Differ
            from pprint import PrettyPrinter
            default: Differ = None
            if default is None:
                other: PrettyPrinter
        """,
    }
    main = f"""
        import annotationlib, sys, typing
        import mod
        mod.__name__
        print({_loaded()})
        print(annotationlib.get_annotations(mod, format=annotationlib.Format.STRING))
        print({_loaded()})
        print(typing.get_type_hints(mod), mod.__annotations__)
        print({_loaded()})
    """
    write_tree(tmp_path, {**files, "main.py": main})
    plain = run_python(["main.py"], cwd=tmp_path, check=True).stdout.splitlines()
    lazy = run_python(["-m", "lazify", "run", "main.py"], cwd=tmp_path, check=True).stdout.splitlines()
    # 3.15's annotationlib calls __annotate__ with the real globals before STRING's fake
    # ones: natively that imports the names (as under -X lazy_imports=all)
    assert lazy[0] == "[]"
    assert lazy[2] == ("['difflib', 'pprint']" if child_mechanism() == "native" else "[]")
    assert lazy[1] == plain[1] == "{'default': 'Differ', 'other': 'PrettyPrinter'}"
    assert lazy[3] == plain[3]
    assert lazy[4] == "['difflib', 'pprint']"


@pytest.mark.skipif(not PEP649, reason="PEP 649: annotations evaluated when read")
def test_failed_annotation_import_raises_when_read_pep649(tmp_path):
    files = {
        "mod.py": """
            from not_installed_anywhere import Thing

            def f(t: Thing) -> None:
                pass
        """,
        "main.py": """
            import annotationlib, typing
            import mod
            print("imported", annotationlib.get_annotations(mod.f, format=annotationlib.Format.STRING))
            for attempt in ("raised", "raised again"):
                try:
                    typing.get_type_hints(mod.f)
                except ModuleNotFoundError as e:
                    # where the import is: lazify's note, or natively the ImportError
                    # it is chained from (PEP 810)
                    print(attempt, e.name, any("lazify" in n for n in getattr(e, "__notes__", ()))
                          or isinstance(e.__cause__, ImportError))
        """,
    }
    write_tree(tmp_path, files)
    out = run_python(["-m", "lazify", "run", "main.py"], cwd=tmp_path, check=True).stdout
    assert out == (
        "imported {'t': 'Thing', 'return': 'None'}\n"
        "raised not_installed_anywhere True\nraised again not_installed_anywhere True\n"
    )


@pytest.mark.skipif(not PEP649, reason="PEP 649: __annotate__ functions")
def test_compiler_annotate_when_nothing_is_pending(tmp_path):
    """When every name is bound by the time a function, class or the module is defined
    (here: all already imported, so the lazy imports bind them at once), they keep the
    compiler's own ``__annotate__``; lazily, they get lazify's (the rewrite's: natively
    the compiler's, always)."""
    files = {"shapes_now.py": _shapes(False)}
    main = """
        import importlib, sys, types
        if sys.argv[1:] == ["loaded"]:
            # typing and dataclasses too: lazify run no longer imports them itself
            for name in (*%r, "typing", "dataclasses"):
                importlib.import_module(name)
        import shapes_now as shapes
        shapes.__name__
        print(type(shapes.func.__annotate__) is types.FunctionType,
              type(shapes.Plain.__annotate__) is types.FunctionType,
              "__annotate__" in vars(shapes.Plain),
              type(vars(shapes)["__annotate__"]) is types.FunctionType)
    """ % (WATCHED,)
    write_tree(tmp_path, {**files, "main.py": main})
    loaded = run_python(["-m", "lazify", "run", "main.py", "loaded"], cwd=tmp_path, check=True).stdout
    assert loaded == "True True False True\n"
    lazy = run_python(["-m", "lazify", "run", "main.py"], cwd=tmp_path, check=True).stdout
    # the native mechanism writes no __annotate__ of its own: the compiler's, always
    assert lazy == ("True True False True\n" if child_mechanism() == "native"
                    else "False False True False\n")


@pytest.mark.skipif(not PEP649, reason="3.14+: annotationlib evaluates type aliases and bounds")
def test_type_alias_values_and_bounds_read_as_written(tmp_path):
    """Their names stay eager on 3.14+ (deferred-annotation): nothing could import them
    first, and a routed read would show as ``__lazy__.json`` in STRING format."""
    files = {
        "ta.py": """
            import json
            type Alias = json.JSONDecoder
            def f[T: json.JSONEncoder](x: T) -> T:
                return x
        """,
    }
    main = """
        import annotationlib as a
        import ta
        T = ta.f.__type_params__[0]
        for fmt in (a.Format.STRING, a.Format.FORWARDREF, a.Format.VALUE):
            print(a.call_evaluate_function(ta.Alias.evaluate_value, fmt),
                  a.call_evaluate_function(T.evaluate_bound, fmt))
    """
    plain, lazy = run_both(tmp_path, main, files)
    assert lazy == plain
    assert lazy.splitlines()[0] == "json.JSONDecoder json.JSONEncoder"
    write_tree(tmp_path, files)
    # the rewrite's verdict (natively deferred-annotation does not apply)
    out = run_python(["-m", "lazify", "check", "--mechanism", "rewrite", "ta.py"], cwd=tmp_path,
                     check=True).stdout
    line = next(line for line in out.splitlines() if "import json" in line)
    assert line.split()[-1] == "EAGER:deferred-annotation"
    assert "type alias value" in out[out.index("\nReasons:\n"):]
