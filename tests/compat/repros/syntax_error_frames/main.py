# test_import.ImportTracebackTests.test_syntax_error: the traceback of a
# SyntaxError raised by an import shows only the importer's frames.
import traceback
try:
    import bad
except SyntaxError as e:
    print(sorted({f.filename.rsplit("/", 1)[-1] for f in traceback.extract_tb(e.__traceback__)}))
