# test_import.ImportTracebackTests.test_exec_failure_nested: foo never uses
# bar, so under PEP 690 the import never runs and its error is never raised.
try:
    import foo
except ZeroDivisionError:
    print("ZeroDivisionError at import")
else:
    print("no error")
