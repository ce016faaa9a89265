"""Helpers for the tutorial notebooks only; the rest of mockgo does not use them."""

import os
from pathlib import Path

_TRUE = {"1", "true", "yes"}
_FALSE = {"0", "false", "no", ""}


def quick_mode(default=False):
    """Whether MOCKGO_QUICK asks for a fast, shrunken run (as in `make notebooks` and tests).

    Unset means `default`; an unrecognised value is an error rather than a guess,
    so a typo does not silently start an hour-long training run.
    """
    value = os.environ.get("MOCKGO_QUICK")
    if value is None:
        return default
    value = value.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ValueError(f"MOCKGO_QUICK={value!r}: use 1/true/yes or 0/false/no")


def repo_root(start=None):
    """The nearest folder at or above `start` (default: the cwd) holding pyproject.toml.

    Notebooks run with cwd = notebooks/, so paths like data/kgs are found from here.
    """
    here = Path(start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "pyproject.toml").is_file():
            return folder
    raise FileNotFoundError(f"no pyproject.toml in {here} or any folder above it")
