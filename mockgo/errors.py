"""The error a command raises for bad input named on its command line (a
missing file, an unknown name): :mod:`mockgo.cli` prints it as one line
naming what was wrong and exits with status 2, as argparse does for its own
usage errors. It lives here, at the bottom of the package, so that every
stage's command can raise it without importing the command line above it.
"""

__all__ = ["InputError"]


class InputError(ValueError):
    """Bad input named on the command line (a missing file, an unknown
    name): exit status 2, as argparse's usage errors, with one line naming it."""
