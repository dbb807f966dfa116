"""``python -m lazify``: the same command line as the ``lazify`` console script."""

import sys

if sys.argv[1:2] == ["run"]:
    # `python -m lazify run ...`: the program runs from this top level, under runpy's two
    # frames and this one (lazify._run.Launch says why it is not run from main()).
    from lazify._run import exit_status, prepare

    launch = prepare(sys.argv[2:])
    if launch.__class__ is not int:
        try:
            exec(launch.code, launch.namespace)
        except BaseException as exc:
            launch = launch.done(exc)
        else:
            launch = launch.done()
    raise SystemExit(exit_status(launch))

from lazify._main import main

raise SystemExit(main())
