"""The ``lazify`` command's entry point: ``lazify run`` without ``argparse``.

``lazify run`` is on the start-up path of the program it runs, so it goes to
:mod:`lazify._run`, which parses its few options by hand; every other command
goes to the :mod:`lazify._cli` package (argparse, one module per command).
"""

import sys


def main(argv=None) -> int:
    """Run the ``lazify`` command line and return its exit code."""
    if argv is None:
        argv = sys.argv[1:]
    if argv and argv[0] == "run":
        from lazify._run import exit_status, prepare

        # The program runs from this frame, right under the console script's: as few
        # frames below it as `python -m` puts there (lazify._run.Launch says why).
        launch = prepare(argv[1:])
        if launch.__class__ is int:
            return exit_status(launch)
        try:
            exec(launch.code, launch.namespace)
        except BaseException as exc:
            return exit_status(launch.done(exc))
        return launch.done()
    from lazify._cli import main as cli

    return cli(argv)
