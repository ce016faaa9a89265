"""The error a command raises for bad input named on its command line (a
missing file, an unknown name): :mod:`mockgo.cli` prints it as one line
naming what was wrong and exits with status 2, as argparse does for its own
usage errors; and :func:`positive_int`, the argparse type of the commands'
counts, whose errors argparse reports alike. They live here, at the bottom
of the package, so that every stage's command can use them without
importing the command line above it.
"""

import argparse

__all__ = ["InputError", "positive_int"]


class InputError(ValueError):
    """Bad input named on the command line (a missing file, an unknown
    name): exit status 2, as argparse's usage errors, with one line naming it."""


def positive_int(text):
    """An argparse type for the commands' counts: a whole number of 1 or
    more (games, workers, a batch), or argparse's error naming the option."""
    digits = text.strip()
    # isdigit alone takes '²' and other scripts' digits, which int() refuses or reads oddly.
    if not (digits.isascii() and digits.isdigit() and len(digits) < 20) or int(digits) < 1:
        raise argparse.ArgumentTypeError(f"a whole number of 1 or more, not {text!r}")
    return int(digits)
