"""Differences the sweep accepts, each with its reason.

Key: (suite, test id) where suite is "stdlib test_x" or a project name, and a
test id ending in "*" matches every id with that prefix.  Value: the reason.
Only limitations of the approach are listed (each in the README's
limitations; the `unused` one is also reported per import by ``lazify
check``).  A lazify bug is never listed here: it is fixed in the mechanism,
and until then the sweep exits 1.

The minimised repro of each reason is under ``tests/compat/repros/``
(``python tests/compat/repro.py NAME``).
"""

#: repros/loader_cache: a rewritten module is loaded by lazify's loader and its
#: bytecode lives in lazify's own cache file (``__cached__`` names it); the
#: standard ``.pyc`` is neither written nor read for it, and no cache is
#: written for a source modified within the last second.  Tests of the
#: import system's own pyc handling (legacy/sourceless pycs, permissions,
#: doctored pycs) and exact loader-type checks see that.
LOADER_CACHE = ("import machinery: rewritten modules use LazifyLoader and lazify's own "
                "bytecode cache (spec.loader / __cached__ / the standard pyc differ)")

#: repros/deferred_error: PEP 690 semantics.  An import whose name the module
#: never uses never runs, so its error or side effect (a circular-import
#: error, a failing submodule, re-populating sys.modules) does not happen at
#: import time.  ``lazify check`` flags each such import as `unused`.
DEFERRED = ("PEP 690: an import whose name is never used is never run, so its import-time "
            "error/side effect does not happen (`lazify check`: unused)")

#: repros/namespace_extras: a rewritten module's namespace holds ``__lazy__``
#: (always) and lazify's ``__getattr__``/``__dir__`` (while names are
#: pending); namespace comparisons and pydoc's DATA section see them.
NAMESPACE = ("rewritten namespace: __lazy__ always, lazify's __getattr__/__dir__ while "
             "imports are pending")

KNOWN: dict[tuple[str, str], str] = {
    # test_runpy: the loader type of modules run with runpy
    ("stdlib test_runpy", "test.test_runpy.RunModuleTestCase.test_run_*"): LOADER_CACHE,
    ("stdlib test_runpy", "test.test_runpy.RunPathTestCase.test_directory"): LOADER_CACHE,
    ("stdlib test_runpy", "test.test_runpy.RunModuleTestCase.test_explicit_relative_import"):
        NAMESPACE,
    ("stdlib test_runpy", "test.test_runpy.RunModuleTestCase.test_main_relative_import"):
        NAMESPACE,
    # test_pydoc (3.11: a module; 3.14: a package, test.test_pydoc.test_pydoc)
    ("stdlib test_pydoc", "test.test_pydoc.PydocImportTest.test_importfile"): LOADER_CACHE,
    ("stdlib test_pydoc", "test.test_pydoc.PydocDocTest.test_help_output_redirect"): NAMESPACE,
    ("stdlib test_pydoc", "test.test_pydoc.PydocDocTest.test_html_doc"): NAMESPACE,
    ("stdlib test_pydoc", "test.test_pydoc.PydocDocTest.test_text_doc"): NAMESPACE,
    ("stdlib test_pydoc", "test.test_pydoc.test_pydoc.PydocImportTest.test_importfile"):
        LOADER_CACHE,
    ("stdlib test_pydoc", "test.test_pydoc.test_pydoc.PydocDocTest.test_help_output_redirect"):
        NAMESPACE,
    ("stdlib test_pydoc", "test.test_pydoc.test_pydoc.PydocDocTest.test_html_doc"): NAMESPACE,
    ("stdlib test_pydoc", "test.test_pydoc.test_pydoc.PydocDocTest.test_text_doc"): NAMESPACE,
    # test_inspect (3.11; 3.14 passes): `python -I -m inspect -d unittest` in a child
    # (not activated) prints the standard pyc as Cached while the parent's
    # unittest.__cached__ is lazify's
    ("stdlib test_inspect", "test.test_inspect.test_inspect.TestMain.test_details"):
        LOADER_CACHE,
    # test_importlib: reload() namespace comparison includes __cached__ (3.14: only
    # the location_changed pair differs)
    ("stdlib test_importlib",
     "test.test_importlib.test_api.Frozen_ReloadTests.test_reload_location_changed"):
        LOADER_CACHE,
    ("stdlib test_importlib",
     "test.test_importlib.test_api.Frozen_ReloadTests.test_reload_namespace_changed"):
        LOADER_CACHE,
    ("stdlib test_importlib",
     "test.test_importlib.test_api.Source_ReloadTests.test_reload_location_changed"):
        LOADER_CACHE,
    ("stdlib test_importlib",
     "test.test_importlib.test_api.Source_ReloadTests.test_reload_namespace_changed"):
        LOADER_CACHE,
    # test_import: CPython's own pyc handling
    ("stdlib test_import", "test.test_import.FilePermissionTests.*"): LOADER_CACHE,
    ("stdlib test_import", "test.test_import.PycacheTests.*"): LOADER_CACHE,
    ("stdlib test_import", "test.test_import.PycRewritingTests.test_foreign_code"): LOADER_CACHE,
    ("stdlib test_import", "test.test_import.ImportTests.test_file_to_source"): LOADER_CACHE,
    ("stdlib test_import", "test.test_import.ImportTests.test_timestamp_overflow"): LOADER_CACHE,
    # test_import (3.14): require_pure_python() maps the exact loader type of a
    # module through {SourceFileLoader: 'pure Python', ...}: KeyError on LazifyLoader
    ("stdlib test_import", "test.test_import.SubinterpImportTests.test_isolated_config"):
        LOADER_CACHE,
    ("stdlib test_import", "test.test_import.SubinterpImportTests.test_python_compat"):
        LOADER_CACHE,
    # test_import: import-time errors of unused imports
    ("stdlib test_import", "test.test_import.CircularImportTests.test_absolute_circular_submodule"):
        DEFERRED,
    ("stdlib test_import", "test.test_import.CircularImportTests.test_circular_from_import"):
        DEFERRED,
    ("stdlib test_import", "test.test_import.CircularImportTests.test_crossreference2"): DEFERRED,
    ("stdlib test_import", "test.test_import.ImportTracebackTests.test_exec_failure_nested"):
        DEFERRED,
    ("stdlib test_import", "test.test_import.ImportTracebackTests.test_nonexistent_module_nested"):
        DEFERRED,
    ("stdlib test_import", "test.test_import.RelativeImportTests.test_import_from_non_package"):
        DEFERRED,
    ("stdlib test_import", "test.test_import.RelativeImportTests.test_import_from_unloaded_package"):
        DEFERRED,
    # werkzeug: a.aa does `from b import bb` (never used) where b.bb is broken;
    # import_string("a.aa") is expected to raise
    ("werkzeug", "tests.test_utils::test_import_string_provides_traceback"): DEFERRED,
}
