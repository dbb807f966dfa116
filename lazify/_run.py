"""``lazify run``: run a program as ``python`` would, with global lazy imports (PEP 690's ``-L``).

The targets are python's: ``-m MODULE``, ``-c CODE``, ``-`` (standard input), a script
path, and, beyond python, the name of a console script found on ``PATH`` or beside the
interpreter (:func:`scripts_directory`; run as
``python /path/to/script`` would run it).  Each gets the ``sys.argv``, ``__name__``,
``sys.path[0]``, exit status and traceback python gives it.

This module is on the start-up path of every program ``lazify run`` starts, before the
program's own imports, so it parses its few options by hand (no ``argparse``, no
``typing``) and imports nothing that the program might want to import lazily; the
rewriter is imported only when a module's cached rewrite is missing.
"""

import os
import sys

PROG = "lazify run"
USAGE = (f"usage: {PROG} [--mechanism {{native,rewrite}}] [--summary] "
         "(-m MODULE | -c CODE | - | SCRIPT | COMMAND) [ARGS ...]")
HELP = f"""{USAGE}

Run a program with lazify's import hook in global mode, as python would run it.

targets:
  -m MODULE       run a module, like `python -m MODULE`
  -c CODE         run a string, like `python -c CODE`
  -               run the program read from standard input, like `python -`
  SCRIPT          run a script, a directory or a zip file with __main__.py
  COMMAND         a console script on PATH or beside lazify's interpreter
                  (`lazify run http --version`)
  ARGS            passed on as sys.argv[1:]

options:
  -h, --help      show this help and exit
  --mechanism {{native,rewrite}}
                  native: PEP 810 lazy statements (3.15+); rewrite: lazify's
                  generated code (default: [tool.lazify] mechanism,
                  LAZIFY_MECHANISM, else native on 3.15+)
  --summary       print what was deferred and never needed at exit (stderr);
                  also LAZIFY_SUMMARY=1
"""


class UsageError(Exception):
    """A command line ``lazify run`` cannot use: printed under its usage line, exit 2."""


class Options:
    __slots__ = ("kind", "target", "args", "mechanism", "summary")

    def __init__(self, kind, target, args, mechanism=None, summary=False):
        #: "module", "code", "stdin" or "path" (a script, or a command on PATH)
        self.kind = kind
        self.target = target
        self.args = args
        self.mechanism = mechanism
        self.summary = summary


def parse(argv) -> "Options | None":
    """The options of ``lazify run ARGV``; None for ``--help``.  Everything after the
    target is the program's.  UsageError for a command line ``run`` cannot use."""
    mechanism = None
    summary = False
    i = 0
    n = len(argv)
    while i < n:
        arg = argv[i]
        if arg in ("-h", "--help"):
            return None
        if arg == "--summary":
            summary = True
        elif arg == "--mechanism" or arg.startswith("--mechanism="):
            if "=" in arg:
                value = arg.partition("=")[2]
            elif i + 1 < n:
                i += 1
                value = argv[i]
            else:
                raise UsageError("argument --mechanism: expected one argument")
            if value not in ("native", "rewrite"):
                raise UsageError(f"argument --mechanism: invalid choice: {value!r} "
                                 "(choose from 'native', 'rewrite')")
            mechanism = value
        elif arg[:2] in ("-m", "-c") and arg != "-":
            kind = "module" if arg[1] == "m" else "code"
            if len(arg) > 2:
                value, rest = arg[2:], argv[i + 1:]
            elif i + 1 < n:
                value, rest = argv[i + 1], argv[i + 2:]
            else:
                raise UsageError(f"argument {arg}: expected one argument")
            if kind == "module" and not value:
                raise UsageError("argument -m: expected a module name")
            return Options(kind, value, list(rest), mechanism, summary)
        elif arg == "-":
            return Options("stdin", arg, argv[i + 1:], mechanism, summary)
        elif arg == "--":
            if i + 1 >= n:
                raise UsageError("a target is required after --")
            target = argv[i + 1]
            kind = "stdin" if target == "-" else "path"
            return Options(kind, target, argv[i + 2:], mechanism, summary)
        elif arg.startswith("-"):
            raise UsageError(f"unrecognized option: {arg}")
        else:
            return Options("path", arg, argv[i + 1:], mechanism, summary)
        i += 1
    raise UsageError("a target is required: -m MODULE, -c CODE, -, SCRIPT or COMMAND")


def main(argv=None) -> int:
    """``lazify run ARGV`` called as a function (:func:`lazify._cli.main`); return the
    exit status.  The launchers run the program from their own frame instead (see
    :class:`Launch`)."""
    launch = prepare(sys.argv[1:] if argv is None else argv)
    return launch if launch.__class__ is int else launch.run()


class Launch:
    """The program ``lazify run`` starts, ready to run: its code and the namespace to run
    it in.

    :func:`prepare` does all of ``run``'s work (options, settings, the hook, ``sys.argv``,
    ``sys.path[0]``, ``__main__``, compiling); the launcher then runs the code with
    ``exec`` from its own frame and hands the outcome to :meth:`done`.  The launchers are
    the ``lazify`` console script's :func:`lazify._main.main` and the top level of
    ``lazify/__main__.py``, so the program runs under as few frames as under ``python -m``
    (two): CPython 3.11+ allocates its frame stack in 16 KiB chunks, and a deep recursion
    that oscillates across a chunk boundary maps and unmaps a chunk per call; where the
    boundaries fall depends on how deep the program's first frame sits
    (docs/performance.md, "Steady state on real test suites").
    """

    __slots__ = ("code", "namespace", "_restore", "_source", "_filename", "hint")

    def __init__(self, code, namespace, restore, source=None, filename=None):
        self.code = code
        self.namespace = namespace
        #: said after the traceback of a module not found (:func:`foreign_python`)
        self.hint = None
        #: undoes what was done to ``sys`` for the program (``__main__``, ``argv[0]``)
        self._restore = restore
        #: ``-c``'s source, for the lines of its traceback (3.13+)
        self._source = source
        self._filename = filename

    def run(self) -> int:
        """Run the code from this method's frame (one frame deeper than a launcher's
        own) and return the exit status."""
        try:
            exec(self.code, self.namespace)
        except BaseException as exc:
            return self.done(exc)
        return self.done()

    def done(self, exc=None) -> int:
        """The exit status once the code has run (``exc``: what it raised), reported
        as python would report it."""
        try:
            if exc is None:
                return 0
            if self._source is not None:
                _register_source(exc, self._source, self._filename)
            status = report(exc)
            if self.hint is not None and isinstance(exc, ModuleNotFoundError):
                _say(self.hint)
            return status
        finally:
            self._restore()


def prepare(argv):
    """Everything ``lazify run ARGV`` does before the program runs: a :class:`Launch`,
    or the exit status when there is nothing to run (help, a usage error, a target that
    cannot be found or compiled, or one run here through runpy: a directory or zip)."""
    try:
        options = parse(list(argv))
    except UsageError as exc:
        _say(f"{USAGE}\n{PROG}: error: {exc}\n")
        return 2
    if options is None:
        _say(HELP, "stdout")
        return 0
    path = None
    if options.kind == "path":
        path = find_command(options.target)
        if path is None:
            _say(f"{PROG}: can't open file {os.path.abspath(options.target)!r}: "
                             "[Errno 2] No such file or directory"
                             f"{_nor_command(options.target)}\n")
            return 2
        if path != options.target:       # a command found by name
            other = not_python(path)
            if other is not None:
                _say(f"{PROG}: {options.target} ({path}) is not a Python program ({other}): "
                     f"lazify run runs Python programs\n")
                return 2
    try:
        settings = resolve_settings(options.mechanism)
    except ValueError as exc:            # _config.ConfigError, a mechanism this Python lacks
        _say(f"{PROG}: {str(exc).removeprefix('lazify: ')}\n")
        return 2
    enabled = settings[0]
    if enabled:
        from lazify import _hook

        # asked for a lazy run: lazy from the first run where the cache can be written
        _hook.defer_unless_set(_hook.WHERE_UNCACHED)
        _hook.install(enabled=True, excluding=settings[1], mechanism=settings[2])
    if options.summary or _summary_asked():
        from lazify import _import_record

        _import_record.summary_at_exit()
    if options.kind == "module":
        return run_module(options.target, options.args)
    if options.kind == "code":
        return run_source(options.target, "<string>", ["-c", *options.args], lazy=enabled)
    if options.kind == "stdin":
        try:                             # closed (``<&-``): an empty program, as python runs
            source = b"" if sys.stdin is None else sys.stdin.buffer.read()
        except (OSError, ValueError, AttributeError) as exc:
            _say(f"{PROG}: can't read standard input: {exc}\n")
            return 2
        return run_source(source, "<stdin>", ["-", *options.args], lazy=enabled)
    launch = run_script(path, options.args, lazy=enabled)
    python = foreign_python(path) if path != options.target else None
    if python is not None and isinstance(launch, Launch):
        launch.hint = (f"{PROG}: {options.target} is a script of {python}, and ran with this "
                       f"Python ({sys.executable}), which has not its modules: run it as "
                       f"`{python} -m lazify run {options.target}` (lazify installed "
                       f"there) or `LAZIFY=1 {options.target}`\n")
    return launch


def _say(text, stream="stderr"):
    """Write lazify run's own message on ``sys.stderr`` (or stdout): nothing where that
    stream is closed (``2>&-``; ``None`` in ``sys``), as python's own messages go nowhere
    there, and the exit status stays python's."""
    out = getattr(sys, stream)
    if out is not None:
        out.write(text)


def _summary_asked() -> bool:
    from lazify._settings import env_flag

    return env_flag("LAZIFY_SUMMARY")


def resolve_settings(mechanism=None, *, project=None, extra_excluding=()):
    """``(enabled, excluding, mechanism)`` from lazify's settings resolver
    (:func:`lazify._config.resolve`): the one place ``run`` and the pytest plugin ask
    for settings.  ``excluding`` is None for lazify's default list.

    :param project: read ``[tool.lazify]`` of the ``pyproject.toml`` above this directory
        instead of the settings recorded for the environment (the pytest plugin: the
        project under test).
    :raises ValueError: (``ConfigError``) broken settings, or a ``mechanism`` this
        interpreter lacks.
    """
    from lazify._native import check_mechanism
    from lazify._settings import DEFAULT_EXCLUDING, has_settings, recorded, recorded_settings

    if mechanism is not None:
        check_mechanism(mechanism)
    if project is None and not extra_excluding and not has_settings():
        # no variable set: the recorded settings as they are, what resolve() gives then,
        # without importing lazify._config (1.4 M instructions at every `lazify run`), as
        # lazify.install() does
        enabled, names, configured = recorded_settings(recorded() or {})
        if mechanism is None and configured is not None:
            from lazify._config import usable_mechanism

            mechanism = usable_mechanism(configured)
    else:
        from lazify._config import resolve, usable_mechanism

        config = resolve(mechanism=mechanism, project=project, extra_excluding=extra_excluding)
        enabled, names = config.enabled, config.excluding
        if mechanism is None:
            mechanism = usable_mechanism(config.mechanism)
    # excluding=None means lazify's default list; a given one replaces it
    excluding = frozenset({*DEFAULT_EXCLUDING, *names}) if names else None
    return enabled, excluding, mechanism


def find_command(target):
    """The file ``target`` names: a path, else (a bare name) a console script on
    ``PATH``, as a shell finds it, else in :func:`scripts_directory`; None when there is
    none of these."""
    if os.path.exists(target):
        return target
    if not _bare(target):
        return None
    for directory in [*os.environ.get("PATH", os.defpath).split(os.pathsep),
                      scripts_directory()]:
        candidate = os.path.join(directory or os.curdir, target)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def _head(path):
    """The first bytes of the file at ``path``, None where it cannot be read (python
    then says why, as for any script)."""
    try:
        with open(path, "rb") as f:
            return f.read(4096)         # pip's '#!/bin/sh' form holds a long path
    except OSError:
        return None


#: how pip (distlib) starts a console script whose Python's path has a space or is too
#: long for a ``#!`` line: sh runs the next line, ``exec PYTHON "$0" "$@"``, and Python
#: reads the lines as a string
_SH_EXEC = b"#!/bin/sh\n'''exec' "


def _shebang(head) -> list:
    """The words of the ``#!`` line (after ``env`` and its options), [] for none; of
    pip's ``#!/bin/sh`` form, the Python it runs."""
    if head.startswith(_SH_EXEC):
        line = head[len(_SH_EXEC):].split(b"\n", 1)[0]
        words = [line[1:].split(b'"', 1)[0]] if line.startswith(b'"') else line.split()[:1]
        return [w.decode("utf-8", "surrogateescape") for w in words]
    if not head.startswith(b"#!"):
        return []
    words = head[2:].split(b"\n", 1)[0].split()
    if words and os.path.basename(words[0]) == b"env":
        words = [w for w in words[1:] if not w.startswith(b"-")]
    return [w.decode("utf-8", "surrogateescape") for w in words]


def foreign_python(path):
    """The Python the script at ``path`` names in its ``#!`` line when it is another
    environment's (not in this interpreter's directory: a pipx-style ``~/.local/bin``
    link into an application's venv), else None."""
    words = _shebang(_head(path) or b"")
    if not words or not os.path.isabs(words[0]) or "python" not in os.path.basename(words[0]):
        return None
    here = os.path.dirname(os.path.abspath(sys.executable))
    return None if os.path.dirname(words[0]) == here else words[0]


#: ``#!`` interpreters whose scripts are no Python source (versions stripped: ``perl5.36``)
_OTHER_INTERPRETERS = frozenset((
    "sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "csh", "tcsh", "busybox", "perl",
    "ruby", "node", "nodejs", "deno", "bun", "php", "lua", "tclsh", "wish", "awk", "gawk",
    "sed", "make", "rscript", "julia", "osascript", "pwsh"))


def not_python(path):
    """What the command at ``path`` is when it is no Python program (``#!/bin/sh``, an
    executable binary), else None.  ``lazify run ls`` ran the ELF file as Python source
    ('SyntaxError: source code cannot contain null bytes'), a shell script likewise."""
    head = _head(path)
    if head is None:
        return None
    words = _shebang(head)
    if words:
        # only an interpreter known to be no Python's: pypy3, ``env -S uv run --script``
        # and other runners of Python scripts ran before and still do
        name = os.path.basename(words[0]).lower().rstrip("0123456789.")
        if name not in _OTHER_INTERPRETERS:
            return None
        return "#!" + head[2:].split(b"\n", 1)[0].strip().decode("utf-8", "replace")
    # a zip application without a '#!' line is binary too, and python runs it (Windows'
    # console-script launchers, an .exe with the script's zip appended)
    return "a binary executable" if b"\0" in head and not _is_zip(path) else None


def _bare(target) -> bool:
    return bool(target) and os.sep not in target and not (os.altsep and os.altsep in target)


def _nor_command(target) -> str:
    """The end of the message for a target found nowhere: the places a bare name was
    looked for as a command too."""
    if not _bare(target):
        return ""
    return f", and no command {target!r} on PATH or in {scripts_directory()}"


def scripts_directory() -> str:
    """Where pip put the console scripts of lazify's own environment, ``lazify``'s among
    them (the interpreter's directory: a venv's ``bin`` or ``Scripts``): a program
    installed beside lazify is found when ``venv/bin/lazify`` runs from a shell that
    never activated the venv."""
    return os.path.dirname(sys.executable) if sys.executable else ""


def _set_path0(directory: str) -> None:
    # What python itself does for `python script.py`, `python -m mod` and `python -c`
    # unless -I or -P (safe_path, 3.11+) told it not to put that directory on sys.path.
    if sys.flags.isolated or getattr(sys.flags, "safe_path", False):
        return
    if sys.path:
        sys.path[0] = directory
    else:
        sys.path.insert(0, directory)


def _new_main(**attributes):
    """A fresh ``__main__`` module in ``sys.modules``, and the function that puts the
    old one back."""
    import builtins

    main = type(sys)("__main__")
    main.__builtins__ = builtins
    for name, value in attributes.items():
        setattr(main, name, value)
    saved = sys.modules.get("__main__")
    sys.modules["__main__"] = main

    def restore():
        if saved is not None:
            sys.modules["__main__"] = saved

    return main, restore


# --------------------------------------------------------------------------- -m


def run_module(name: str, argv):
    """``python -m NAME``, as ``runpy.run_module(name, run_name="__main__",
    alter_sys=True)`` runs it, but with the code left to the launcher (:class:`Launch`):
    runpy's own helpers find the code, make the temporary ``__main__`` and ``argv[0]``
    and fill the namespace (``_run_code`` with empty code: each version's own set of
    names)."""
    import importlib.util
    import runpy

    _set_path0(os.getcwd())
    sys.argv = [name, *argv]  # runpy replaces argv[0] with the module's file
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError) as exc:
        _say(f"{PROG}: {exc}\n")
        return 1
    except BaseException as exc:  # a parent package failed while being imported
        return report(exc)
    if spec is None:
        _say(f"{PROG}: No module named {name}\n")
        return 1
    try:
        _name, spec, code = runpy._get_module_details(name)
    except ImportError as exc:
        return _runpy_error(exc)
    except BaseException as exc:
        return report(exc)
    main = runpy._TempModule("__main__")
    argv0 = runpy._ModifiedArgv0(spec.origin)
    main.__enter__()
    argv0.__enter__()
    runpy._run_code(_NOTHING, main.module.__dict__, None, "__main__", spec)

    def restore():
        argv0.__exit__(None, None, None)
        main.__exit__(None, None, None)

    return Launch(code, main.module.__dict__, restore)


def _nothing():
    pass


#: the code :func:`run_module` has runpy's ``_run_code`` run to fill a namespace: a
#: function's, not ``compile("")``'s (the first ``compile()`` of a process builds the
#: interpreter's AST types, about 9.5 M instructions at every ``lazify run``)
_NOTHING = _nothing.__code__


def _through_runpy(run, *args, **kwargs) -> int:
    """Run with runpy; report as python would (exit code, traceback)."""
    try:
        run(*args, **kwargs)
    except ImportError as exc:
        return _runpy_error(exc)
    except BaseException as exc:
        return report(exc)
    return 0


def _runpy_error(exc: ImportError) -> int:
    if _raised_in_runpy(exc):
        # runpy's own "cannot be directly executed" and the like: python prints
        # just the message.
        _say(f"{PROG}: {exc}\n")
        return 1
    return report(exc)


def _raised_in_runpy(exc: BaseException) -> bool:
    tb = exc.__traceback__
    if tb is None:
        return False
    while tb.tb_next is not None:
        tb = tb.tb_next
    return _is_own_frame(tb.tb_frame.f_code.co_filename, own=_runpy_files())


def _runpy_files() -> frozenset:
    # 3.11+ freezes runpy: its frames say "<frozen runpy>"
    files = {"<frozen runpy>"}
    runpy = sys.modules.get("runpy")
    if getattr(runpy, "__file__", None):
        files.add(os.path.normcase(os.path.abspath(runpy.__file__)))
    return frozenset(files)


def _is_own_frame(filename: str, own) -> bool:
    if filename.startswith("<"):
        return filename in own
    return os.path.normcase(os.path.abspath(filename)) in own


# ------------------------------------------------------------------ -c and stdin


def run_source(source, filename: str, argv, *, lazy: bool):
    """``python -c CODE`` (filename ``<string>``) or ``python -`` (``<stdin>``)."""
    from _frozen_importlib import BuiltinImporter

    _set_path0("")
    sys.argv = list(argv)
    main, restore = _new_main(__loader__=BuiltinImporter, __spec__=None)
    try:
        code = _source_code(source, filename, lazy)
    except (SyntaxError, ValueError) as exc:
        restore()
        if filename == "<stdin>" and not _compiles(source, filename):
            return _python_reports(["-", *argv[1:]], source)
        return report(exc, compiling=True)
    except BaseException as exc:
        restore()
        return report(exc, compiling=True)
    # python -c keeps the code's source for tracebacks (3.13+), python - does not
    return Launch(code, main.__dict__, restore,
                  source if filename == "<string>" else None, filename)


def _register_source(exc, source, filename) -> None:
    """Let the traceback show the lines of ``-c`` code, as python does on 3.13+; on the
    error path only. 3.14+ keeps such source by code object (``_register_code`` walks the
    nested code), 3.13.0 by the file name ``<string>``."""
    if sys.version_info < (3, 13):
        return
    import linecache

    if isinstance(source, bytes):
        source = source.decode("utf-8", "replace")
    if not hasattr(linecache, "_interactive_cache"):
        linecache.cache[filename] = (
            len(source), None, [line + "\n" for line in source.splitlines()], filename)
        return
    tb = exc.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        if code.co_filename == filename and code.co_name == "<module>":
            try:
                linecache._register_code(code, source, filename)
            except Exception:
                pass
            return
        tb = tb.tb_next


def _source_code(source, filename, lazy):
    """Compile source that no file holds, rewritten when it has an import to defer
    (no cache: the rewriter is imported only when the text says ``import``)."""
    data = source.encode("utf-8", "surrogateescape") if isinstance(source, str) else source
    if not (lazy and b"import" in data):
        if filename == "<string>" and isinstance(source, str):
            # exec() compiles a string as "<string>", as python -c does; compile() would
            # first make the ast module's classes (PyAST_Check), a third of a start-up
            return source
        return compile(data, filename, "exec", dont_inherit=True)
    if lazy:
        from lazify._hook import LazifyLoader

        # the loader's rewrite, with its fallback to the plain compile (and warning)
        return LazifyLoader("__main__", filename)._rewrite(data, filename, "__main__")[0]


# ------------------------------------------------------------------------ scripts


def run_script(path: str, argv, *, lazy: bool = False):
    sys.argv = [path, *argv]
    if os.path.isdir(path) or not os.path.isfile(path) or _is_zip(path):
        # A directory or zip with __main__.py: runpy imports it through the import
        # system, so the hook rewrites it, and inserts *path* at sys.path[0] itself; drop
        # the entry python made for lazify (its bin directory or the cwd) first.
        import runpy

        if sys.path and not (sys.flags.isolated or getattr(sys.flags, "safe_path", False)):
            del sys.path[0]
        return _through_runpy(runpy.run_path, path, run_name="__main__")
    _set_path0(os.path.dirname(os.path.realpath(path)))
    from _frozen_importlib_external import SourceFileLoader

    filename = os.path.abspath(path)
    # As `python script.py` (3.9+): an absolute __file__, no __spec__, argv[0] as given.
    main, restore = _new_main(__file__=filename, __cached__=None, __spec__=None,
                              __loader__=SourceFileLoader("__main__", filename))
    try:
        code = _script_code(filename, lazy)
    except (SyntaxError, ValueError) as exc:
        restore()
        if _compiles(None, filename):    # not the source's error (LAZIFY_STRICT=1, a bug)
            return report(exc, compiling=True)
        return _python_reports([path, *argv])
    except BaseException as exc:
        restore()
        return report(exc, compiling=True)
    return Launch(code, main.__dict__, restore)


def _compiles(data, filename: str) -> bool:
    """Whether the plain compile of ``data`` (None: of the file) succeeds."""
    try:
        if data is None:
            _script_code(filename)
        else:
            compile(data, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, OSError):
        return False
    return True


def _python_reports(args, stdin: bytes | None = None) -> int:
    """A main script (or standard input) that does not compile: python itself says why,
    as ``python ARGS`` would.  Its file tokenizer words encoding errors and null bytes
    otherwise than ``compile()`` of the bytes does, and otherwise on each version.
    Whatever python does with the source is what happens: it fails to compile there too,
    before any of its code runs (3.10's tokenizer ends a file at a null byte and runs what
    precedes it, plainly, as ``python script.py`` does)."""
    import subprocess

    for stream in (sys.stdout, sys.stderr):
        if stream is not None:
            stream.flush()
    command = [sys.executable, *subprocess._args_from_interpreter_flags(), *args]
    try:
        return subprocess.run(command, input=stdin).returncode
    except OSError as exc:
        _say(f"{PROG}: {args[0]}: cannot be compiled, and {sys.executable} "
                         f"could not be started to say why: {exc}\n")
        return 1


def _is_zip(path: str) -> bool:
    """Whether python would run ``path`` as a zip application (``zipimport`` is
    imported at start-up, ``zipfile`` is not)."""
    import zipimport

    try:
        zipimport.zipimporter(path)
    except (zipimport.ZipImportError, OSError):
        return False
    return True


def _script_code(path: str, lazy: bool = False):
    """Compile the main script, through lazify's loader when ``lazy``.

    ``python script.py`` compiles the main script outside the import system, so no hook
    sees it; ``run`` gets its code from lazify's loader instead (module ``__main__``),
    which uses and fills lazify's bytecode cache like any imported module, and falls
    back to the plain code with a warning if rewriting fails.
    """
    if lazy:
        from lazify._hook import LazifyLoader

        return LazifyLoader("__main__", path).get_code("__main__")
    with open(path, "rb") as f:
        source = f.read()
    return compile(source, path, "exec", dont_inherit=True)


# ------------------------------------------------------------------------ errors


def report(exc: BaseException, compiling: bool = False) -> int:
    """Handle an exception from the target the way the interpreter would; return the code.

    :param compiling: raised while compiling the main code, where python shows no frame
        (a SyntaxError shows its own line).
    """
    if isinstance(exc, SystemExit):
        code = exc.code
        if code is None:
            return 0
        if isinstance(code, int):
            return code
        print(code, file=sys.stderr)
        return 1
    tb = None if compiling else exc.__traceback__
    # Drop lazify's and runpy's own frames, so that the traceback starts at the user's code
    # as it does under plain `python`.
    own = _runpy_files() | _launchers() | {
        # the loader's get_code, named as importlib's (lazify._hook)
        "<frozen importlib._bootstrap_external>"}
    while tb is not None and _is_own_frame(tb.tb_frame.f_code.co_filename, own):
        tb = tb.tb_next
    # Set it on the exception too: the default hook prints exc.__traceback__ on 3.12+.
    exc.__traceback__ = tb
    sys.excepthook(type(exc), exc, tb)
    if isinstance(exc, KeyboardInterrupt):
        global interrupted
        interrupted = True
        return 130
    return 1


#: the program ended in a KeyboardInterrupt, reported (its exit status 130 stands for it
#: until the launcher raises it again: :func:`exit_status`)
interrupted = False


def exit_status(status: int) -> int:
    """The launcher's exit status, or, after the program's KeyboardInterrupt was
    reported, that interrupt raised again to the interpreter's top level with nothing
    more printed: the interpreter then finalises (atexit handlers run) and ends itself
    by SIGINT, as it does for ``python app.py``, so a shell sees the Ctrl-C (a loop
    over the command stops; ``$?`` is 130 either way), not a plain exit status 130."""
    if status != 130 or not interrupted:
        return status
    hook = sys.excepthook

    def quiet(kind, value, tb):
        if kind is not KeyboardInterrupt:
            hook(kind, value, tb)

    sys.excepthook = quiet
    raise KeyboardInterrupt


def _launchers() -> frozenset:
    """This module and the two that run the program's code from their own frame
    (:class:`Launch`): their frames head the traceback of the program's exception."""
    here = os.path.dirname(os.path.normcase(os.path.abspath(__file__)))
    return frozenset(os.path.join(here, name) for name in ("_run.py", "_main.py", "__main__.py"))
